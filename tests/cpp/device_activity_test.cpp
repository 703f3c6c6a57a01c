// Device activity for profilers (hal/device_activity.h) on the host device: spans timed by the adapter's
// events and placed on the host clock, copies named and sized, allocations and frees reported.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/device_activity.h"
#include "hal/streams.h"
#include "test_util.h"

namespace {

using hal_test::kMiB;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Recorder final : hal::ActivityObserver {
  uint64_t correlation() override { return 42; }
  void on_device_activity(hal::DeviceActivity&& a) override { activities.push_back(std::move(a)); }
  void on_memory(const hal::MemoryActivity& m) override { memory.push_back(m); }
  std::vector<hal::DeviceActivity> activities;
  std::vector<hal::MemoryActivity> memory;
};

// Observes from construction to stop(), which flushes; the test's observer is never left installed.
struct Session {
  Session() { hal::set_activity_observer(recorder); }
  ~Session() { hal::set_activity_observer(nullptr); }
  std::vector<std::string> stop() {
    hal::set_activity_observer(nullptr);
    return hal::flush_device_activities();
  }
  std::shared_ptr<Recorder> recorder = std::make_shared<Recorder>();
};

TEST(DeviceActivity, CopiesAndKernelsAreTimedOnTheHostClock) {
  const size_t n = 4 * kMiB;
  std::vector<char> host(n, 7);
  const hal::StreamId stream = hal::stream_from_pool(0);
  const int64_t before = now_ns();
  Session session;
  hal::Allocation a = hal::allocate(0, n, stream);
  hal::copy_host_to_device(0, a.ptr, host.data(), n, stream, false, false);
  {
    // What the glue does around a CPU kernel run in place on the host device: the work happens on this
    // thread, in stream order, between the span's two events.
    hal::DeviceSpan span(hal::ActivityKind::Kernel, 0, stream, [] { return std::string("host::sleep"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    span.end();
  }
  hal::copy_device_to_host(0, host.data(), a.ptr, n, stream, false, false);
  hal::free_block(a.block);
  const std::vector<std::string> errors = session.stop();
  const int64_t after = now_ns();

  EXPECT_TRUE(errors.empty()) << errors.front();
  const auto& acts = session.recorder->activities;
  ASSERT_EQ(acts.size(), 3u);
  EXPECT_EQ(acts[0].name, "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(acts[0].kind, hal::ActivityKind::Memcpy);
  EXPECT_EQ(acts[0].copy_kind, HAL_COPY_HOST_TO_DEVICE);
  EXPECT_EQ(acts[0].bytes, n);
  EXPECT_EQ(acts[1].name, "host::sleep");
  EXPECT_EQ(acts[1].kind, hal::ActivityKind::Kernel);
  EXPECT_EQ(acts[2].name, "Memcpy DtoH (Device -> Pageable)");
  for (const auto& act : acts) {
    EXPECT_EQ(act.device, 0);
    EXPECT_EQ(act.stream, stream);
    EXPECT_EQ(act.correlation, 42u);
    EXPECT_GT(act.end_ns, act.start_ns) << act.name;
    // The anchor maps device time to the host clock within microseconds; allow a millisecond.
    EXPECT_GE(act.start_ns, before - 1000000) << act.name;
    EXPECT_LE(act.end_ns, after + 1000000) << act.name;
  }
  // Measured, not estimated: the kernel's span holds its 20 ms, and the spans follow each other.
  EXPECT_GE(acts[1].end_ns - acts[1].start_ns, 19000000);
  EXPECT_LT(acts[1].end_ns - acts[1].start_ns, 1000000000);
  EXPECT_LE(acts[0].end_ns, acts[1].start_ns + 1000000);
  EXPECT_LE(acts[1].end_ns, acts[2].start_ns + 1000000);

  const auto& mem = session.recorder->memory;
  ASSERT_EQ(mem.size(), 2u);
  EXPECT_EQ(mem[0].ptr, a.ptr);
  EXPECT_GE(mem[0].bytes, static_cast<int64_t>(n));
  EXPECT_EQ(mem[1].bytes, -mem[0].bytes);
  EXPECT_EQ(mem[0].allocated_bytes - mem[1].allocated_bytes, mem[0].bytes);
  EXPECT_GE(mem[0].reserved_bytes, mem[0].allocated_bytes);
}

TEST(DeviceActivity, NothingIsTimedWithoutAnObserver) {
  auto recorder = std::make_shared<Recorder>();
  EXPECT_FALSE(hal::activity_observed());
  hal::DeviceSpan span(hal::ActivityKind::Kernel, 0, hal::kDefaultStreamId, []() -> std::string {
    ADD_FAILURE() << "the name of an inactive span is never built";
    return "";
  });
  span.end();
  EXPECT_TRUE(hal::flush_device_activities().empty());
}

TEST(DeviceActivity, SpansNeverEndedAreDropped) {
  Session session;
  {
    hal::DeviceSpan abandoned(hal::ActivityKind::Kernel, 0, hal::kDefaultStreamId, [] { return std::string("x"); });
  }
  EXPECT_TRUE(session.stop().empty());
  EXPECT_TRUE(session.recorder->activities.empty());
}

}  // namespace
