#include "memory.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "adapter_state.h"

namespace hal_level_zero {
namespace {

constexpr size_t kDeviceAlignment = 256;           // what CUDA guarantees, and the core's blocks assume
constexpr size_t kHostAlignment = 4096;
constexpr uint64_t kStagingBytes = 4u << 20;       // pageable copies go through this much at a time

// Pinned memory of this context (other contexts' host memory is not theirs to read).
bool is_pinned(const void* p, uint64_t size, ze_context_handle_t context) {
  std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
  const auto* byte = static_cast<const char*>(p);
  auto it = g_state->pinned.upper_bound(const_cast<void*>(p));
  if (it == g_state->pinned.begin()) return false;
  --it;
  const auto* base = static_cast<const char*>(it->first);
  return it->second.context == context && byte + size <= base + it->second.size;
}

hal_status_t append_copy(Stream& s, void* dst, const void* src, uint64_t size) {
  std::string error;
  return reported(s.append("zeCommandListAppendMemoryCopy",
                           [&](ze_command_list_handle_t list) {
                             return ze().zeCommandListAppendMemoryCopy(list, dst, src, size, nullptr, 0, nullptr);
                           },
                           &error),
                  error);
}

// Fill patterns by value: the pattern's memory stays valid however late the driver reads it.
const unsigned char* byte_pattern(int32_t value) {
  static const auto table = [] {
    std::vector<unsigned char> t(256);
    for (int i = 0; i < 256; ++i) t[i] = static_cast<unsigned char>(i);
    return t;
  }();
  return &table[static_cast<unsigned char>(value)];
}

// Pageable host memory is not the device's to read (only host allocations of its context are), and may be
// reused once the call returns: it goes through the device's staging buffer, a chunk at a time, each waited
// for. The core sends large pageable copies through its own ring of pinned buffers, so this path is rare.
hal_status_t staged_copy(Device& d, Stream& s, void* dst, const void* src, uint64_t size, bool to_device) {
  std::lock_guard<std::mutex> lock(d.staging_mutex);
  if (d.staging.get() == nullptr) {
    ze_host_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    void* p = nullptr;
    if (ze_result_t r = ze().zeMemAllocHost(d.context(), &desc, kStagingBytes, kHostAlignment, &p);
        r != ZE_RESULT_SUCCESS) {
      std::string error;
      return fail(failed("zeMemAllocHost (staging buffer)", r, &error), error);
    }
    d.staging = Memory(d.context(), p, ze().zeMemFree);
  }
  auto* staging = static_cast<char*>(d.staging.get());
  std::string error;
  for (uint64_t done = 0; done < size;) {
    const uint64_t n = std::min(kStagingBytes, size - done);
    if (to_device) std::memcpy(staging, static_cast<const char*>(src) + done, n);
    void* to = to_device ? static_cast<char*>(dst) + done : staging;
    const void* from = to_device ? static_cast<const void*>(staging) : static_cast<const char*>(src) + done;
    if (hal_status_t st = append_copy(s, to, from, n)) return st;
    if (hal_status_t st = s.synchronize(&error)) return fail(st, error);
    if (!to_device) std::memcpy(static_cast<char*>(dst) + done, staging, n);
    done += n;
  }
  return HAL_STATUS_SUCCESS;
}

}  // namespace

// ---- memory ------------------------------------------------------------------------------------

hal_status_t malloc_device(int32_t device, uint64_t size, void** ptr) {
  return guarded("malloc_device", [&]() -> hal_status_t {
    Device& d = dev(device);
    if (size == 0) {
      *ptr = nullptr;
      return HAL_STATUS_SUCCESS;
    }
    ze_device_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    ze_relaxed_allocation_limits_exp_desc_t relaxed{};
    relaxed.stype = ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC;
    relaxed.flags = ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE;
    if (size > d.info.max_alloc_bytes && d.info.relaxed_allocation_limits) desc.pNext = &relaxed;
    void* p = nullptr;
    const ze_result_t r = ze().zeMemAllocDevice(d.context(), &desc, size, kDeviceAlignment, d.info.device, &p);
    if (r != ZE_RESULT_SUCCESS) {
      std::string error;
      const hal_status_t st = failed("zeMemAllocDevice", r, &error);
      return fail(st, error + " for " + std::to_string(size) + " bytes on " + d.info.name + " (" +
                          std::to_string(d.records.allocated_bytes()) + " bytes allocated of " +
                          std::to_string(d.info.memory_bytes) + "; one allocation may have at most " +
                          std::to_string(d.info.max_alloc_bytes) + ")");
    }
    d.records.add_allocation(p, size);  // given back by free_device (../spirv_shell/memory.cpp), or at shutdown
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t release_device_memory(int32_t device, void* ptr) {
  Device& d = dev(device);
  // zeMemFree does not wait for the commands that use the memory: wait for every stream of the device first
  // (the core frees device memory rarely: empty_cache, or to retry an allocation).
  if (hal_status_t st = synchronize_all(d)) return st;
  std::string error;
  if (ze_result_t r = ze().zeMemFree(d.context(), ptr); r != ZE_RESULT_SUCCESS) {
    return fail(failed("zeMemFree", r, &error), error);
  }
  return HAL_STATUS_SUCCESS;
}

// Host memory of the first device's context, which its driver's devices read directly.
hal_status_t malloc_host(uint64_t size, void** ptr) {
  return guarded("malloc_host", [&]() -> hal_status_t {
    ze_context_handle_t context = dev(0).context();
    ze_host_mem_alloc_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
    void* p = nullptr;
    if (ze_result_t r = ze().zeMemAllocHost(context, &desc, size ? size : 1, kHostAlignment, &p);
        r != ZE_RESULT_SUCCESS) {
      std::string error;
      failed("zeMemAllocHost", r, &error);
      return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, error + " for " + std::to_string(size) + " bytes");
    }
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    g_state->pinned.emplace(p, Pinned{size, context});
    *ptr = p;
    return HAL_STATUS_SUCCESS;
  });
}

hal_status_t free_host(void* ptr) {
  Pinned p{};
  {
    std::lock_guard<std::mutex> lock(g_state->pinned_mutex);
    auto it = g_state->pinned.find(ptr);
    if (it == g_state->pinned.end()) return fail(HAL_STATUS_INVALID_ARGUMENT, "free_host: not from malloc_host");
    p = it->second;
    g_state->pinned.erase(it);
  }
  std::string error;
  if (ze_result_t r = ze().zeMemFree(p.context, ptr); r != ZE_RESULT_SUCCESS) {
    return fail(failed("zeMemFree (host)", r, &error), error);
  }
  return HAL_STATUS_SUCCESS;
}

// ---- commands ----------------------------------------------------------------------------------

hal_status_t memset_async(int32_t device, void* ptr, int32_t value, uint64_t size, hal_stream_t stream) {
  if (size == 0) return HAL_STATUS_SUCCESS;
  const unsigned char* pattern = byte_pattern(value);
  std::string error;
  return reported(stream_of(device, stream).append(
                      "zeCommandListAppendMemoryFill",
                      [&](ze_command_list_handle_t list) {
                        return ze().zeCommandListAppendMemoryFill(list, ptr, pattern, 1, size, nullptr, 0, nullptr);
                      },
                      &error),
                  error);
}

hal_status_t memcpy_async(int32_t device, void* dst, const void* src, uint64_t size, hal_copy_kind_t kind,
                          hal_stream_t stream) {
  if (kind != HAL_COPY_HOST_TO_DEVICE && kind != HAL_COPY_DEVICE_TO_HOST && kind != HAL_COPY_DEVICE_TO_DEVICE) {
    return fail(HAL_STATUS_INVALID_ARGUMENT, "memcpy_async: unknown copy kind " + std::to_string(kind));
  }
  if (size == 0) return HAL_STATUS_SUCCESS;
  return guarded("memcpy_async", [&]() -> hal_status_t {
    Device& d = dev(device);
    Stream& s = stream_of(device, stream);
    if (kind == HAL_COPY_HOST_TO_DEVICE && !is_pinned(src, size, d.context())) {
      return staged_copy(d, s, dst, src, size, true);
    }
    if (kind == HAL_COPY_DEVICE_TO_HOST && !is_pinned(dst, size, d.context())) {
      return staged_copy(d, s, dst, src, size, false);
    }
    return append_copy(s, dst, src, size);
  });
}

// Devices of one driver share a context, so one can copy from the other where the driver says it can reach
// its memory. Otherwise the core stages the copy through host memory.
hal_status_t memcpy_peer_async(int32_t dst_device, void* dst, int32_t src_device, const void* src, uint64_t size,
                               hal_stream_t stream) {
  Device& to = dev(dst_device);
  Device& from = dev(src_device);
  if (to.context() != from.context()) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "memcpy_peer_async: the devices belong to different Level Zero drivers");
  }
  ze_bool_t reachable = false;
  if (ze().zeDeviceCanAccessPeer(to.info.device, from.info.device, &reachable) != ZE_RESULT_SUCCESS || !reachable) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "memcpy_peer_async: " + to.info.name + " cannot reach the memory of " +
                                              from.info.name);
  }
  if (size == 0) return HAL_STATUS_SUCCESS;
  return append_copy(stream_of(dst_device, stream), dst, src, size);
}

}  // namespace hal_level_zero
