// Streams, the current stream, and events on the host device.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_registry.h"
#include "hal/event.h"
#include "hal/streams.h"
#include "stream_gate.h"
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

// Enqueues a memset of the whole buffer on `stream`.
void fill(const DeviceBuffer& buffer, int value, hal::StreamId stream) {
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  ASSERT_EQ(d.table().memset_async(0, buffer.data(), value, buffer.size, hal::native_stream(0, stream)),
            HAL_STATUS_SUCCESS);
}

bool all_equal(const DeviceBuffer& buffer, char value) {
  return std::all_of(buffer.data(), buffer.data() + buffer.size, [value](char c) { return c == value; });
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
  DeviceBuffer buffer(kMiB);
  hal::StreamId s = hal::create_stream(0);
  EXPECT_TRUE(hal::query_stream(0, s));
  hal_test::StreamGate gate(0, s);
  fill(buffer, 4, s);
  EXPECT_FALSE(hal::query_stream(0, s));  // held at the gate: pending, whatever the machine's load
  gate.open();
  hal::synchronize_stream(0, s);
  EXPECT_TRUE(hal::query_stream(0, s));
  EXPECT_TRUE(all_equal(buffer, 4));
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
  DeviceBuffer src(16 * kMiB), dst(16 * kMiB);
  fill(src, 1, hal::kDefaultStreamId);
  fill(dst, 0, hal::kDefaultStreamId);
  hal::synchronize_stream(0, hal::kDefaultStreamId);
  hal::StreamId producer = hal::create_stream(0), consumer = hal::create_stream(0);
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  hal_test::StreamGate gate(0, producer);  // the producer cannot write src before gate.open()
  fill(src, 7, producer);
  hal::Event ready;
  ready.record(0, producer);
  EXPECT_TRUE(ready.recorded());
  EXPECT_EQ(ready.device(), 0);
  EXPECT_FALSE(ready.query());
  ready.block(0, consumer);
  ASSERT_EQ(d.table().memcpy_async(0, dst.data(), src.data(), src.size, HAL_COPY_DEVICE_TO_DEVICE,
                                   hal::native_stream(0, consumer)),
            HAL_STATUS_SUCCESS);
  hal::Event copied;
  copied.record(0, consumer);
  // The consumer is idle but for the copy, which must wait for the gated producer: it cannot be done.
  EXPECT_TRUE(hal_test::stays_pending([&] { return hal::query_stream(0, consumer); }));
  EXPECT_FALSE(copied.query());
  EXPECT_TRUE(all_equal(dst, 0));
  gate.open();
  hal::synchronize_stream(0, consumer);
  EXPECT_TRUE(ready.query());
  EXPECT_TRUE(all_equal(dst, 7));  // a copy that ran before the producer's fill would have copied 1s
}

TEST(Events, WaitIsForTheRecordBeforeTheCall) {
  // A record made after stream_wait_event does not hold the waiting stream (CUDA semantics).
  hal::StreamId a = hal::create_stream(0), b = hal::create_stream(0);
  hal::Event e;
  e.record(0, a);
  e.synchronize();
  hal_test::StreamGate gate(0, a);
  e.block(0, b);      // waits for the completed first record only
  e.record(0, a);     // held at the gate
  hal::synchronize_stream(0, b);  // returns although the second record is pending
  EXPECT_FALSE(e.query());
  gate.open();
  e.synchronize();
  EXPECT_TRUE(e.query());
}

TEST(Events, ReRecordingWaitsForTheLatestRecord) {
  DeviceBuffer buffer(kMiB);
  hal::StreamId s = hal::create_stream(0);
  hal::Event e;
  e.record(0, s);
  e.synchronize();
  EXPECT_TRUE(e.query());
  hal_test::StreamGate gate(0, s);
  fill(buffer, 3, s);
  e.record(0, s);
  EXPECT_FALSE(e.query());  // the latest record is behind the gate
  gate.open();
  e.synchronize();
  EXPECT_TRUE(e.query());
  EXPECT_TRUE(hal::query_stream(0, s));
  EXPECT_TRUE(all_equal(buffer, 3));
}

