// The caching allocator on hal:0 (capacity 1 GiB). Every test leaves no allocation behind and starts
// from an empty cache, so that stats can be compared with a baseline.
#include <gtest/gtest.h>

#include <algorithm>

#include "allocator_config.h"
#include "hal/caching_allocator.h"
#include "hal/device_registry.h"
#include "hal/streams.h"
#include "stream_gate.h"
#include "test_util.h"

namespace {

using hal_test::kMiB;

int64_t stat(const char* key) {
  auto stats = hal::memory_stats(0);
  auto it = stats.find(key);
  EXPECT_NE(it, stats.end()) << key;
  return it == stats.end() ? -1 : it->second;
}

class Allocator : public ::testing::Test {
 protected:
  void SetUp() override {
    hal::synchronize_device(0);
    hal::empty_cache();
    ASSERT_EQ(stat("allocated_bytes.all.current"), 0);
    ASSERT_EQ(stat("reserved_bytes.all.current"), 0);
  }
  void TearDown() override {
    hal::set_memory_fraction(0, 1.0);
    EXPECT_EQ(stat("allocated_bytes.all.current"), 0);
    hal::empty_cache();
  }
  static void expect_reserved_covers_allocated() {
    EXPECT_GE(stat("reserved_bytes.all.current"), stat("allocated_bytes.all.current"));
    EXPECT_GE(stat("reserved_bytes.small_pool.current"), stat("allocated_bytes.small_pool.current"));
    EXPECT_GE(stat("reserved_bytes.large_pool.current"), stat("allocated_bytes.large_pool.current"));
  }
};

TEST_F(Allocator, ZeroBytesIsNull) {
  hal::Allocation a = hal::allocate(0, 0, 0);
  EXPECT_EQ(a.ptr, nullptr);
  EXPECT_EQ(a.block, nullptr);
  hal::free_block(nullptr);
  EXPECT_EQ(stat("reserved_bytes.all.current"), 0);
}

TEST_F(Allocator, AllocatedBlockContainingAPointer) {
  hal::Allocation a = hal::allocate(0, 1000, 0);
  hal::Allocation b = hal::allocate(0, 3000, 0);  // split from the same small segment
  char* pa = static_cast<char*>(a.ptr);
  EXPECT_EQ(hal::allocated_block_containing(pa), a.block);
  EXPECT_EQ(hal::allocated_block_containing(pa + 999), a.block);
  EXPECT_EQ(hal::allocated_block_containing(static_cast<char*>(b.ptr) + 64), b.block);
  int on_the_stack = 0;
  EXPECT_EQ(hal::allocated_block_containing(&on_the_stack), nullptr);
  hal::free_block(a.block);
  EXPECT_EQ(hal::allocated_block_containing(pa), nullptr);  // free (cached) memory is no allocated block
  hal::free_block(b.block);
}

TEST_F(Allocator, RoundingAndSegmentSizes) {
  struct Case {
    size_t request, block, segment;
    bool large;
  };
  const Case cases[] = {
      {1, 512, 2 * kMiB, false},
      {1000, 1024, 2 * kMiB, false},
      {kMiB, kMiB, 2 * kMiB, false},
      // Large pool: a leftover of at most 1 MiB is not split off, the block keeps the whole segment.
      {kMiB + 1, 2 * kMiB, 2 * kMiB, true},
      {3 * kMiB, 4 * kMiB, 4 * kMiB, true},
      {11 * kMiB + 5, 12 * kMiB, 12 * kMiB, true},
  };
  for (const Case& c : cases) {
    hal::Allocation a = hal::allocate(0, c.request, 0);
    ASSERT_NE(a.ptr, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a.ptr) % 64, 0u);  // adapters hand out 64-byte-aligned memory
    EXPECT_EQ(hal::block_size(a.block), c.block) << c.request;
    EXPECT_EQ(hal::block_device(a.block), 0);
    EXPECT_EQ(stat("reserved_bytes.all.current"), static_cast<int64_t>(c.segment)) << c.request;
    EXPECT_EQ(stat(c.large ? "allocated_bytes.large_pool.current" : "allocated_bytes.small_pool.current"),
              static_cast<int64_t>(c.block));
    EXPECT_EQ(stat("requested_bytes.all.current"), static_cast<int64_t>(c.request));
    expect_reserved_covers_allocated();
    hal::free_block(a.block);
    hal::empty_cache();
  }
}

