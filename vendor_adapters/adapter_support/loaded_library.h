// A vendor library loaded with dlopen whose entry points an adapter keeps in a struct of function pointers,
// filled by name: how the GPU adapters reach the HIP runtime, rocBLAS, hipBLASLt, cuBLAS, cuBLASLt and cuDNN
// without their headers at build time, and still load (reporting themselves unavailable) where they are absent.
// Header-only: the adapters include it by relative path ("../adapter_support/loaded_library.h"), so that the
// AMD adapter's test libraries over CUDA, which compile nvidia/cublas_library.cpp, need no include folder.
//
// A library's table is declared once, as a list of its entry points, one line each: the member, its function
// type, its symbol (and, optionally, an older name tried when the symbol is absent):
//
//   #define HAL_ROCBLAS_ENTRY_POINTS(X)  (each line but the last ending in a backslash)
//     X(create_handle, rocblas_status(rocblas_handle*), "rocblas_create_handle")
//     ...
//   struct RocblasApi {
//     HAL_ENTRY_POINT_TABLE(HAL_ROCBLAS_ENTRY_POINTS)   // the members, and resolve() that fills them
//   };
#pragma once

#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace hal_support {

// A member of an entry-point table: a pointer to the function type the list names.
template <class Fn>
using EntryPoint = Fn*;

// Fills entry points from one library by name, keeping the first one it lacks.
class SymbolResolver {
 public:
  explicit SymbolResolver(void* library) : library_(library) {}

  template <class Fn>
  void operator()(Fn*& slot, const std::string& name, const char* older_name = nullptr) {
    void* symbol = dlsym(library_, name.c_str());
    if (!symbol && older_name) symbol = dlsym(library_, older_name);
    slot = reinterpret_cast<Fn*>(symbol);
    if (!symbol && missing_.empty()) missing_ = name;
  }

  bool complete() const { return missing_.empty(); }
  const std::string& first_missing() const { return missing_; }

 private:
  void* library_;
  std::string missing_;
};

#define HAL_ENTRY_POINT_MEMBER(member, type, ...) ::hal_support::EntryPoint<type> member;
#define HAL_ENTRY_POINT_RESOLVE(member, type, ...) resolver(member, __VA_ARGS__);
// In a struct: a member per entry point of LIST, and resolve(), which fills them from a library.
#define HAL_ENTRY_POINT_TABLE(LIST) \
  LIST(HAL_ENTRY_POINT_MEMBER)      \
  void resolve(::hal_support::SymbolResolver& resolver) { LIST(HAL_ENTRY_POINT_RESOLVE) }

// What the search for a library found: its table, or why there is none. Kept by the caller in a
// function-local static (searched once per process, thread-safe); the library is never closed, since
// handles, kernels and memory made from it may live until the process ends.
template <class Api>
struct LoadedLibrary {
  Api api{};
  bool ok = false;
  std::string why;  // what was tried and how to fix it, when !ok

  // The table, or nullptr with the reason in *why_not (when given).
  const Api* get(std::string* why_not) const {
    if (ok) return &api;
    if (why_not) *why_not = why;
    return nullptr;
  }
};

// Fills `api` from `library`: true when every entry point was found, else `missing` names the first absent.
template <class Api>
bool resolve_entry_points(void* library, Api& api, std::string* missing) {
  api = Api{};
  SymbolResolver resolver(library);
  api.resolve(resolver);
  if (missing) *missing = resolver.first_missing();
  return resolver.complete();
}

// The first of `sonames` (newest first) that dlopen finds, its table filled. `not_found`: the reason when none
// is found; when the one found lacks an entry point: "the <what> found lacks <symbol>: <upgrade>".
template <class Api>
LoadedLibrary<Api> load_library(std::initializer_list<const char*> sonames, const char* not_found, const char* what,
                                const char* upgrade) {
  LoadedLibrary<Api> out;
  void* library = nullptr;
  for (const char* name : sonames) {
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  }
  std::string missing;
  if (!library) {
    out.why = not_found;
  } else if (!resolve_entry_points(library, out.api, &missing)) {
    out.why = std::string("the ") + what + " found lacks " + missing + ": " + upgrade;
  } else {
    out.ok = true;
  }
  return out;
}

}  // namespace hal_support
