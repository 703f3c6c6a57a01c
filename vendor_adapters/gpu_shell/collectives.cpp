// hal_collectives_t (adapter.h, ABI 1.3) over a library of NCCL's API: NCCL for the NVIDIA adapter
// (libnccl.so.2), RCCL for the AMD adapter (librccl.so.1), which keeps NCCL's names and types with HIP's
// stream. Written once here, over what the adapter's runtime_traits.h gives:
//
//   struct Runtime {
//     using Stream = cudaStream_t;                   // the runtime's stream type
//     static hal_status_t use_device(int32_t device);
//     static hal_status_t stream_of(int32_t device, hal_stream_t stream, Stream* out);
//     static hal_status_t fail(hal_status_t status, const std::string& message);
//   };
//   struct CollectiveLibrary {
//     static constexpr const char* kName = "NCCL";      // for messages and engine_name()
//     static constexpr const char* kBoundary = "NVIDIA adapter (NCCL)";  // guarded()'s prefix of exceptions
//     static void* open_library(std::string* why);   // dlopen (what is already loaded first); why on failure
//   };
//
// The library's entry points are declared here (its API has been stable since NCCL 2.7), so neither
// adapter needs its headers to build.
#include "collectives.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "abi_boundary.h"
#include "runtime_traits.h"
#include "torch_hal/adapter.h"

namespace hal_nccl_family {

typedef struct ncclComm* ncclComm_t;
struct ncclUniqueId {
  char internal[128];
};
enum ncclResult_t {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
};
enum ncclRedOp_t { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 };
enum ncclDataType_t {
  ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4, ncclUint64 = 5,
  ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9
};
static_assert(sizeof(ncclUniqueId) == HAL_COMM_UNIQUE_ID_BYTES, "NCCL's unique id is 128 bytes");

template <class Stream>
struct Api {
  ncclResult_t (*get_version)(int* version) = nullptr;
  ncclResult_t (*get_unique_id)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*comm_init_rank)(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) = nullptr;
  ncclResult_t (*comm_destroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*comm_abort)(ncclComm_t comm) = nullptr;
  ncclResult_t (*comm_get_async_error)(ncclComm_t comm, ncclResult_t* error) = nullptr;
  const char* (*get_error_string)(ncclResult_t result) = nullptr;
  const char* (*get_last_error)(ncclComm_t comm) = nullptr;  // 2.13+; optional
  ncclResult_t (*all_reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, Stream) = nullptr;
  ncclResult_t (*broadcast)(const void*, void*, size_t, ncclDataType_t, int root, ncclComm_t, Stream) = nullptr;
  ncclResult_t (*reduce)(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, int root, ncclComm_t,
                         Stream) = nullptr;
  ncclResult_t (*all_gather)(const void*, void*, size_t send_count, ncclDataType_t, ncclComm_t, Stream) = nullptr;
  ncclResult_t (*reduce_scatter)(const void*, void*, size_t recv_count, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                 Stream) = nullptr;
  ncclResult_t (*send)(const void*, size_t, ncclDataType_t, int peer, ncclComm_t, Stream) = nullptr;
  ncclResult_t (*recv)(void*, size_t, ncclDataType_t, int peer, ncclComm_t, Stream) = nullptr;
  ncclResult_t (*group_start)() = nullptr;
  ncclResult_t (*group_end)() = nullptr;
  int version = 0;
};

template <class Fn>
bool resolve(void* library, const char* name, Fn* slot) {
  *slot = reinterpret_cast<Fn>(dlsym(library, name));
  return *slot != nullptr;
}

