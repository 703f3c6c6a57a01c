// Run with TORCH_HAL_ADAPTERS = a copy of the host adapter, the three fixtures and a missing file: every
// broken adapter is listed with its reason, and the host device still works.
#include <gtest/gtest.h>

#include "hal/caching_allocator.h"
#include "hal/device_registry.h"
#include "test_util.h"

namespace {

using hal::AdapterState;

TEST(ForcedAdapters, EveryAdapterListedWithStateAndReason) {
  auto adapters = hal::DeviceRegistry::instance().adapters();
  // Six, then any other built-in adapter of the package folder (nvidia, where nvcc built it).
  ASSERT_GE(adapters.size(), 6u);
  const std::string copy = HAL_TEST_HOST_COPY;
  // Load order: the forced list as given, then the package folder.
  EXPECT_EQ(adapters[0]->path(), copy);
  EXPECT_EQ(adapters[0]->state(), AdapterState::Loaded);
  EXPECT_EQ(adapters[0]->name(), "host");

  EXPECT_EQ(adapters[1]->state(), AdapterState::Broken);
  EXPECT_NE(adapters[1]->reason().find("does not export hal_adapter_query"), std::string::npos);

  EXPECT_EQ(adapters[2]->state(), AdapterState::Broken);
  EXPECT_NE(adapters[2]->reason().find("adapter ABI version 2.0, but this torch_hal speaks 1.4"), std::string::npos);

  EXPECT_EQ(adapters[3]->state(), AdapterState::Unavailable);
  EXPECT_EQ(adapters[3]->reason(), "fixture runtime libfoo.so.1 not found: install foo");

  EXPECT_EQ(adapters[4]->state(), AdapterState::Broken);
  EXPECT_NE(adapters[4]->reason().find("/nonexistent/libhal_adapter_gone.so cannot be loaded"), std::string::npos);

  // The package's own host adapter has the same name as the forced copy: skipped, not loaded twice. The
  // package folder's adapters load in name order, so where it also holds amd or nvidia, host is not the sixth.
  const hal::AdapterLibrary* package_host = nullptr;
  for (size_t i = 5; i < adapters.size(); ++i) {
    if (adapters[i]->path() == hal_test::host_adapter_path()) package_host = adapters[i];
  }
  ASSERT_NE(package_host, nullptr) << "the package folder's host adapter is not listed";
  EXPECT_EQ(package_host->state(), AdapterState::Unavailable);
  EXPECT_EQ(package_host->reason(), "duplicate of " + copy);
}

TEST(ForcedAdapters, HostDeviceFromTheFirstCopyWorks) {
  auto& reg = hal::DeviceRegistry::instance();
  ASSERT_EQ(reg.device_count(), 1);
  EXPECT_EQ(reg.device(0).adapter->path(), HAL_TEST_HOST_COPY);
  hal::Allocation a = hal::allocate(0, 1000, 0);
  EXPECT_NE(a.ptr, nullptr);
  hal::free_block(a.block);
}

}  // namespace
