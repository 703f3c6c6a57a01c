// Ownership of Level Zero handles: each is destroyed exactly once, by the entry point that the loaded
// runtime gave for its kind (zeContextDestroy, zeCommandListDestroy, ...), when its owner goes.
#pragma once

#include <level_zero/ze_api.h>

#include <utility>

namespace hal_level_zero {

template <typename Handle>
class Owned {
 public:
  using Destroy = ze_result_t (*)(Handle);

  Owned() = default;
  Owned(Handle handle, Destroy destroy) : handle_(handle), destroy_(destroy) {}
  ~Owned() { reset(); }
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)), destroy_(other.destroy_) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
      destroy_ = other.destroy_;
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  void reset() {
    if (handle_ != nullptr) destroy_(handle_);
    handle_ = nullptr;
  }

 private:
  Handle handle_ = nullptr;
  Destroy destroy_ = nullptr;
};

using Context = Owned<ze_context_handle_t>;
using CommandList = Owned<ze_command_list_handle_t>;
using EventPool = Owned<ze_event_pool_handle_t>;
using Event = Owned<ze_event_handle_t>;
using Module = Owned<ze_module_handle_t>;
using Kernel = Owned<ze_kernel_handle_t>;
using BuildLog = Owned<ze_module_build_log_handle_t>;

// Memory of zeMemAllocHost or zeMemAllocDevice, freed with zeMemFree in its context.
class Memory {
 public:
  using Free = ze_result_t (*)(ze_context_handle_t, void*);

  Memory() = default;
  Memory(ze_context_handle_t context, void* ptr, Free free) : context_(context), ptr_(ptr), free_(free) {}
  ~Memory() { reset(); }
  Memory(Memory&& other) noexcept
      : context_(other.context_), ptr_(std::exchange(other.ptr_, nullptr)), free_(other.free_) {}
  Memory& operator=(Memory&& other) noexcept {
    if (this != &other) {
      reset();
      context_ = other.context_;
      ptr_ = std::exchange(other.ptr_, nullptr);
      free_ = other.free_;
    }
    return *this;
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  void* get() const { return ptr_; }
  void reset() {
    if (ptr_ != nullptr) free_(context_, ptr_);
    ptr_ = nullptr;
  }

 private:
  ze_context_handle_t context_ = nullptr;
  void* ptr_ = nullptr;
  Free free_ = nullptr;
};

}  // namespace hal_level_zero
