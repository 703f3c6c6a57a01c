// Owner of an object made by a dlopen'ed library (a cuBLAS handle, a cuBLASLt or hipBLASLt descriptor): destroyed through
// that library's own destroy entry point, which the owner carries. Destruction ignores the status: it runs
// on cleanup paths where there is no caller left to tell (and a failed destroy only leaks).
#pragma once

#include <memory>

namespace hal_gpu {

template <typename T>
struct DestroyWith {
  int (*destroy)(T*) = nullptr;
  void operator()(T* object) const noexcept {
    if (destroy) (void)destroy(object);
  }
};

template <typename T>
using LibraryHandle = std::unique_ptr<T, DestroyWith<T>>;

}  // namespace hal_gpu
