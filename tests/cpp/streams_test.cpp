// Streams, the current stream, and events on the host device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "hal/event.h"
#include "hal/streams.h"
#include "test_util.h"

namespace {

using hal_test::kMiB;

// A device buffer owned for one test.
struct DeviceBuffer {
  explicit DeviceBuffer(size_t n, int device = 0) : alloc(hal::allocate(device, n, 0)), size(n) {}
  ~DeviceBuffer() { hal::free_block(alloc.block); }
  char* data() const { return static_cast<char*>(alloc.ptr); }
  hal::Allocation alloc;
  size_t size;
};

// Enqueues work that keeps `stream` busy for a while (tens of milliseconds on any machine).
void keep_busy(const DeviceBuffer& scratch, hal::StreamId stream, int rounds = 8) {
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  for (int i = 0; i < rounds; ++i) {
    ASSERT_EQ(d.table().memset_async(0, scratch.data(), i, scratch.size, hal::native_stream(0, stream)),
              HAL_STATUS_SUCCESS);
  }
}

TEST(Streams, DefaultIsCurrentAndNull) {
  EXPECT_EQ(hal::current_stream(0), hal::kDefaultStreamId);
  EXPECT_EQ(hal::native_stream(0, hal::kDefaultStreamId), nullptr);
}

TEST(Streams, CurrentStreamIsPerThread) {
  hal::StreamId s = hal::create_stream(0);
  hal::set_current_stream(0, s);
  EXPECT_EQ(hal::current_stream(0), s);
  hal::StreamId seen_elsewhere = -1;
  std::thread([&] { seen_elsewhere = hal::current_stream(0); }).join();
  EXPECT_EQ(seen_elsewhere, hal::kDefaultStreamId);
  hal::set_current_stream(0, hal::kDefaultStreamId);
  EXPECT_EQ(hal::current_stream(0), hal::kDefaultStreamId);
}

TEST(Streams, PoolHas32PerPriorityRoundRobin) {
  std::vector<hal::StreamId> normal, high;
  for (int i = 0; i < 32; ++i) normal.push_back(hal::stream_from_pool(0, 0));
  for (int i = 0; i < 32; ++i) high.push_back(hal::stream_from_pool(0, -1));
  std::set<hal::StreamId> distinct(normal.begin(), normal.end());
  distinct.insert(high.begin(), high.end());
  EXPECT_EQ(distinct.size(), 64u);
  EXPECT_EQ(distinct.count(hal::kDefaultStreamId), 0u);
  // Round robin: the next 32 are the same streams again, in the same order.
  for (int i = 0; i < 32; ++i) EXPECT_EQ(hal::stream_from_pool(0, 0), normal[i]);
  for (hal::StreamId s : normal) EXPECT_NE(hal::native_stream(0, s), nullptr);
}

TEST(Streams, CreateStreamIsNeverShared) {
  hal::StreamId a = hal::create_stream(0), b = hal::create_stream(0);
  EXPECT_NE(a, b);
  EXPECT_NE(hal::native_stream(0, a), hal::native_stream(0, b));
}

TEST(Streams, InvalidIdsAndDevices) {
  hal::Error e = hal_test::expect_hal_error([] { hal::native_stream(0, 1000000); });
  EXPECT_EQ(e.code(), hal::ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("stream 1000000 does not exist on hal:0"), std::string::npos) << e.what();
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::set_current_stream(0, -3); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::stream_from_pool(3); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::current_stream(7); }).code(), hal::ErrorCode::InvalidArgument);
}

TEST(Streams, QueryAndSynchronize) {
  DeviceBuffer scratch(128 * kMiB);
  hal::StreamId s = hal::create_stream(0);
  EXPECT_TRUE(hal::query_stream(0, s));
  keep_busy(scratch, s);
  EXPECT_FALSE(hal::query_stream(0, s));
  hal::synchronize_stream(0, s);
  EXPECT_TRUE(hal::query_stream(0, s));
}

