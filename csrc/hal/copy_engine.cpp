#include "hal/copy_engine.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "hal/device_activity.h"
#include "hal/device_registry.h"
#include "hal/environment.h"
#include "hal/error.h"
#include "hal/event.h"
#include "per_device.h"
#include "staging_ring.h"

namespace hal {
namespace {

std::atomic<int> g_force_staging{-1};  // -1: TORCH_HAL_FORCE_STAGING not read yet

void check_pointers(const void* dst, const void* src, size_t nbytes, const char* what) {
  if (nbytes > 0 && (!dst || !src)) {
    throw Error(ErrorCode::InvalidArgument, std::string(what) + ": null pointer for a copy of " +
                                                std::to_string(nbytes) + " bytes");
  }
}

// Pageable memory may go straight to the adapter only where the device reads host memory itself.
bool use_direct_path(const Device& d, bool host_side_pinned) {
  return host_side_pinned || (d.host_accessible() && !force_staging());
}

void enqueue_copy(const Device& d, void* dst, const void* src, size_t nbytes, hal_copy_kind_t kind, StreamId stream,
                  const char* what) {
  hal_stream_t s = native_stream(d.index, stream);
  throw_on_failure(d.table(), d.table().memcpy_async(d.local_index, dst, src, nbytes, kind, s), what);
}

// Across adapters (or where peer copies are unsupported): through host memory, in bounded chunks. Each
// side uses its own fastest path to host memory (the staging ring for pageable memory).
void copy_through_host(int dst_device, void* dst, int src_device, const void* src, size_t nbytes, StreamId stream) {
  const size_t chunk = std::min(nbytes, StagingRing::kChunkBytes * StagingRing::kBuffers);
  std::unique_ptr<char[]> bounce(new char[chunk]);
  const StreamId src_stream = current_stream(src_device);
  for (size_t offset = 0; offset < nbytes; offset += chunk) {
    const size_t len = std::min(chunk, nbytes - offset);
    copy_device_to_host(src_device, bounce.get(), static_cast<const char*>(src) + offset, len, src_stream, false, false);
    copy_host_to_device(dst_device, static_cast<char*>(dst) + offset, bounce.get(), len, stream, false, false);
  }
}

}  // namespace

void set_force_staging(bool force) { g_force_staging.store(force ? 1 : 0); }

bool force_staging() {
  int v = g_force_staging.load();
  if (v < 0) {
    v = env_flag("TORCH_HAL_FORCE_STAGING", false) ? 1 : 0;
    int expected = -1;
    g_force_staging.compare_exchange_strong(expected, v);  // a set_force_staging() meanwhile wins
    v = g_force_staging.load();
  }
  return v == 1;
}

void copy_host_to_device(int device, void* dst, const void* src, size_t nbytes, StreamId stream, bool src_is_pinned,
                         bool non_blocking) {
  native_stream(device, stream);  // validates device and stream
  check_pointers(dst, src, nbytes, "copy_host_to_device");
  if (nbytes == 0) return;
  const Device& d = DeviceRegistry::instance().device(device);
  DeviceSpan span = copy_span(device, stream, HAL_COPY_HOST_TO_DEVICE, nbytes, src_is_pinned);
  if (use_direct_path(d, src_is_pinned)) {
    enqueue_copy(d, dst, src, nbytes, HAL_COPY_HOST_TO_DEVICE, stream, "memcpy_async (host to device)");
    span.end();
    // Pageable memory may be reused by the caller as soon as we return, so it cannot be left in flight.
    if (!non_blocking || !src_is_pinned) {
      synchronize_stream(device, stream);
    } else {
      record_pinned_use(src, device, stream);  // the pinned block stays unused until the copy has read it
    }
    return;
  }
  per_device_state<StagingRing>().get(device).host_to_device(dst, src, nbytes, stream);
  span.end();
  if (!non_blocking) synchronize_stream(device, stream);
}

void copy_device_to_host(int device, void* dst, const void* src, size_t nbytes, StreamId stream, bool dst_is_pinned,
                         bool non_blocking) {
  native_stream(device, stream);
  check_pointers(dst, src, nbytes, "copy_device_to_host");
  if (nbytes == 0) return;
  const Device& d = DeviceRegistry::instance().device(device);
  DeviceSpan span = copy_span(device, stream, HAL_COPY_DEVICE_TO_HOST, nbytes, dst_is_pinned);
  if (use_direct_path(d, dst_is_pinned)) {
    enqueue_copy(d, dst, src, nbytes, HAL_COPY_DEVICE_TO_HOST, stream, "memcpy_async (device to host)");
    span.end();
    if (!non_blocking || !dst_is_pinned) {
      synchronize_stream(device, stream);
    } else {
      record_pinned_use(dst, device, stream);
    }
    return;
  }
  // Synchronous by construction: the ring copies the last chunk out after its transfer completed.
  per_device_state<StagingRing>().get(device).device_to_host(dst, src, nbytes, stream);
  span.end();
}

void copy_device_to_device(int dst_device, void* dst, int src_device, const void* src, size_t nbytes, StreamId stream,
                           bool non_blocking) {
  native_stream(dst_device, stream);
  const Device& sd = DeviceRegistry::instance().device(src_device);
  const Device& dd = DeviceRegistry::instance().device(dst_device);
  check_pointers(dst, src, nbytes, "copy_device_to_device");
  if (nbytes == 0) return;

  if (&dd == &sd) {
    DeviceSpan span = copy_span(dst_device, stream, HAL_COPY_DEVICE_TO_DEVICE, nbytes, false);
    enqueue_copy(dd, dst, src, nbytes, HAL_COPY_DEVICE_TO_DEVICE, stream, "memcpy_async (device to device)");
    span.end();
  } else if (dd.adapter == sd.adapter) {
    // The copy runs on the destination's stream: it must see the source device's work issued so far,
    // and the source device must not overwrite `src` before the copy has read it.
    const StreamId src_stream = current_stream(src_device);
    Event src_ready;
    src_ready.record(src_device, src_stream);
    src_ready.block(dst_device, stream);
    const hal_adapter_t& t = dd.table();
    // Dropped (never ended) when the adapter has no peer copy: the copies through host memory time themselves.
    DeviceSpan span = copy_span(dst_device, stream, HAL_COPY_DEVICE_TO_DEVICE, nbytes, false, /*peer=*/true);
    hal_status_t st = t.memcpy_peer_async(dd.local_index, dst, sd.local_index, src, nbytes, native_stream(dst_device, stream));
    if (st == HAL_STATUS_NOT_SUPPORTED) {
      copy_through_host(dst_device, dst, src_device, src, nbytes, stream);
    } else {
      throw_on_failure(t, st, "memcpy_peer_async");
      span.end();
      Event copied;
      copied.record(dst_device, stream);
      copied.block(src_device, src_stream);
    }
  } else {
    copy_through_host(dst_device, dst, src_device, src, nbytes, stream);
  }
  if (!non_blocking) synchronize_stream(dst_device, stream);
}

}  // namespace hal
