// Two host devices (TORCH_HAL_HOST_DEVICES=2, TORCH_HAL_HOST_MEMORY=256M): numbering, peer copies,
// cross-device ordering, independent allocators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "hal/streams.h"
#include "stream_gate.h"
#include "test_util.h"

namespace {

using hal_test::kMiB;

struct DeviceBuffer {
  DeviceBuffer(int device, size_t n) : alloc(hal::allocate(device, n, 0)) {}
  ~DeviceBuffer() { hal::free_block(alloc.block); }
  char* data() const { return static_cast<char*>(alloc.ptr); }
  hal::Allocation alloc;
};

TEST(TwoDevices, Numbering) {
  auto& reg = hal::DeviceRegistry::instance();
  ASSERT_EQ(reg.device_count(), 2);
  EXPECT_EQ(reg.device(0).local_index, 0);
  EXPECT_EQ(reg.device(1).local_index, 1);
  EXPECT_EQ(reg.device(1).index, 1);
  EXPECT_STRNE(reg.device(0).properties.uuid, reg.device(1).properties.uuid);
  EXPECT_EQ(reg.device(1).properties.total_memory_bytes, 256 * kMiB);
  hal::Error e = hal_test::expect_hal_error([&] { reg.device(2); });
  EXPECT_STREQ(e.what(), "hal:2 is not a valid device: 2 hal devices are available (hal:0..hal:1). Pick an index in "
                         "0..1, or check HAL_VISIBLE_DEVICES / torch_hal.adapters()");
}

void peer_round_trip(int from, int to, size_t n, bool staged) {
  hal::set_force_staging(staged);
  std::vector<unsigned char> in(n), out(n, 0);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 7 + from);
  DeviceBuffer src(from, n), dst(to, n);
  hal::copy_host_to_device(from, src.data(), in.data(), n, 0, false, false);
  hal::copy_device_to_device(to, dst.data(), from, src.data(), n, hal::stream_from_pool(to), false);
  hal::copy_device_to_host(to, out.data(), dst.data(), n, 0, false, false);
  hal::set_force_staging(false);
  EXPECT_EQ(in, out) << from << "->" << to << " n=" << n;
}

TEST(TwoDevices, PeerCopiesBothWays) {
  for (bool staged : {false, true}) {
    peer_round_trip(0, 1, 3 * 8 * kMiB + 5, staged);
    peer_round_trip(1, 0, 12345, staged);
  }
}

TEST(TwoDevices, PeerCopyWaitsForSourceDeviceWork) {
  const size_t n = 16 * kMiB;
  DeviceBuffer src(0, n), dst(1, n);
  const hal::Device& d0 = hal::DeviceRegistry::instance().device(0);
  const hal::Device& d1 = hal::DeviceRegistry::instance().device(1);
  ASSERT_EQ(d0.table().memset_async(0, src.data(), 1, n, nullptr), HAL_STATUS_SUCCESS);
  ASSERT_EQ(d1.table().memset_async(1, dst.data(), 0, n, nullptr), HAL_STATUS_SUCCESS);
  hal::synchronize_device(0);
  hal::synchronize_device(1);
  hal::StreamId s0 = hal::create_stream(0), s1 = hal::create_stream(1);
  hal::set_current_stream(0, s0);
  {
    // Device 0's current stream is held, then writes the source: the copy on device 1 must wait for it.
    hal_test::StreamGate gate(0, s0);
    ASSERT_EQ(d0.table().memset_async(0, src.data(), 5, n, hal::native_stream(0, s0)), HAL_STATUS_SUCCESS);
    hal::copy_device_to_device(1, dst.data(), 0, src.data(), n, s1, /*non_blocking=*/true);
    // Device 1's stream only holds the copy: it must be waiting.
    EXPECT_TRUE(hal_test::stays_pending([&] { return hal::query_stream(1, s1); }));
    EXPECT_TRUE(std::all_of(dst.data(), dst.data() + n, [](char c) { return c == 0; }));
    gate.open();
  }
  hal::synchronize_stream(1, s1);
  hal::set_current_stream(0, hal::kDefaultStreamId);
  // A copy that had not waited would have read the 1s written before the gate.
  EXPECT_TRUE(std::all_of(dst.data(), dst.data() + n, [](char c) { return c == 5; }));
  hal::synchronize_device(0);
}

TEST(TwoDevices, AllocatorsAreIndependent) {
  hal::empty_cache();
  DeviceBuffer on1(1, 10 * kMiB);
  EXPECT_EQ(hal::memory_stats(1)["allocated_bytes.all.current"], static_cast<int64_t>(10 * kMiB));
  EXPECT_EQ(hal::memory_stats(0)["allocated_bytes.all.current"], 0);
  hal::Error e = hal_test::expect_hal_error([] { hal::allocate(1, 300 * kMiB, 0); });
  EXPECT_EQ(e.code(), hal::ErrorCode::OutOfDeviceMemory);
  EXPECT_EQ(std::string(e.what()).rfind("hal:1 (", 0), 0u) << e.what();
  hal::Allocation fits = hal::allocate(0, 200 * kMiB, 0);  // device 0 has its own 256 MiB
  EXPECT_NE(fits.ptr, nullptr);
  hal::free_block(fits.block);
}

}  // namespace