TEST_F(Allocator, SplitAndMerge) {
  hal::Allocation a = hal::allocate(0, 512 * 1024, 0);
  hal::Allocation b = hal::allocate(0, 512 * 1024, 0);
  hal::Allocation big = hal::allocate(0, 4 * kMiB + 1, 0);  // 6 MiB segment: the large pool splits > 1 MiB
  EXPECT_EQ(hal::block_size(big.block), 4 * kMiB + 512);
  EXPECT_EQ(stat("inactive_split_bytes.large_pool.current"), static_cast<int64_t>(2 * kMiB - 512));
  hal::free_block(big.block);
  EXPECT_EQ(stat("inactive_split_bytes.large_pool.current"), 0);
  // Both carved from one 2 MiB segment, next to each other; the last 1 MiB is a free split.
  EXPECT_EQ(static_cast<char*>(b.ptr), static_cast<char*>(a.ptr) + 512 * 1024);
  EXPECT_EQ(stat("segment.small_pool.current"), 1);
  EXPECT_EQ(stat("inactive_split.all.current"), 1);
  EXPECT_EQ(stat("inactive_split_bytes.all.current"), static_cast<int64_t>(kMiB));
  hal::free_block(a.block);
  EXPECT_EQ(stat("inactive_split.all.current"), 2);
  EXPECT_EQ(stat("inactive_split_bytes.all.current"), static_cast<int64_t>(kMiB + 512 * 1024));
  // The freed front block is reused for a request that fits it.
  hal::Allocation c = hal::allocate(0, 256 * 1024, 0);
  EXPECT_EQ(c.ptr, a.ptr);
  hal::free_block(c.block);
  hal::free_block(b.block);
  // Everything merged back into one whole free segment.
  EXPECT_EQ(stat("inactive_split.all.current"), 0);
  EXPECT_EQ(stat("inactive_split_bytes.all.current"), 0);
  EXPECT_EQ(stat("segment.small_pool.current"), 1);
  hal::Allocation full = hal::allocate(0, kMiB, 0);
  EXPECT_EQ(full.ptr, a.ptr);  // the merged segment serves from its start
  hal::free_block(full.block);
}

// A freed small block stays whole for the next request of its size (what a training step does, step after
// step) and is no longer active at once; it merges back into its segment when a request needs the room.
TEST_F(Allocator, RecentlyFreedBlocksServeTheirSizeThenMergeBack) {
  hal::Allocation a = hal::allocate(0, 512 * 1024, 0);
  hal::Allocation b = hal::allocate(0, 512 * 1024, 0);
  hal::Allocation c = hal::allocate(0, kMiB, 0);  // the rest of the 2 MiB segment
  EXPECT_EQ(stat("segment.small_pool.current"), 1);
  hal::free_block(a.block);
  EXPECT_EQ(stat("active_bytes.small_pool.current"), static_cast<int64_t>(kMiB + 512 * 1024));
  hal::Allocation same = hal::allocate(0, 512 * 1024 - 100, 0);  // rounds to a's size: a's block, whole
  EXPECT_EQ(same.ptr, a.ptr);
  hal::free_block(same.block);
  hal::free_block(b.block);
  // Neither freed block fits 1 MiB, and the segment has no free room left: the two merge, and serve it.
  hal::Allocation merged = hal::allocate(0, kMiB, 0);
  EXPECT_EQ(merged.ptr, a.ptr);
  EXPECT_EQ(stat("segment.small_pool.current"), 1);
  hal::free_block(merged.block);
  hal::free_block(c.block);
  EXPECT_EQ(stat("inactive_split.all.current"), 0);  // statistics see the segment whole again
  EXPECT_EQ(stat("active_bytes.all.current"), 0);
}

