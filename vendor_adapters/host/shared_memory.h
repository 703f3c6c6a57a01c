// The host device's memory: regions that another process can map too, which is what lets torch_hal share a
// hal tensor with another process (adapter.h's ipc_* functions) as torch.cuda shares a CUDA tensor.
//
// A region is a memory file (memfd_create) mapped shared. Its descriptor stays open with the region: it is
// the handle (the receiving process gets a duplicate by descriptor passing, as PyTorch's CPU tensors travel
// with the file_descriptor sharing strategy), and a memory file, unlike a named shared-memory object, goes
// away with its last mapping, so memory cannot outlive a process that crashed. Where no descriptor is left
// (the open-files limit, `ulimit -n`), a region is anonymous memory: the same in every other respect, but
// not shareable (ipc_export answers NOT_SUPPORTED, and torch_hal then sends such tensors by value).
//
// The price: a memory file's pages are first touched more slowly than anonymous memory's (64 MiB: 160 ms
// against 105 ms on the 2-core development machine, where anonymous memory may get transparent huge pages and
// shared memory does not). The caching allocator keeps segments, so this is paid once per segment, not per
// tensor; once touched, the memory is the same RAM at the same speed.
#pragma once

#include <cstdint>
#include <memory>

namespace host_adapter {

class Region {
 public:
  // `size` bytes of zeroed memory; nullptr when the system has none left.
  static std::unique_ptr<Region> allocate(uint64_t size);
  // Maps `size` bytes of a region another process exported, through `fd` (not taken over: the caller keeps
  // and closes it). nullptr when it cannot be mapped (errno says why).
  static std::unique_ptr<Region> map_exported(int fd, uint64_t size);

  ~Region();  // unmaps, and closes the descriptor it owns
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  void* data() const { return data_; }
  // The descriptor that names this region to other processes, -1 when it cannot be shared.
  int fd() const { return fd_; }
  // 16 bytes that identify the memory file system-wide while it exists (device and inode numbers):
  // equal identities are the same memory, whichever process or descriptor they came from. False when the
  // region is not shareable.
  bool identity(uint8_t out[16]) const;

 private:
  Region(void* data, uint64_t size, int fd) : data_(data), size_(size), fd_(fd) {}
  void* data_;
  uint64_t size_;
  int fd_;  // owned; -1 for anonymous memory and for mappings of other processes' regions
};

}  // namespace host_adapter
