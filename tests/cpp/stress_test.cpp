// 8 threads allocating, copying and freeing random sizes on pool streams, a fixed number of operations each
// (a count, not a duration: the same work on an idle or a loaded machine).
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "hal/caching_allocator.h"
#include "hal/copy_engine.h"
#include "hal/streams.h"
#include "test_util.h"

namespace {

TEST(Stress, EightThreadsEndWithNothingAllocated) {
  hal::synchronize_device(0);
  hal::empty_cache();
  constexpr int kOperationsPerThread = 600;
  std::atomic<int> mismatches{0};
  std::atomic<long> operations{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      const hal::StreamId mine = hal::stream_from_pool(0);
      const hal::StreamId other = hal::stream_from_pool(0, -1);
      struct Live {
        hal::Allocation a;
        size_t n;
        unsigned char value;
      };
      std::vector<Live> live;
      std::vector<unsigned char> host, back;
      for (int op = 0; op < kOperationsPerThread; ++op) {
        if (live.size() < 6 && rng() % 3 != 0) {
          // Mostly small and medium sizes, sometimes large ones (large pool, > 10 MiB).
          const size_t n = rng() % 10 == 0 ? 1 + rng() % (12 * hal_test::kMiB) : 1 + rng() % (256 * 1024);
          const auto value = static_cast<unsigned char>(rng());
          Live l{hal::allocate(0, n, mine), n, value};
          host.assign(n, value);
          hal::copy_host_to_device(0, l.a.ptr, host.data(), n, mine, false, false);
          if (rng() % 4 == 0) {
            // Also used on another stream: its reuse must wait for that stream.
            hal::record_stream(l.a.block, other);
            hal::copy_device_to_host(0, host.data(), l.a.ptr, n, other, false, false);
          }
          live.push_back(l);
        } else if (!live.empty()) {
          const size_t i = rng() % live.size();
          Live l = live[i];
          back.assign(l.n, 0);
          hal::copy_device_to_host(0, back.data(), l.a.ptr, l.n, mine, false, false);
          for (unsigned char c : back) {
            if (c != l.value) {
              ++mismatches;
              break;
            }
          }
          hal::free_block(l.a.block);
          live.erase(live.begin() + static_cast<long>(i));
        }
        ++operations;
      }
      for (Live& l : live) hal::free_block(l.a.block);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(operations.load(), 8L * kOperationsPerThread);
  auto stats = hal::memory_stats(0);
  EXPECT_EQ(stats["allocated_bytes.all.current"], 0);
  EXPECT_EQ(stats["allocation.all.current"], 0);
  EXPECT_EQ(stats["requested_bytes.all.current"], 0);
  EXPECT_GE(stats["reserved_bytes.all.current"], stats["active_bytes.all.current"]);
  hal::synchronize_device(0);
  hal::empty_cache();  // also settles blocks still waiting on events
  stats = hal::memory_stats(0);
  EXPECT_EQ(stats["active_bytes.all.current"], 0);
  EXPECT_EQ(stats["reserved_bytes.all.current"], 0);
  EXPECT_EQ(stats["segment.all.current"], 0);
}

}  // namespace