TEST(Streams, WorkRunsInOrderOnOneStream) {
  DeviceBuffer a(32 * kMiB), b(32 * kMiB);
  hal::StreamId s = hal::stream_from_pool(0);
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  hal_stream_t ns = hal::native_stream(0, s);
  ASSERT_EQ(d.table().memset_async(0, a.data(), 3, a.size, ns), HAL_STATUS_SUCCESS);
  ASSERT_EQ(d.table().memcpy_async(0, b.data(), a.data(), a.size, HAL_COPY_DEVICE_TO_DEVICE, ns), HAL_STATUS_SUCCESS);
  ASSERT_EQ(d.table().memset_async(0, a.data(), 9, a.size, ns), HAL_STATUS_SUCCESS);
  hal::synchronize_stream(0, s);
  EXPECT_TRUE(std::all_of(b.data(), b.data() + b.size, [](char c) { return c == 3; }));
  EXPECT_TRUE(std::all_of(a.data(), a.data() + a.size, [](char c) { return c == 9; }));
}

TEST(Events, NeverRecordedCountsAsComplete) {
  hal::Event e;
  EXPECT_FALSE(e.recorded());
  EXPECT_TRUE(e.query());
  EXPECT_EQ(e.device(), -1);
  e.synchronize();                       // returns at once
  e.block(0, hal::kDefaultStreamId);     // no-op
  EXPECT_TRUE(hal::query_stream(0, hal::kDefaultStreamId));
}

TEST(Events, StreamWaitsForEventOfAnotherStream) {
  DeviceBuffer src(64 * kMiB), dst(64 * kMiB), scratch(128 * kMiB);
  hal::StreamId producer = hal::create_stream(0), consumer = hal::create_stream(0);
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  keep_busy(scratch, producer);  // so that the consumer would run first without the wait
  ASSERT_EQ(d.table().memset_async(0, src.data(), 7, src.size, hal::native_stream(0, producer)), HAL_STATUS_SUCCESS);
  hal::Event ready;
  ready.record(0, producer);
  EXPECT_TRUE(ready.recorded());
  EXPECT_EQ(ready.device(), 0);
  EXPECT_FALSE(ready.query());
  ready.block(0, consumer);
  ASSERT_EQ(d.table().memcpy_async(0, dst.data(), src.data(), src.size, HAL_COPY_DEVICE_TO_DEVICE,
                                   hal::native_stream(0, consumer)),
            HAL_STATUS_SUCCESS);
  hal::synchronize_stream(0, consumer);
  EXPECT_TRUE(ready.query());
  EXPECT_TRUE(std::all_of(dst.data(), dst.data() + dst.size, [](char c) { return c == 7; }));
}

TEST(Events, ReRecordingWaitsForTheLatestRecord) {
  DeviceBuffer scratch(128 * kMiB);
  hal::StreamId s = hal::create_stream(0);
  hal::Event e;
  e.record(0, s);
  e.synchronize();
  EXPECT_TRUE(e.query());
  keep_busy(scratch, s);
  e.record(0, s);
  EXPECT_FALSE(e.query());
  e.synchronize();
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(hal::query_stream(0, s));
}

TEST(Events, ElapsedTimeBracketsTheWork) {
  DeviceBuffer scratch(128 * kMiB);
  hal::StreamId s = hal::create_stream(0);
  hal::Event start(true), end(true);
  const auto t0 = std::chrono::steady_clock::now();
  start.record(0, s);
  keep_busy(scratch, s, 4);
  end.record(0, s);
  end.synchronize();
  const float wall_ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const float ms = start.elapsed_ms(end);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LE(ms, wall_ms);
  EXPECT_LT(end.elapsed_ms(start), 0.0f);
}

TEST(Events, ElapsedTimeNeedsTimingAndRecords) {
  hal::Event plain, timed(true), timed2(true);
  plain.record(0, 0);
  timed.record(0, 0);
  EXPECT_EQ(hal_test::expect_hal_error([&] { plain.elapsed_ms(timed); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([&] { timed.elapsed_ms(timed2); }).code(), hal::ErrorCode::InvalidArgument);
}

TEST(Streams, SynchronizeDeviceWaitsForEveryStream) {
  DeviceBuffer a(128 * kMiB), b(128 * kMiB), c(32 * kMiB);
  hal::StreamId s1 = hal::create_stream(0), s2 = hal::create_stream(0);
  keep_busy(a, s1);
  keep_busy(b, s2);
  keep_busy(c, hal::kDefaultStreamId, 1);
  hal::synchronize_device(0);
  EXPECT_TRUE(hal::query_stream(0, s1));
  EXPECT_TRUE(hal::query_stream(0, s2));
  EXPECT_TRUE(hal::query_stream(0, hal::kDefaultStreamId));
}

}  // namespace
