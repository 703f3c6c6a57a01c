// Core-internal: the ring of pinned staging buffers of one device, for pageable host memory.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>

#include "hal/device_registry.h"
#include "hal/event.h"
#include "hal/streams.h"

namespace hal {

class StagingRing {
 public:
  // Chunks large enough that the copy threads and the DMA engine each work on big pieces, and enough
  // buffers that the host fills (H2D) or empties (D2H) one while the device moves the others.
  static constexpr size_t kBuffers = 4;
  static constexpr size_t kChunkBytes = size_t{16} << 20;

  explicit StagingRing(int device);

  // Both return once the host side is done with: `src` may be reused (H2D) / `dst` holds the data (D2H).
  // The device side is ordered on `stream`.
  void host_to_device(void* dst, const void* src, size_t nbytes, StreamId stream);
  void device_to_host(void* dst, const void* src, size_t nbytes, StreamId stream);

 private:
  // One pinned buffer (RAII) and the event of its last transfer: reused only when that finished.
  class Buffer {
   public:
    Buffer() = default;
    ~Buffer();
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    void* data(const Device& device);  // allocated on first use
    Event done;

   private:
    const Device* device_ = nullptr;
    void* ptr_ = nullptr;
  };

  // The next buffer of the ring, once its previous transfer completed.
  Buffer& acquire();

  const Device& device_;
  std::mutex mutex_;  // one pageable copy at a time per device uses the ring
  std::array<Buffer, kBuffers> buffers_;
  size_t next_ = 0;
};

}  // namespace hal
