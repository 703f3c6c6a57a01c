#include "hal/streams.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "hal/device_registry.h"
#include "hal/error.h"
#include "hal/fork_guard.h"
#include "per_device.h"

namespace hal {
namespace {

constexpr size_t kStreamsPerPool = 32;
constexpr int kPriorityLevels = 2;  // 0 (normal) and -1 (high), as torch.cuda's pool

struct DeviceStreams {
  explicit DeviceStreams(int device_index) : device(DeviceRegistry::instance().device(device_index)) {}

  const Device& device;
  std::mutex mutex;
  // Stream id -> adapter handle. Id 0 is the default stream (NULL). Streams are never destroyed, so an
  // id stays valid wherever it was stored.
  std::vector<hal_stream_t> handles{nullptr};
  struct Pool {
    std::array<StreamId, kStreamsPerPool> ids{};  // 0: not created yet
    size_t next = 0;
  };
  std::array<Pool, kPriorityLevels> pools;

  // Called with `mutex` held.
  StreamId create(int priority) {
    hal_stream_t handle = nullptr;
    const hal_adapter_t& t = device.table();
    handles.reserve(handles.size() + 1);  // before the adapter stream exists: push_back below cannot throw
    throw_on_failure(t, t.stream_create(device.local_index, priority, &handle), "stream_create");
    handles.push_back(handle);
    return static_cast<StreamId>(handles.size() - 1);
  }
};

DeviceStreams& streams_of(int device) { return per_device_state<DeviceStreams>().get(device); }

// Each thread's current stream per device: every op and every autograd node reads its slot. The slots live in a
// vector, grown on the slow path, and are read through two plain thread-locals in the initial-exec TLS model: one
// load from the thread pointer each, where a thread-local vector costs an initialization guard and two calls to
// __tls_get_addr. (This library's thread-locals take a few dozen bytes, well within the static TLS that glibc keeps
// for libraries loaded with dlopen.)
thread_local std::vector<StreamId> t_stream_slots;
[[gnu::tls_model("initial-exec")]] thread_local StreamId* t_current_streams = nullptr;
[[gnu::tls_model("initial-exec")]] thread_local size_t t_stream_count = 0;

void grow_stream_slots(size_t count) {
  t_stream_slots.resize(count, kDefaultStreamId);
  t_current_streams = t_stream_slots.data();
  t_stream_count = t_stream_slots.size();
}

// A stream that stream_from_pool or create_stream made (not the default one): out of native_stream's inline path.
[[gnu::noinline]] hal_stream_t created_stream(int device, StreamId id) {
  DeviceStreams& ds = streams_of(device);
  std::lock_guard<std::mutex> lock(ds.mutex);
  if (id < 0 || static_cast<size_t>(id) >= ds.handles.size()) {
    throw Error(ErrorCode::InvalidArgument, "stream " + std::to_string(id) + " does not exist on hal:" +
                                                std::to_string(device) + ": " + std::to_string(ds.handles.size()) +
                                                " streams were created there (ids 0.." +
                                                std::to_string(ds.handles.size() - 1) + ")");
  }
  return ds.handles[id];
}

}  // namespace

hal_stream_t native_stream(int device, StreamId id) {
  check_fork_safety();
  if (id == kDefaultStreamId) {  // every op asks for it: no lock
    DeviceRegistry::instance().device(device);
    return nullptr;
  }
  return created_stream(device, id);
}

StreamId stream_from_pool(int device, int priority) {
  DeviceStreams& ds = streams_of(device);
  const int level = priority < 0 ? 1 : 0;
  std::lock_guard<std::mutex> lock(ds.mutex);
  DeviceStreams::Pool& pool = ds.pools[level];
  StreamId& slot = pool.ids[pool.next++ % kStreamsPerPool];
  if (slot == 0) slot = ds.create(level == 1 ? -1 : 0);
  return slot;
}

StreamId create_stream(int device, int priority) {
  DeviceStreams& ds = streams_of(device);
  std::lock_guard<std::mutex> lock(ds.mutex);
  return ds.create(priority);
}

StreamId current_stream(int device) {
  // Every op and every autograd node asks. The thread's table has a slot for each device that existed when it
  // was first asked, so that an index inside it is valid without asking the registry again.
  if (static_cast<size_t>(device) < t_stream_count) return t_current_streams[device];
  const DeviceRegistry& registry = DeviceRegistry::instance();
  registry.device(device);  // validates
  grow_stream_slots(std::max(t_stream_count, static_cast<size_t>(registry.device_count())));
  return t_current_streams[device];
}

void set_current_stream(int device, StreamId id) {
  native_stream(device, id);  // validates both
  if (static_cast<size_t>(device) >= t_stream_count) grow_stream_slots(static_cast<size_t>(device) + 1);
  t_current_streams[device] = id;
}

void synchronize_stream(int device, StreamId id) {
  hal_stream_t s = native_stream(device, id);
  const Device& d = DeviceRegistry::instance().device(device);
  throw_on_failure(d.table(), d.table().stream_synchronize(d.local_index, s), "stream_synchronize");
}

void* vendor_stream_handle(int device, StreamId id) {
  hal_stream_t s = native_stream(device, id);
  const Device& d = DeviceRegistry::instance().device(device);
  const hal_adapter_t& t = d.table();
  constexpr size_t kEnd = offsetof(hal_adapter_t, stream_native_handle) + sizeof(t.stream_native_handle);
  if (t.struct_size < kEnd || !t.stream_native_handle) return nullptr;
  void* handle = nullptr;
  throw_on_failure(t, t.stream_native_handle(d.local_index, s, &handle), "stream_native_handle");
  return handle;
}

bool query_stream(int device, StreamId id) {
  hal_stream_t s = native_stream(device, id);
  const Device& d = DeviceRegistry::instance().device(device);
  hal_status_t st = d.table().stream_query(d.local_index, s);
  if (st == HAL_STATUS_NOT_READY) return false;
  throw_on_failure(d.table(), st, "stream_query");
  return true;
}

void synchronize_device(int device) {
  // The child of a bad fork has the parent's queues but none of their workers: it would wait forever.
  throw_if_bad_fork();
  const Device& d = DeviceRegistry::instance().device(device);
  throw_on_failure(d.table(), d.table().device_synchronize(d.local_index), "device_synchronize");
}

}  // namespace hal
