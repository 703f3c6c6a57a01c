// Core-internal: memcpy spread over a small pool of host threads.
//
// One thread copies pageable memory at 8-12 GB/s on server CPUs, and into freshly allocated pages (the
// `.cpu()` of a large tensor) slower still, since every first touch faults. The staging ring's transfers
// run at the DMA engine's speed (tens of GB/s) only when its host-side copies keep up, so they are cut
// into pieces that several threads copy at once.
#pragma once

#include <cstddef>

namespace hal {

// Copies like std::memcpy; large copies are split across the pool (the calling thread takes a share).
// The thread count is TORCH_HAL_COPY_THREADS when set, else half the hardware threads, at most 8.
void parallel_memcpy(void* dst, const void* src, size_t nbytes);

// The pool's thread count: TORCH_HAL_COPY_THREADS (1 to 64) when set, else half the hardware threads, at
// most 8. Throws hal::Error(BadConfig) for a value that is not such a number.
int copy_thread_count();

}  // namespace hal