TEST_F(Allocator, StatsReturnToStartAfterFrees) {
  const int64_t allocs_before = stat("allocation.all.allocated");
  std::vector<hal::Allocation> live;
  size_t total = 0;
  for (size_t size : {100u, 5000u, 70000u, 1u << 20, 3u << 20, 13u << 20, 600u, 2u << 20}) {
    live.push_back(hal::allocate(0, size, 0));
    total += hal::block_size(live.back().block);
    expect_reserved_covers_allocated();
  }
  EXPECT_EQ(stat("allocated_bytes.all.current"), static_cast<int64_t>(total));
  EXPECT_EQ(stat("allocation.all.current"), 8);
  EXPECT_EQ(stat("active.all.current"), 8);
  EXPECT_EQ(stat("allocated_bytes.small_pool.current") + stat("allocated_bytes.large_pool.current"),
            static_cast<int64_t>(total));
  EXPECT_GE(stat("allocated_bytes.all.peak"), static_cast<int64_t>(total));
  std::reverse(live.begin(), live.end());
  for (auto& a : live) {
    hal::free_block(a.block);
    expect_reserved_covers_allocated();
  }
  EXPECT_EQ(stat("allocated_bytes.all.current"), 0);
  EXPECT_EQ(stat("allocation.all.current"), 0);
  EXPECT_EQ(stat("active_bytes.all.current"), 0);
  EXPECT_EQ(stat("requested_bytes.all.current"), 0);
  EXPECT_EQ(stat("inactive_split.all.current"), 0);
  EXPECT_EQ(stat("allocation.all.allocated") - allocs_before, 8);
  EXPECT_EQ(stat("allocated_bytes.all.freed") - stat("allocated_bytes.all.allocated"), 0);
  EXPECT_GT(stat("reserved_bytes.all.current"), 0);  // cached, not returned
}

TEST_F(Allocator, EmptyCacheReleasesFreeSegmentsOnly) {
  hal::Allocation keep = hal::allocate(0, 4 * kMiB, 0);
  hal::Allocation drop = hal::allocate(0, 6 * kMiB, 0);
  hal::free_block(drop.block);
  const int64_t frees_before = stat("num_device_free");
  EXPECT_EQ(stat("reserved_bytes.all.current"), static_cast<int64_t>(10 * kMiB));
  hal::empty_cache();
  EXPECT_EQ(stat("reserved_bytes.all.current"), static_cast<int64_t>(4 * kMiB));
  EXPECT_EQ(stat("num_device_free") - frees_before, 1);
  EXPECT_EQ(stat("segment.all.current"), 1);
  hal::free_block(keep.block);
  hal::empty_cache();
  EXPECT_EQ(stat("reserved_bytes.all.current"), 0);
  EXPECT_EQ(stat("segment.all.current"), 0);
}

