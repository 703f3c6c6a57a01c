// Adapters registered at run time (torch_hal.register_adapter): errors leave the registry intact, and a
// good table appends its devices after the existing ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "test_util.h"

namespace {

using hal::AdapterState;
hal::DeviceRegistry& registry() { return hal::DeviceRegistry::instance(); }

TEST(Plugins, BrokenLibraryThrowsAdapterLoadAndIsListed) {
  const size_t before = registry().adapters().size();
  hal::Error e = hal_test::expect_hal_error([] { registry().register_adapter_library(hal_test::fixture("wrong_abi")); });
  EXPECT_EQ(e.code(), hal::ErrorCode::AdapterLoad);
  EXPECT_NE(std::string(e.what()).find("libhal_fixture_wrong_abi.so: adapter ABI version 2.0"), std::string::npos);
  ASSERT_EQ(registry().adapters().size(), before + 1);
  EXPECT_EQ(registry().adapters().back()->state(), AdapterState::Broken);
  EXPECT_EQ(registry().device_count(), 1);
}

TEST(Plugins, UnavailableLibraryThrowsUnavailable) {
  hal::Error e = hal_test::expect_hal_error([] { registry().register_adapter_library(hal_test::fixture("unavailable")); });
  EXPECT_EQ(e.code(), hal::ErrorCode::Unavailable);
  EXPECT_STREQ(e.what(), "fixture runtime libfoo.so.1 not found: install foo");
  EXPECT_EQ(registry().device_count(), 1);
}

TEST(Plugins, SameAdapterTwiceIsADuplicateAndTheFirstKeepsWorking) {
  hal::Error e = hal_test::expect_hal_error([] { registry().register_adapter_library(hal_test::host_adapter_path()); });
  EXPECT_EQ(e.code(), hal::ErrorCode::Unavailable);
  EXPECT_EQ(registry().adapters().back()->state(), AdapterState::Unavailable);
  EXPECT_EQ(registry().adapters().back()->reason(), "duplicate of " + hal_test::host_adapter_path());
  hal::Allocation a = hal::allocate(0, 4096, 0);
  std::vector<char> in(4096, 'q'), out(4096);
  hal::copy_host_to_device(0, a.ptr, in.data(), 4096, 0, false, false);
  hal::copy_device_to_host(0, out.data(), a.ptr, 4096, 0, false, false);
  hal::free_block(a.block);
  EXPECT_EQ(in, out);
}

TEST(Plugins, TableIsAppendedAfterExistingDevices) {
  // The host adapter's table under another name stands in for a Python-defined backend.
  const hal_adapter_t& host = registry().device(0).table();
  auto clone = std::make_shared<hal_adapter_t>(host);
  clone->name = "host_clone";
  std::vector<int> added = registry().register_adapter_table(clone.get(), "python:HostClone", clone);
  EXPECT_EQ(added, std::vector<int>{1});
  ASSERT_EQ(registry().device_count(), 2);
  EXPECT_EQ(registry().device(1).adapter->name(), "host_clone");
  EXPECT_EQ(registry().device(1).adapter->path(), "python:HostClone");
  EXPECT_EQ(registry().device(0).adapter->name(), "host");  // existing numbering unchanged
  std::vector<char> in(10000, 'z'), out(10000);
  hal::Allocation a = hal::allocate(1, in.size(), 0);
  hal::copy_host_to_device(1, a.ptr, in.data(), in.size(), 0, false, false);
  hal::copy_device_to_host(1, out.data(), a.ptr, out.size(), 0, false, false);
  hal::free_block(a.block);
  EXPECT_EQ(in, out);
}

}  // namespace
