// Sharing device memory (hal/ipc.h) with the host adapter, within one process: the exported handle, opened
// again, maps the very pages of the block, at the block's offset in its allocation.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "hal/caching_allocator.h"
#include "hal/ipc.h"
#include "test_util.h"

namespace {

using hal_test::kMiB;

TEST(Ipc, HostMemoryIsSharedThroughItsMemoryFile) {
  ASSERT_TRUE(hal::ipc_supported(0));
  hal::Allocation a = hal::allocate(0, 3 * kMiB, hal::kDefaultStreamId);
  hal::Segment segment;
  ASSERT_TRUE(hal::segment_containing(a.ptr, &segment));
  char* inside = static_cast<char*>(a.ptr) + 4096;
  const hal::IpcExport exported = hal::ipc_export(0, inside);
  EXPECT_GE(exported.handle.fd, 0);
  EXPECT_EQ(exported.handle.num_bytes, 16u);
  EXPECT_EQ(exported.handle.allocation_size, segment.size);
  EXPECT_EQ(exported.offset, static_cast<uint64_t>(inside - static_cast<char*>(segment.base)));

  // What a receiving process does: it gets its own descriptor, maps, and closes the descriptor.
  hal_ipc_handle_t handle = exported.handle;
  handle.fd = dup(exported.handle.fd);
  ASSERT_GE(handle.fd, 0);
  std::shared_ptr<void> mapping = hal::ipc_open(0, handle);
  close(handle.fd);
  ASSERT_NE(mapping.get(), nullptr);
  EXPECT_NE(mapping.get(), segment.base);  // a second mapping of the same pages
  // Opening the same memory again gives the live mapping back (no descriptor needed for that).
  handle.fd = -1;
  EXPECT_EQ(hal::ipc_open(0, handle).get(), mapping.get());

  char* seen = static_cast<char*>(mapping.get()) + exported.offset;
  std::memcpy(inside, "written by the owner", 21);  // host-accessible memory
  EXPECT_STREQ(seen, "written by the owner");
  std::memcpy(seen, "and by the other one", 21);
  EXPECT_STREQ(inside, "and by the other one");

  mapping.reset();  // the last reference: ipc_close unmaps
  hal::free_block(a.block);
}

TEST(Ipc, OnlyTheCachingAllocatorsMemoryIsExported) {
  char local[64];
  const hal::Error e = hal_test::expect_hal_error([&] { hal::ipc_export(0, local); });
  EXPECT_EQ(e.code(), hal::ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("caching allocator"), std::string::npos) << e.what();
}

TEST(Ipc, AHandleWithoutItsDescriptorCannotBeOpened) {
  hal_ipc_handle_t handle{};
  handle.struct_size = sizeof(handle);
  handle.num_bytes = 16;
  handle.fd = -1;
  handle.allocation_size = kMiB;
  std::memset(handle.bytes, 0xAB, 16);
  const hal::Error e = hal_test::expect_hal_error([&] { hal::ipc_open(0, handle); });
  EXPECT_EQ(e.code(), hal::ErrorCode::InvalidArgument);
  EXPECT_NE(std::string(e.what()).find("file descriptor"), std::string::npos) << e.what();
}

}  // namespace
