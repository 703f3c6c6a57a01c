// Copies between host and hal:0, directly and through the forced staging ring, and pinned memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "staging_ring.h"
#include "stream_gate.h"
#include "test_util.h"

namespace {

using hal_test::kMiB;

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>((i * 131 + seed * 7 + (i >> 13)) & 0xFF);
  return v;
}

struct DeviceBuffer {
  DeviceBuffer(size_t n, hal::StreamId s = 0) : alloc(hal::allocate(0, n, s)) {}
  ~DeviceBuffer() { hal::free_block(alloc.block); }
  void* ptr() const { return alloc.ptr; }
  hal::Allocation alloc;
};

// Host -> device -> device -> host through the public API, checked byte for byte.
void round_trip(size_t n, hal::StreamId stream, unsigned seed) {
  std::vector<unsigned char> in = pattern(n, seed), out(n, 0);
  DeviceBuffer a(n, stream), b(n, stream);
  hal::copy_host_to_device(0, a.ptr(), in.data(), n, stream, false, false);
  hal::copy_device_to_device(0, b.ptr(), 0, a.ptr(), n, stream, false);
  hal::copy_device_to_host(0, out.data(), b.ptr(), n, stream, false, false);
  ASSERT_EQ(in, out) << "size " << n;
}

const size_t kChunk = hal::StagingRing::kChunkBytes;

class Copies : public ::testing::TestWithParam<bool> {  // parameter: force the staging ring
 protected:
  void SetUp() override { hal::set_force_staging(GetParam()); }
  void TearDown() override { hal::set_force_staging(false); }
};

TEST_P(Copies, RoundTripSizes) {
  EXPECT_EQ(hal::force_staging(), GetParam());
  unsigned seed = 1;
  for (size_t n : {size_t{1}, size_t{4095}, kChunk - 1, kChunk, kChunk + 1, 3 * kChunk + 12345, 5 * kChunk + 7}) {
    round_trip(n, hal::kDefaultStreamId, seed++);
  }
}

TEST_P(Copies, OnPoolStream) { round_trip(2 * kChunk + 999, hal::stream_from_pool(0), 42); }

TEST_P(Copies, ConcurrentThreadsShareTheRing) {
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([t] { round_trip(kChunk * 2 + 17 * t + 1, hal::stream_from_pool(0), t); });
  }
  for (auto& th : threads) th.join();
}

INSTANTIATE_TEST_SUITE_P(DirectAndStaged, Copies, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Staged" : "Direct"; });

TEST(CopyEngine, PinnedNonBlocking) {
  const size_t n = 3 * kMiB + 5;
  auto* src = static_cast<unsigned char*>(hal::allocate_pinned(0, n));
  auto* dst = static_cast<unsigned char*>(hal::allocate_pinned(0, n));
  ASSERT_NE(src, nullptr);
  std::vector<unsigned char> in = pattern(n, 9);
  std::copy(in.begin(), in.end(), src);
  std::fill(dst, dst + n, 0);
  hal::StreamId s = hal::create_stream(0);
  DeviceBuffer d(n, s);
  hal::copy_host_to_device(0, d.ptr(), src, n, s, true, true);
  hal::copy_device_to_host(0, dst, d.ptr(), n, s, true, true);
  hal::synchronize_stream(0, s);
  EXPECT_TRUE(std::equal(in.begin(), in.end(), dst));
  hal::free_pinned(0, src);
  hal::free_pinned(0, dst);
}

TEST(CopyEngine, IsPinnedTracksCachedBlocks) {
  const size_t n = 1000;
  auto* p = static_cast<char*>(hal::allocate_pinned(0, n));
  int on_stack = 0;
  std::vector<char> heap(n);
  EXPECT_TRUE(hal::is_pinned(p));
  EXPECT_TRUE(hal::is_pinned(p + n - 1));
  EXPECT_FALSE(hal::is_pinned(p - 1));
  EXPECT_FALSE(hal::is_pinned(&on_stack));
  EXPECT_FALSE(hal::is_pinned(heap.data()));
  hal::free_pinned(0, p);
  EXPECT_TRUE(hal::is_pinned(p));  // cached: still pinned memory, and the next request of its size class gets it
  EXPECT_EQ(hal::allocate_pinned(0, n - 10), p);
  hal::free_pinned(0, p);
  hal::empty_pinned_cache();
  EXPECT_FALSE(hal::is_pinned(p));
  EXPECT_EQ(hal::allocate_pinned(0, 0), nullptr);
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::free_pinned(0, heap.data()); }).code(),
            hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::allocate_pinned(9, 10); }).code(), hal::ErrorCode::InvalidArgument);
}

TEST(CopyEngine, PinnedBlockIsNotReusedUnderAQueuedCopy) {
  const size_t n = 1 << 20;
  const hal::StreamId s = hal::create_stream(0);
  DeviceBuffer d(n, s);
  auto* src = static_cast<char*>(hal::allocate_pinned(0, n));
  std::fill(src, src + n, 7);
  hal_test::StreamGate gate(0, s);  // holds the stream: the copy below stays queued
  hal::copy_host_to_device(0, d.ptr(), src, n, s, true, true);
  hal::free_pinned(0, src);
  void* again = hal::allocate_pinned(0, n);
  EXPECT_NE(again, src);  // the first block is still read by the queued copy
  gate.open();
  hal::synchronize_stream(0, s);
  hal::free_pinned(0, again);
  void* third = hal::allocate_pinned(0, n);
  EXPECT_TRUE(third == src || third == again);  // both copies done: cached blocks serve again
  hal::free_pinned(0, third);
}

TEST(CopyEngine, HugePinnedRequestIsRefusedAndNotRegistered) {
  std::vector<char> heap(64);
  for (size_t n : {SIZE_MAX, SIZE_MAX - 10, size_t{1} << 62}) {
    hal::Error e = hal_test::expect_hal_error([&] { hal::allocate_pinned(0, n); });
    EXPECT_EQ(e.code(), hal::ErrorCode::OutOfHostMemory) << n;
  }
  EXPECT_FALSE(hal::is_pinned(heap.data()));
}

TEST(CopyEngine, ValidatesArguments) {
  char buf[16];
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::copy_host_to_device(0, nullptr, buf, 16, 0, false, false); }).code(),
            hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::copy_device_to_host(0, buf, nullptr, 16, 0, false, false); }).code(),
            hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::copy_host_to_device(3, buf, buf, 16, 0, false, false); }).code(),
            hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::copy_device_to_device(0, buf, 1, buf, 16, 0, false); }).code(),
            hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([&] { hal::copy_device_to_host(0, buf, buf, 16, 777, false, false); }).code(),
            hal::ErrorCode::InvalidArgument);
  hal::copy_host_to_device(0, nullptr, nullptr, 0, 0, false, false);  // zero bytes: nothing to do
}

}  // namespace
