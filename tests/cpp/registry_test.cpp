// The process registry with one host device (TORCH_HAL_HOST_DEVICES=1, TORCH_HAL_HOST_MEMORY=1G).
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "hal/device_registry.h"
#include "test_util.h"

namespace {

hal::DeviceRegistry& registry() { return hal::DeviceRegistry::instance(); }

TEST(Registry, OneHostDevice) {
  ASSERT_EQ(registry().device_count(), 1);
  const hal::Device& d = registry().device(0);
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d.local_index, 0);
  EXPECT_EQ(d.adapter->name(), "host");
  EXPECT_EQ(d.adapter->path(), hal_test::host_adapter_path());
}

TEST(Registry, HostProperties) {
  const hal_device_properties_t& p = registry().device(0).properties;
  EXPECT_EQ(p.struct_size, sizeof(hal_device_properties_t));
  EXPECT_EQ(std::string(p.name).rfind("Host reference device (", 0), 0u) << p.name;
  EXPECT_EQ(p.name[std::strlen(p.name) - 1], ')');
  EXPECT_STREQ(p.vendor, "host");
  struct utsname uts {};
  ASSERT_EQ(uname(&uts), 0);
  EXPECT_STREQ(p.arch_name, uts.machine);
  EXPECT_STREQ(p.pci_bus_id, "");
  EXPECT_EQ(std::strlen(p.uuid), 36u) << p.uuid;
  EXPECT_EQ(p.total_memory_bytes, uint64_t{1} << 30);
  EXPECT_EQ(p.compute_units, static_cast<int32_t>(std::thread::hardware_concurrency()));
  EXPECT_EQ(p.max_threads_per_block, 1024);
  EXPECT_EQ(p.shared_memory_per_block_bytes, 48u * 1024);
  EXPECT_EQ(p.flags, static_cast<hal_device_flags_t>(HAL_DEVICE_FLAG_HOST_ACCESSIBLE | HAL_DEVICE_FLAG_FP16 |
                                                     HAL_DEVICE_FLAG_BF16 | HAL_DEVICE_FLAG_FP64));
  EXPECT_TRUE(registry().device(0).host_accessible());
  EXPECT_EQ(p.peak_fp32_tflops, 0.0);
  EXPECT_EQ(p.memory_bandwidth_gbps, 0.0);
}

TEST(Registry, MemoryInfoMatchesCapacity) {
  const hal::Device& d = registry().device(0);
  uint64_t free_bytes = 0, total = 0;
  ASSERT_EQ(d.table().get_memory_info(d.local_index, &free_bytes, &total), HAL_STATUS_SUCCESS);
  EXPECT_EQ(total, uint64_t{1} << 30);
  EXPECT_LE(free_bytes, total);
}

TEST(Registry, AdapterCapacityIsEnforcedWithItsOwnStatus) {
  const hal::Device& d = registry().device(0);
  void* p = nullptr;
  EXPECT_EQ(d.table().malloc_device(0, (uint64_t{1} << 30) + 1, &p), HAL_STATUS_OUT_OF_DEVICE_MEMORY);
  std::string why = d.table().get_last_error();
  EXPECT_NE(why.find("TORCH_HAL_HOST_MEMORY"), std::string::npos) << why;
  EXPECT_NE(why.find("1073741824"), std::string::npos) << why;
}

TEST(Registry, HugeSizesAreOutOfMemoryNotAWrappedTinyAllocation) {
  // (size + alignment - 1) wrapped around for sizes near 2^64: a "successful" allocation of 0 bytes.
  const hal::Device& d = registry().device(0);
  for (uint64_t size : {UINT64_MAX, UINT64_MAX - 10, UINT64_MAX - 63}) {
    void* p = nullptr;
    EXPECT_EQ(d.table().malloc_device(0, size, &p), HAL_STATUS_OUT_OF_DEVICE_MEMORY) << size;
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(d.table().malloc_host(size, &p), HAL_STATUS_OUT_OF_HOST_MEMORY) << size;
    EXPECT_EQ(p, nullptr);
  }
  uint64_t free_bytes = 0, total = 0;
  ASSERT_EQ(d.table().get_memory_info(0, &free_bytes, &total), HAL_STATUS_SUCCESS);
  EXPECT_LE(free_bytes, total);
}

TEST(Registry, BadIndexMessage) {
  hal::Error e = hal_test::expect_hal_error([] { registry().device(5); });
  EXPECT_EQ(e.code(), hal::ErrorCode::InvalidArgument);
  EXPECT_STREQ(e.what(), "hal:5 is not a valid device: 1 hal device is available (hal:0). Pick an index in 0..0, "
                         "or check HAL_VISIBLE_DEVICES / torch_hal.adapters()");
  EXPECT_EQ(hal_test::expect_hal_error([] { registry().device(-1); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([] { registry().device(1); }).code(), hal::ErrorCode::InvalidArgument);
}

TEST(Registry, AdaptersListsHostAsLoaded) {
  // Other built-in adapters (nvidia, where nvcc built it) may be listed too, unavailable without their GPU.
  auto adapters = registry().adapters();
  auto host = std::find_if(adapters.begin(), adapters.end(), [](const auto* a) { return a->name() == "host"; });
  ASSERT_NE(host, adapters.end());
  EXPECT_EQ((*host)->state(), hal::AdapterState::Loaded);
  EXPECT_EQ((*host)->device_count(), 1);
}

}  // namespace