TEST(Events, ElapsedTimeBracketsTheWork) {
  hal::StreamId s = hal::create_stream(0);
  hal::Event start(true), end(true);
  const auto t0 = std::chrono::steady_clock::now();
  start.record(0, s);
  start.synchronize();
  hal_test::StreamGate gate(0, s);
  end.record(0, s);
  // start completed before `held_from`; end cannot complete before `held_until`. The interval is
  // measured here, so no assumption is made about how long the sleep (or anything else) takes.
  const auto held_from = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto held_until = std::chrono::steady_clock::now();
  gate.open();
  end.synchronize();
  const auto t1 = std::chrono::steady_clock::now();
  const float held_ms = std::chrono::duration<float, std::milli>(held_until - held_from).count();
  const float wall_ms = std::chrono::duration<float, std::milli>(t1 - t0).count();
  const float ms = start.elapsed_ms(end);
  EXPECT_GE(ms, held_ms);
  EXPECT_LE(ms, wall_ms);
  EXPECT_GT(ms, 0.0f);
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
  DeviceBuffer a(kMiB), b(kMiB), c(kMiB);
  hal::StreamId s1 = hal::create_stream(0), s2 = hal::create_stream(0);
  hal_test::StreamGate g1(0, s1), g2(0, s2), g0(0, hal::kDefaultStreamId);
  fill(a, 1, s1);
  fill(b, 2, s2);
  fill(c, 3, hal::kDefaultStreamId);
  EXPECT_FALSE(hal::query_stream(0, s1));
  EXPECT_FALSE(hal::query_stream(0, s2));
  EXPECT_FALSE(hal::query_stream(0, hal::kDefaultStreamId));
  // The gates open from another thread; synchronize_device cannot return before they did, since the
  // work it waits for is behind them. (A synchronize_device that returned early would see
  // `opened` false: the opener gives it a head start, which only makes such a bug easier to catch.)
  std::atomic<bool> opened{false};
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    opened.store(true);
    g1.open();
    g2.open();
    g0.open();
  });
  hal::synchronize_device(0);
  EXPECT_TRUE(opened.load());
  EXPECT_TRUE(hal::query_stream(0, s1));
  EXPECT_TRUE(hal::query_stream(0, s2));
  EXPECT_TRUE(hal::query_stream(0, hal::kDefaultStreamId));
  EXPECT_TRUE(all_equal(a, 1));
  EXPECT_TRUE(all_equal(b, 2));
  EXPECT_TRUE(all_equal(c, 3));
  opener.join();
}

TEST(Streams, DeviceSynchronizeWhileAnotherThreadDestroysStreams) {
  // device_synchronize() used to copy the raw stream handles and wait on them after dropping the lock:
  // a stream destroyed meanwhile was freed under it (use after free; ThreadSanitizer sees the race).
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  const hal_adapter_t& t = d.table();
  DeviceBuffer buffer(64 * 1024);
  std::atomic<bool> done{false};
  std::thread churn([&] {
    for (int i = 0; i < 300; ++i) {
      hal_stream_t s = nullptr;
      ASSERT_EQ(t.stream_create(d.local_index, 0, &s), HAL_STATUS_SUCCESS);
      ASSERT_EQ(t.memset_async(d.local_index, buffer.data(), i, buffer.size, s), HAL_STATUS_SUCCESS);
      ASSERT_EQ(t.stream_destroy(d.local_index, s), HAL_STATUS_SUCCESS);
    }
    done = true;
  });
  int syncs = 0;
  while (!done.load() || syncs == 0) {
    ASSERT_EQ(t.device_synchronize(d.local_index), HAL_STATUS_SUCCESS);
    ++syncs;
  }
  churn.join();
}

}  // namespace
