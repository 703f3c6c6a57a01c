// Adapters registered at run time (torch_hal.register_adapter): errors leave the registry intact, and a
// good table appends its devices after the existing ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "hal/streams.h"
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

// The host adapter's table with two functions that fail on request: how a driver error looks to the core.
const hal_adapter_t* g_host_table = nullptr;
std::atomic<bool> g_fail_free_device{false}, g_fail_event_record{false};

hal_status_t failing_free_device(int32_t device, void* ptr) {
  if (g_fail_free_device.load()) return HAL_STATUS_DEVICE_ERROR;
  return g_host_table->free_device(device, ptr);
}
hal_status_t failing_event_record(int32_t device, hal_event_t event, hal_stream_t stream) {
  if (g_fail_event_record.load()) return HAL_STATUS_DEVICE_ERROR;
  return g_host_table->event_record(device, event, stream);
}

int faulty_device() {
  static const int index = [] {
    g_host_table = &registry().device(0).table();
    auto faulty = std::make_shared<hal_adapter_t>(*g_host_table);
    faulty->name = "host_faulty";
    faulty->free_device = failing_free_device;
    faulty->event_record = failing_event_record;
    std::vector<int> added = registry().register_adapter_table(faulty.get(), "test:HostFaulty", faulty);
    EXPECT_EQ(added.size(), 1u);
    return added.at(0);
  }();
  return index;
}

int64_t stat(int device, const char* key) { return hal::memory_stats(device).at(key); }

TEST(AdapterFailures, FailedFreeDeviceKeepsTheSegmentReservedAndCached) {
  const int dev = faulty_device();
  hal::empty_cache();
  hal::Allocation a = hal::allocate(dev, 4 << 20, 0);
  hal::free_block(a.block);
  ASSERT_EQ(stat(dev, "reserved_bytes.all.current"), 4 << 20);
  g_fail_free_device = true;
  hal::Error e = hal_test::expect_hal_error([] { hal::empty_cache(); });
  g_fail_free_device = false;
  EXPECT_EQ(e.code(), hal::ErrorCode::Device);
  // The adapter still holds the segment: it stays reserved, cached and usable.
  EXPECT_EQ(stat(dev, "reserved_bytes.all.current"), 4 << 20);
  EXPECT_EQ(stat(dev, "segment.all.current"), 1);
  EXPECT_EQ(stat(dev, "num_device_free"), 0);
  hal::Allocation b = hal::allocate(dev, 4 << 20, 0);
  EXPECT_EQ(b.ptr, a.ptr);
  EXPECT_GE(stat(dev, "reserved_bytes.all.current"), stat(dev, "allocated_bytes.all.current"));
  hal::free_block(b.block);
  hal::empty_cache();  // now it goes
  EXPECT_EQ(stat(dev, "reserved_bytes.all.current"), 0);
  EXPECT_EQ(stat(dev, "segment.all.current"), 0);
}

TEST(AdapterFailures, FailedEventRecordOnFreeLeavesTheBlockAllocated) {
  const int dev = faulty_device();
  hal::empty_cache();
  const hal::StreamId side = hal::create_stream(dev);
  hal::Allocation a = hal::allocate(dev, 4096, 0);
  hal::record_stream(a.block, side);
  g_fail_event_record = true;
  hal::Error e = hal_test::expect_hal_error([&] { hal::free_block(a.block); });
  g_fail_event_record = false;
  EXPECT_EQ(e.code(), hal::ErrorCode::Device);
  EXPECT_EQ(stat(dev, "allocated_bytes.all.current"), 4096);  // not half freed
  hal::free_block(a.block);  // the retry works: neither "freed twice" nor lost
  EXPECT_EQ(stat(dev, "allocated_bytes.all.current"), 0);
  hal::synchronize_device(dev);
  hal::empty_cache();
  EXPECT_EQ(stat(dev, "reserved_bytes.all.current"), 0);  // the segment could be released
  EXPECT_EQ(stat(dev, "active_bytes.all.current"), 0);
}

}  // namespace