// Every entry point of `library`, or false.
template <class Stream>
bool resolve_all(void* library, Api<Stream>& a) {
  return resolve(library, "ncclGetVersion", &a.get_version) && resolve(library, "ncclGetUniqueId", &a.get_unique_id) &&
         resolve(library, "ncclCommInitRank", &a.comm_init_rank) &&
         resolve(library, "ncclCommDestroy", &a.comm_destroy) && resolve(library, "ncclCommAbort", &a.comm_abort) &&
         resolve(library, "ncclCommGetAsyncError", &a.comm_get_async_error) &&
         resolve(library, "ncclGetErrorString", &a.get_error_string) &&
         resolve(library, "ncclAllReduce", &a.all_reduce) && resolve(library, "ncclBroadcast", &a.broadcast) &&
         resolve(library, "ncclReduce", &a.reduce) && resolve(library, "ncclAllGather", &a.all_gather) &&
         resolve(library, "ncclReduceScatter", &a.reduce_scatter) && resolve(library, "ncclSend", &a.send) &&
         resolve(library, "ncclRecv", &a.recv) && resolve(library, "ncclGroupStart", &a.group_start) &&
         resolve(library, "ncclGroupEnd", &a.group_end) &&
         (resolve(library, "ncclGetLastError", &a.get_last_error), true);
}

inline bool dtype_of(hal_dtype_t t, ncclDataType_t* out) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case HAL_DTYPE_FLOAT:
      if (t.bits == 16) *out = ncclFloat16;
      else if (t.bits == 32) *out = ncclFloat32;
      else if (t.bits == 64) *out = ncclFloat64;
      else return false;
      return true;
    case HAL_DTYPE_BFLOAT:
      if (t.bits != 16) return false;
      *out = ncclBfloat16;
      return true;
    case HAL_DTYPE_INT:
      if (t.bits == 8) *out = ncclInt8;
      else if (t.bits == 32) *out = ncclInt32;
      else if (t.bits == 64) *out = ncclInt64;
      else return false;
      return true;
    case HAL_DTYPE_UINT:
    case HAL_DTYPE_BOOL:
      if (t.bits != 8) return false;
      *out = ncclUint8;
      return true;
    default: return false;
  }
}

template <class Platform>
class Collectives {
 public:
  using Stream = typename Platform::Stream;