TEST_F(Allocator, OutOfMemoryMessageAndCount) {
  const int64_t ooms = stat("num_ooms");
  hal::Allocation held = hal::allocate(0, 100 * kMiB, 0);
  hal::Error e = hal_test::expect_hal_error([] { hal::allocate(0, size_t{2} << 30, 0); });
  EXPECT_EQ(e.code(), hal::ErrorCode::OutOfDeviceMemory);
  const std::string msg = e.what();
  const std::string name = hal::DeviceRegistry::instance().device(0).properties.name;
  EXPECT_EQ(msg.rfind("hal:0 (" + name + ") out of memory: tried to allocate 2.00 GiB; ", 0), 0u) << msg;
  EXPECT_NE(msg.find("100.00 MiB already allocated by tensors"), std::string::npos) << msg;
  EXPECT_NE(msg.find("100.00 MiB reserved by the caching allocator"), std::string::npos) << msg;
  EXPECT_NE(msg.find("924.00 MiB free of 1.00 GiB total"), std::string::npos) << msg;
  EXPECT_NE(msg.find("torch.hal.empty_cache()"), std::string::npos) << msg;
  EXPECT_NE(msg.find("PYTORCH_HAL_ALLOC_CONF=max_split_size_mb:<N>"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("memory fraction"), std::string::npos) << msg;
  EXPECT_EQ(stat("num_ooms") - ooms, 1);
  hal::free_block(held.block);
}

TEST_F(Allocator, RetryReleasesCacheBeforeOutOfMemory) {
  hal::Allocation a = hal::allocate(0, 600 * kMiB, 0);
  hal::free_block(a.block);  // 600 MiB cached: 700 MiB more would exceed the 1 GiB device
  const int64_t retries = stat("num_alloc_retries"), frees = stat("num_device_free"), ooms = stat("num_ooms");
  hal::Allocation b = hal::allocate(0, 700 * kMiB, 0);
  EXPECT_NE(b.ptr, nullptr);
  EXPECT_EQ(stat("num_alloc_retries") - retries, 1);
  EXPECT_EQ(stat("num_device_free") - frees, 1);
  EXPECT_EQ(stat("num_ooms"), ooms);
  EXPECT_EQ(stat("reserved_bytes.all.current"), static_cast<int64_t>(700 * kMiB));
  hal::free_block(b.block);
}

TEST_F(Allocator, MemoryFractionCapsReservedThenAllowsSmallerAllocations) {
  hal::set_memory_fraction(0, 0.25);
  EXPECT_DOUBLE_EQ(hal::memory_fraction(0), 0.25);
  hal::Error e = hal_test::expect_hal_error([] { hal::allocate(0, 300 * kMiB, 0); });
  EXPECT_EQ(e.code(), hal::ErrorCode::OutOfDeviceMemory);
  EXPECT_NE(std::string(e.what()).find("at most 256.00 MiB (memory fraction 0.25"), std::string::npos) << e.what();
  EXPECT_EQ(stat("reserved_bytes.all.current"), 0);
  hal::Allocation a = hal::allocate(0, 100 * kMiB, 0);
  hal::Allocation b = hal::allocate(0, 100 * kMiB, 0);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::allocate(0, 100 * kMiB, 0); }).code(),
            hal::ErrorCode::OutOfDeviceMemory);
  EXPECT_LE(stat("reserved_bytes.all.current"), static_cast<int64_t>(256 * kMiB));
  hal::free_block(a.block);
  hal::Allocation c = hal::allocate(0, 100 * kMiB, 0);  // reuses a's cached segment
  EXPECT_EQ(c.ptr, a.ptr);
  hal::free_block(b.block);
  hal::free_block(c.block);
}

TEST_F(Allocator, InvalidFractionDeviceStreamAndHugeSize) {
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::set_memory_fraction(0, 0.0); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::set_memory_fraction(0, 1.5); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_DOUBLE_EQ(hal::memory_fraction(0), 1.0);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::allocate(4, 10, 0); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::allocate(0, 10, 123456); }).code(), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::allocate(0, size_t{1} << 62, 0); }).code(),
            hal::ErrorCode::OutOfDeviceMemory);
  EXPECT_EQ(hal_test::expect_hal_error([] { hal::memory_stats(2); }).code(), hal::ErrorCode::InvalidArgument);
}

TEST_F(Allocator, StreamOrderedReuseWaitsForRecordedStreams) {
  const hal::Device& d = hal::DeviceRegistry::instance().device(0);
  hal::StreamId side = hal::create_stream(0);
  hal::Allocation x = hal::allocate(0, kMiB, 0);
  hal::record_stream(x.block, side);
  {
    hal_test::StreamGate gate(0, side);  // the side stream's use of x stays pending until gate.open()
    ASSERT_EQ(d.table().memset_async(0, x.ptr, 1, kMiB, hal::native_stream(0, side)), HAL_STATUS_SUCCESS);
    hal::free_block(x.block);
    EXPECT_EQ(stat("allocated_bytes.small_pool.current"), 0);
    EXPECT_EQ(stat("active_bytes.small_pool.current"), static_cast<int64_t>(kMiB));  // pending, still active
    hal::Allocation y = hal::allocate(0, kMiB, 0);
    EXPECT_NE(y.ptr, x.ptr) << "reused while the side stream still uses it";
    EXPECT_FALSE(hal::query_stream(0, side));
    hal::free_block(y.block);
    hal::Allocation again = hal::allocate(0, kMiB, 0);  // still pending: y's half again, never x's
    EXPECT_NE(again.ptr, x.ptr);
    hal::free_block(again.block);
    gate.open();
  }
  hal::synchronize_stream(0, side);
  // The events completed: x is free again. Its segment serves two blocks of its size, x's and y's, without
  // reserving more memory.
  const int64_t reserved = stat("reserved_bytes.small_pool.current");
  hal::Allocation z1 = hal::allocate(0, kMiB, 0);
  hal::Allocation z2 = hal::allocate(0, kMiB, 0);
  EXPECT_TRUE(z1.ptr == x.ptr || z2.ptr == x.ptr);
  EXPECT_EQ(stat("reserved_bytes.small_pool.current"), reserved);
  EXPECT_EQ(stat("active_bytes.small_pool.current"), static_cast<int64_t>(2 * kMiB));
  hal::free_block(z1.block);
  hal::free_block(z2.block);
}

