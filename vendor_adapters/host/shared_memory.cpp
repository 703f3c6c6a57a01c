#include "shared_memory.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace host_adapter {

std::unique_ptr<Region> Region::allocate(uint64_t size) {
  const int fd = memfd_create("torch_hal_host_device", MFD_CLOEXEC);
  if (fd >= 0) {
    // ftruncate gives a sparse file: its pages are taken on first touch, as anonymous memory's are.
    void* p = ftruncate(fd, static_cast<off_t>(size)) == 0
                  ? mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                  : MAP_FAILED;
    if (p != MAP_FAILED) return std::unique_ptr<Region>(new Region(p, size, fd));
    close(fd);
  }
  // No descriptor (or no memfd in this kernel): memory all the same, but private to this process.
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::unique_ptr<Region>(new Region(p, size, -1));
}

std::unique_ptr<Region> Region::map_exported(int fd, uint64_t size) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return nullptr;
  if (static_cast<uint64_t>(st.st_size) < size) {
    errno = EINVAL;  // not the file that was exported, or it was truncated
    return nullptr;
  }
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return nullptr;
  return std::unique_ptr<Region>(new Region(p, size, -1));
}

Region::~Region() {
  munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
}

bool Region::identity(uint8_t out[16]) const {
  struct stat st {};
  if (fd_ < 0 || fstat(fd_, &st) != 0) return false;
  const uint64_t dev = static_cast<uint64_t>(st.st_dev), ino = static_cast<uint64_t>(st.st_ino);
  std::memcpy(out, &dev, 8);
  std::memcpy(out + 8, &ino, 8);
  return true;
}

}  // namespace host_adapter