  static const hal_collectives_t* table() {
    static const hal_collectives_t t = [] {
      hal_collectives_t c{};
      c.struct_size = sizeof(hal_collectives_t);
      c.engine_name = engine_name;
      c.available = [](int32_t d) noexcept { return Platform::guarded([&] { return available(d); }); };
      c.get_unique_id = [](int32_t d, hal_comm_unique_id_t* id) noexcept {
        return Platform::guarded([&] { return get_unique_id(d, id); });
      };
      c.comm_init_rank = [](int32_t d, const hal_comm_unique_id_t* id, int32_t n, int32_t r, hal_comm_t* out) noexcept {
        return Platform::guarded([&] { return comm_init_rank(d, id, n, r, out); });
      };
      c.comm_destroy = [](hal_comm_t comm) noexcept { return Platform::guarded([&] { return finish(comm, false); }); };
      c.comm_abort = [](hal_comm_t comm) noexcept { return Platform::guarded([&] { return finish(comm, true); }); };
      c.comm_get_async_error = [](hal_comm_t comm) noexcept {
        return Platform::guarded([&] { return async_error(comm); });
      };
      c.all_reduce = [](hal_comm_t comm, const void* s, void* r, uint64_t n, hal_dtype_t t, hal_reduce_op_t op,
                        hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclAllReduce", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().all_reduce(s, r, n, dt, static_cast<ncclRedOp_t>(op), nc, x);
        });
      };
      c.broadcast = [](hal_comm_t comm, const void* s, void* r, uint64_t n, hal_dtype_t t, int32_t root,
                       hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclBroadcast", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().broadcast(s, r, n, dt, root, nc, x);
        });
      };
      c.reduce = [](hal_comm_t comm, const void* s, void* r, uint64_t n, hal_dtype_t t, hal_reduce_op_t op,
                    int32_t root, hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclReduce", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().reduce(s, r, n, dt, static_cast<ncclRedOp_t>(op), root, nc, x);
        });
      };
      c.all_gather = [](hal_comm_t comm, const void* s, void* r, uint64_t n, hal_dtype_t t, hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclAllGather", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().all_gather(s, r, n, dt, nc, x);
        });
      };
      c.reduce_scatter = [](hal_comm_t comm, const void* s, void* r, uint64_t n, hal_dtype_t t, hal_reduce_op_t op,
                            hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclReduceScatter", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().reduce_scatter(s, r, n, dt, static_cast<ncclRedOp_t>(op), nc, x);
        });
      };
      c.send = [](hal_comm_t comm, const void* b, uint64_t n, hal_dtype_t t, int32_t peer, hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclSend", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().send(b, n, dt, peer, nc, x);
        });
      };
      c.recv = [](hal_comm_t comm, void* b, uint64_t n, hal_dtype_t t, int32_t peer, hal_stream_t st) noexcept {
        return launch(comm, t, st, "ncclRecv", [&](ncclComm_t nc, ncclDataType_t dt, Stream x) {
          return api().recv(b, n, dt, peer, nc, x);
        });
      };
      c.group_start = []() noexcept {
        return Platform::guarded([] { return check(api().group_start(), "ncclGroupStart", nullptr); });
      };
      c.group_end = []() noexcept {
        return Platform::guarded([] { return check(api().group_end(), "ncclGroupEnd", nullptr); });
      };
      return c;
    }();
    return &t;
  }

 private:
  // A communicator and its device (the library's calls take a runtime stream, the ABI's a hal stream).
  struct Comm {
    ncclComm_t comm;
    int32_t device;
  };
  static Comm* comm_of(hal_comm_t c) { return reinterpret_cast<Comm*>(c); }

  struct Loaded {
    Api<Stream> api;
    bool ok = false;
    std::string why;
  };
  static const Loaded& loaded() {
    static const Loaded l = [] {
      Loaded r;
      void* library = Platform::open_library(&r.why);
      if (library && resolve_all(library, r.api)) {
        r.ok = true;
        r.api.get_version(&r.api.version);
      } else if (library) {
        r.why = std::string(Platform::kName) + " was found but lacks an entry point torch_hal needs: update it";
      }
      return r;
    }();
    return l;
  }
  static const Api<Stream>& api() { return loaded().api; }

  static hal_status_t check(ncclResult_t r, const char* what, ncclComm_t comm) {
    if (r == ncclSuccess) return HAL_STATUS_SUCCESS;
    std::string message = std::string(what) + ": " + Platform::kName + " error " + std::to_string(r) + " (" +
                          api().get_error_string(r) + ")";
    if (comm && api().get_last_error) {
      const char* detail = api().get_last_error(comm);
      if (detail && *detail) message += ": " + std::string(detail);
    }
    return Platform::fail(
        r == ncclInvalidArgument || r == ncclInvalidUsage ? HAL_STATUS_INVALID_ARGUMENT : HAL_STATUS_DEVICE_ERROR,
        message);
  }

  template <class Call>
  static hal_status_t launch(hal_comm_t c, hal_dtype_t dtype, hal_stream_t stream, const char* what, Call&& call) {
    return Platform::guarded([&]() -> hal_status_t {
      ncclDataType_t t;
      if (!dtype_of(dtype, &t)) {
        return Platform::fail(HAL_STATUS_NOT_SUPPORTED, std::string(Platform::kName) + " has no type for dtype code " +
                                                            std::to_string(dtype.code) + ", " +
                                                            std::to_string(dtype.bits) + " bits");
      }
      if (hal_status_t st = Platform::use_device(comm_of(c)->device); st != HAL_STATUS_SUCCESS) return st;
      Stream s{};
      if (hal_status_t st = Platform::stream_of(comm_of(c)->device, stream, &s); st != HAL_STATUS_SUCCESS) return st;
      return check(call(comm_of(c)->comm, t, s), what, comm_of(c)->comm);
    });
  }

  static const char* engine_name() noexcept {
    static const std::string name = [] {
      if (!loaded().ok) return std::string(Platform::kName) + " (not loaded)";
      const int v = loaded().api.version;
      // 2.9+ encodes major * 10000 + minor * 100 + patch; older ones major * 1000 + minor * 100 + patch.
      const int major = v >= 10000 ? v / 10000 : v / 1000;
      const int minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
      return std::string(Platform::kName) + " " + std::to_string(major) + "." + std::to_string(minor) + "." +
             std::to_string(v % 100);
    }();
    return name.c_str();
  }

  static hal_status_t available(int32_t) {
    return loaded().ok ? HAL_STATUS_SUCCESS : Platform::fail(HAL_STATUS_UNAVAILABLE, loaded().why);
  }

  static hal_status_t get_unique_id(int32_t device, hal_comm_unique_id_t* id) {
    if (hal_status_t st = available(device); st != HAL_STATUS_SUCCESS) return st;
    if (hal_status_t st = Platform::use_device(device); st != HAL_STATUS_SUCCESS) return st;
    ncclUniqueId nid;
    if (hal_status_t st = check(api().get_unique_id(&nid), "ncclGetUniqueId", nullptr); st != HAL_STATUS_SUCCESS) {
      return st;
    }
    std::memcpy(id->bytes, nid.internal, sizeof(nid.internal));
    return HAL_STATUS_SUCCESS;
  }

  static hal_status_t comm_init_rank(int32_t device, const hal_comm_unique_id_t* id, int32_t nranks, int32_t rank,
                                     hal_comm_t* out) {
    if (hal_status_t st = available(device); st != HAL_STATUS_SUCCESS) return st;
    if (hal_status_t st = Platform::use_device(device); st != HAL_STATUS_SUCCESS) return st;
    ncclUniqueId nid;
    std::memcpy(nid.internal, id->bytes, sizeof(nid.internal));
    ncclComm_t comm = nullptr;
    if (hal_status_t st = check(api().comm_init_rank(&comm, nranks, nid, rank), "ncclCommInitRank", nullptr);
        st != HAL_STATUS_SUCCESS) {
      return st;
    }
    *out = reinterpret_cast<hal_comm_t>(new Comm{comm, device});
    return HAL_STATUS_SUCCESS;
  }

  // Destroys (or aborts) the communicator; the handle is gone either way.
  static hal_status_t finish(hal_comm_t c, bool abort) {
    Comm* comm = comm_of(c);
    const ncclComm_t nc = comm->comm;
    delete comm;
    return abort ? check(api().comm_abort(nc), "ncclCommAbort", nullptr)
                 : check(api().comm_destroy(nc), "ncclCommDestroy", nullptr);
  }

  static hal_status_t async_error(hal_comm_t c) {
    ncclResult_t result = ncclSuccess;
    if (hal_status_t st = check(api().comm_get_async_error(comm_of(c)->comm, &result), "ncclCommGetAsyncError",
                                comm_of(c)->comm);
        st != HAL_STATUS_SUCCESS) {
      return st;
    }
    if (result == ncclInProgress) return HAL_STATUS_NOT_READY;
    return check(result, "asynchronous error", comm_of(c)->comm);
  }
};

}  // namespace hal_nccl_family

namespace hal_gpu_shell {
namespace {

// The Platform of hal_nccl_family::Collectives: the adapter's runtime and library (runtime_traits.h), each
// entry behind adapter_support's guarded().
struct Platform {
  using Stream = Runtime::Stream;
  static constexpr const char* kName = CollectiveLibrary::kName;
  static void* open_library(std::string* why) { return CollectiveLibrary::open_library(why); }
  static hal_status_t use_device(int32_t device) { return Runtime::use_device(device); }
  static hal_status_t stream_of(int32_t device, hal_stream_t stream, Stream* out) {
    return Runtime::stream_of(device, stream, out);
  }
  static hal_status_t fail(hal_status_t status, const std::string& message) { return Runtime::fail(status, message); }
  template <class F>
  static hal_status_t guarded(F&& body) noexcept {
    return hal_abi_boundary::guarded(Runtime::fail, CollectiveLibrary::kBoundary, std::forward<F>(body));
  }
};

}  // namespace

const hal_collectives_t* collectives() { return hal_nccl_family::Collectives<Platform>::table(); }

}  // namespace hal_gpu_shell