TEST_F(Allocator, RecordOnOwnStreamDoesNotDelayReuse) {
  hal::Allocation x = hal::allocate(0, 4096, 0);
  hal::record_stream(x.block, 0);
  hal::free_block(x.block);
  hal::Allocation y = hal::allocate(0, 4096, 0);
  EXPECT_EQ(y.ptr, x.ptr);
  hal::free_block(y.block);
}

TEST_F(Allocator, BlocksAreNotSharedAcrossStreams) {
  hal::StreamId other = hal::create_stream(0);
  hal::Allocation x = hal::allocate(0, 4096, 0);
  hal::free_block(x.block);
  hal::Allocation y = hal::allocate(0, 4096, other);
  EXPECT_NE(y.ptr, x.ptr);
  EXPECT_EQ(stat("segment.all.current"), 2);
  hal::free_block(y.block);
}

std::string test_context() { return "allocated in a test"; }

TEST_F(Allocator, SnapshotShowsSegmentsBlocksAndContext) {
  hal::set_context_recorder(test_context);
  hal::Allocation a = hal::allocate(0, 3000, 0);
  hal::set_context_recorder(nullptr);
  hal::Allocation b = hal::allocate(0, 5 * kMiB, 0);
  auto snapshot = hal::memory_snapshot();
  ASSERT_EQ(snapshot.size(), 2u);
  int found = 0;
  for (const hal::SegmentInfo& seg : snapshot) {
    EXPECT_EQ(seg.device, 0);
    size_t sum = 0;
    for (const hal::BlockInfo& blk : seg.blocks) sum += blk.size;
    EXPECT_EQ(sum, seg.total_size);
    for (const hal::BlockInfo& blk : seg.blocks) {
      if (blk.address == reinterpret_cast<uint64_t>(a.ptr)) {
        ++found;
        EXPECT_TRUE(blk.allocated);
        EXPECT_EQ(blk.requested_size, 3000u);
        EXPECT_EQ(blk.context, "allocated in a test");
        EXPECT_FALSE(seg.is_large);
        EXPECT_EQ(seg.allocated_size, 3072u);
      }
      if (blk.address == reinterpret_cast<uint64_t>(b.ptr)) {
        ++found;
        EXPECT_EQ(blk.context, "");
        EXPECT_TRUE(seg.is_large);
      }
    }
  }
  EXPECT_EQ(found, 2);
  hal::free_block(a.block);
  hal::free_block(b.block);
}

TEST_F(Allocator, ResetPeakAndAccumulated) {
  hal::Allocation a = hal::allocate(0, 50 * kMiB, 0);
  hal::free_block(a.block);
  EXPECT_GE(stat("allocated_bytes.all.peak"), static_cast<int64_t>(50 * kMiB));
  hal::reset_peak_stats(0);
  EXPECT_EQ(stat("allocated_bytes.all.peak"), 0);
  EXPECT_EQ(stat("reserved_bytes.all.peak"), static_cast<int64_t>(50 * kMiB));  // still reserved
  hal::reset_accumulated_stats(0);
  EXPECT_EQ(stat("allocated_bytes.all.allocated"), 0);
  EXPECT_EQ(stat("num_device_alloc"), 0);
  EXPECT_EQ(stat("max_split_size"), -1);
}

