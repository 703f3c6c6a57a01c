// What an in-tree adapter does where its C ABI meets its C++: no exception crosses into the core; a failure
// becomes a status, and its message the one get_last_error() returns on the failing thread. Each adapter library
// compiles abi_boundary.cpp itself, so each has its own thread's message.
#pragma once

#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "torch_hal/adapter.h"

namespace hal_abi_boundary {

// The message get_last_error() returns on this thread. Defined in abi_boundary.cpp, which every adapter compiles
// itself: a function-local static of an inline function would be one object for the whole process (GCC makes it
// a unique symbol), so two adapters, or two copies of one, would write each other's messages and read them after
// the other was unloaded.
std::string& thread_error();

// Keeps `message` as this thread's error and returns `status`.
inline hal_status_t record_failure(hal_status_t status, std::string message) {
  thread_error() = std::move(message);
  return status;
}

// Runs `body` (returning hal_status_t). An exception becomes a status, its message kept through
// `fail(status, message)` (the adapter's own, which may add its name): out of host memory for std::bad_alloc,
// an internal error otherwise.
template <typename Fail, typename Body>
hal_status_t guarded(Fail&& fail, const char* what, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(HAL_STATUS_OUT_OF_HOST_MEMORY, std::string(what) + ": out of host memory");
  } catch (const std::exception& e) {
    return fail(HAL_STATUS_INTERNAL_ERROR, std::string(what) + ": " + e.what());
  } catch (...) {
    return fail(HAL_STATUS_INTERNAL_ERROR, std::string(what) + ": unknown exception");
  }
}

// A function-table entry that runs `Fn` behind guarded(), for tables whose entries are the adapter's plain
// functions: `a.malloc_device = Guarded<Boundary, malloc_device>::call;`, one line per entry. `Boundary` names
// the adapter: `static constexpr const char* kWhat` (the messages' prefix, e.g. "NVIDIA adapter") and
// `static hal_status_t fail(hal_status_t, const std::string&)` (its fail()).
template <class Boundary, auto Fn>
struct Guarded;
template <class Boundary, typename... Args, hal_status_t (*Fn)(Args...)>
struct Guarded<Boundary, Fn> {
  static hal_status_t call(Args... args) noexcept {
    return guarded(Boundary::fail, Boundary::kWhat, [&] { return Fn(args...); });
  }
};

}  // namespace hal_abi_boundary