// Run by the hal_alloc_conf CTest entry with PYTORCH_HAL_ALLOC_CONF=max_split_size_mb:2 (skipped elsewhere).
class AllocatorMaxSplit : public Allocator {
 protected:
  void SetUp() override {
    if (hal::allocator_config().max_split_size != 2 * kMiB) GTEST_SKIP() << "needs max_split_size_mb:2";
    Allocator::SetUp();
  }
};

TEST_F(AllocatorMaxSplit, SegmentsOfRequestsBelowTheLimitAreReused) {
  // A small-pool segment (2 MiB) and the segment of a 1.5 MiB request (2 MiB) both reach max_split: they
  // used to count as oversize for the very requests they were made for, so each allocation after a free
  // reserved a new segment.
  for (size_t size : {size_t{4096}, 3 * kMiB / 2}) {
    hal::Allocation first = hal::allocate(0, size, 0);
    const int64_t reserved = stat("reserved_bytes.all.current");
    const int64_t device_allocs = stat("num_device_alloc");
    hal::free_block(first.block);
    for (int i = 0; i < 20; ++i) {
      hal::Allocation again = hal::allocate(0, size, 0);
      EXPECT_EQ(again.ptr, first.ptr) << size;
      hal::free_block(again.block);
    }
    EXPECT_EQ(stat("reserved_bytes.all.current"), reserved) << size;
    EXPECT_EQ(stat("num_device_alloc"), device_allocs) << size;
    hal::empty_cache();
  }
}

TEST_F(AllocatorMaxSplit, OversizeBlocksStillServeOnlyOversizeRequests) {
  hal::Allocation big = hal::allocate(0, 8 * kMiB, 0);
  hal::free_block(big.block);
  hal::Allocation below = hal::allocate(0, 3 * kMiB / 2, 0);  // must not take (or split) the 8 MiB block
  EXPECT_NE(below.ptr, big.ptr);
  EXPECT_EQ(stat("segment.large_pool.current"), 2);
  hal::Allocation over = hal::allocate(0, 7 * kMiB, 0);  // oversize, and within kLargeBuffer of 8 MiB
  EXPECT_EQ(over.ptr, big.ptr);
  EXPECT_EQ(hal::block_size(over.block), 8 * kMiB);  // oversize blocks are never split
  hal::free_block(over.block);
  hal::free_block(below.block);
  expect_reserved_covers_allocated();
}

TEST(AllocatorConfig, Parses) {
  hal::AllocatorConfig c = hal::parse_allocator_config("max_split_size_mb:64,garbage_collection_threshold:0.6,"
                                                       "roundup_power2_divisions:4");
  EXPECT_EQ(c.max_split_size, 64 * kMiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_EQ(c.roundup_power2_divisions, 4u);
  EXPECT_EQ(hal::parse_allocator_config(nullptr).max_split_size, SIZE_MAX);
}

TEST(AllocatorConfig, RejectsBadEntries) {
  for (const char* bad : {"max_split_size_mb", "max_split_size_mb:abc", "max_split_size_mb:1",
                          "garbage_collection_threshold:1.5", "roundup_power2_divisions:3", "expandable:1",
                          "max_split_size_mb:nan", "max_split_size_mb:2e13", "max_split_size_mb:2^40",
                          "max_split_size_mb:99999999999", "garbage_collection_threshold:nan",
                          "garbage_collection_threshold:1e-1", "roundup_power2_divisions:inf",
                          "expandable_segments:True"}) {
    hal::Error e = hal_test::expect_hal_error([&] { hal::parse_allocator_config(bad); });
    EXPECT_EQ(e.code(), hal::ErrorCode::BadConfig) << bad;
    EXPECT_NE(std::string(e.what()).find("PYTORCH_HAL_ALLOC_CONF"), std::string::npos) << e.what();
  }
}

}  // namespace
