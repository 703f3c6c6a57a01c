#include "nccl_collectives.h"

#include <cstring>
#include <string>

#include "adapter_state.h"
#include "cuda_library_search.h"
#include "cuda_status.h"
#include "current_device.h"
#include "nccl_api.h"

namespace hal_nvidia {

namespace nccl {

const Api* api(std::string* why) {
  struct Loaded {
    Api api{};
    bool ok = false;
    std::string tried;
  };
  static const Loaded loaded = [] {
    Loaded l;
    Api& a = l.api;
    l.ok = open_cuda_library({"libnccl.so.2"}, "NCCL", [&a](void* library) {
      return resolve_symbol(library, "ncclGetVersion", nullptr, &a.get_version) &&
             resolve_symbol(library, "ncclGetUniqueId", nullptr, &a.get_unique_id) &&
             resolve_symbol(library, "ncclCommInitRank", nullptr, &a.comm_init_rank) &&
             resolve_symbol(library, "ncclCommDestroy", nullptr, &a.comm_destroy) &&
             resolve_symbol(library, "ncclCommAbort", nullptr, &a.comm_abort) &&
             resolve_symbol(library, "ncclCommGetAsyncError", nullptr, &a.comm_get_async_error) &&
             resolve_symbol(library, "ncclGetErrorString", nullptr, &a.get_error_string) &&
             resolve_symbol(library, "ncclAllReduce", nullptr, &a.all_reduce) &&
             resolve_symbol(library, "ncclBroadcast", nullptr, &a.broadcast) &&
             resolve_symbol(library, "ncclReduce", nullptr, &a.reduce) &&
             resolve_symbol(library, "ncclAllGather", nullptr, &a.all_gather) &&
             resolve_symbol(library, "ncclReduceScatter", nullptr, &a.reduce_scatter) &&
             resolve_symbol(library, "ncclSend", nullptr, &a.send) &&
             resolve_symbol(library, "ncclRecv", nullptr, &a.recv) &&
             resolve_symbol(library, "ncclGroupStart", nullptr, &a.group_start) &&
             resolve_symbol(library, "ncclGroupEnd", nullptr, &a.group_end) &&
             (resolve_symbol(library, "ncclGetLastError", nullptr, &a.get_last_error), true);
    }, &l.tried) != nullptr;
    if (l.ok) a.get_version(&a.version);
    return l;
  }();
  if (!loaded.ok) {
    if (why) *why = "NCCL (libnccl.so.2) was not found: install it (e.g. pip install nvidia-nccl-cu12, or the "
                    "CUDA toolkit's libnccl2 package) or put its folder in LD_LIBRARY_PATH. Tried: " + loaded.tried;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace nccl

namespace {

using namespace nccl;

// A communicator and the device it was made for (NCCL's calls take a stream, the ABI's a hal stream).
struct Comm {
  ncclComm_t comm;
  int32_t device;
};

Comm* comm_of(hal_comm_t c) { return reinterpret_cast<Comm*>(c); }

const Api& loaded() { return *api(nullptr); }

hal_status_t nccl_fail(ncclResult_t r, const char* what, ncclComm_t comm = nullptr) {
  const Api& a = loaded();
  std::string message = std::string(what) + ": NCCL error " + std::to_string(r) + " (" + a.get_error_string(r) + ")";
  if (comm && a.get_last_error) {
    const char* detail = a.get_last_error(comm);
    if (detail && *detail) message += ": " + std::string(detail);
  }
  return fail(r == ncclInvalidArgument || r == ncclInvalidUsage ? HAL_STATUS_INVALID_ARGUMENT
                                                                  : HAL_STATUS_DEVICE_ERROR,
              message);
}

hal_status_t nccl_check(ncclResult_t r, const char* what, ncclComm_t comm = nullptr) {
  return r == ncclSuccess ? HAL_STATUS_SUCCESS : nccl_fail(r, what, comm);
}

bool dtype_of(hal_dtype_t t, ncclDataType_t* out) {
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

// The common prologue of every operation: the NCCL dtype and the CUDA stream, or the failure.
hal_status_t prepare(hal_comm_t c, hal_dtype_t dtype, hal_stream_t stream, ncclDataType_t* t, cudaStream_t* s) {
  if (!dtype_of(dtype, t)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "NCCL has no type for this dtype (code " + std::to_string(dtype.code) +
                                              ", " + std::to_string(dtype.bits) + " bits)");
  }
  if (hal_status_t st = use_device(comm_of(c)->device); st != HAL_STATUS_SUCCESS) return st;
  return resolve_stream(comm_of(c)->device, stream, s);
}

const char* engine_name() noexcept {
  static const std::string name = [] {
    const Api* a = api(nullptr);
    if (!a) return std::string("NCCL (not loaded)");
    return "NCCL " + std::to_string(a->version / 10000) + "." + std::to_string(a->version / 100 % 100) + "." +
           std::to_string(a->version % 100);
  }();
  return name.c_str();
}

hal_status_t available(int32_t) {
  std::string why;
  return api(&why) ? HAL_STATUS_SUCCESS : fail(HAL_STATUS_UNAVAILABLE, why);
}

hal_status_t get_unique_id(int32_t device, hal_comm_unique_id_t* id) {
  static_assert(sizeof(ncclUniqueId) == sizeof(id->bytes), "NCCL's unique id is 128 bytes");
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  ncclUniqueId nid;
  if (hal_status_t st = nccl_check(loaded().get_unique_id(&nid), "ncclGetUniqueId"); st != HAL_STATUS_SUCCESS) {
    return st;
  }
  std::memcpy(id->bytes, nid.internal, sizeof(nid.internal));
  return HAL_STATUS_SUCCESS;
}

hal_status_t comm_init_rank(int32_t device, const hal_comm_unique_id_t* id, int32_t nranks, int32_t rank,
                            hal_comm_t* out) {
  if (hal_status_t st = use_device(device); st != HAL_STATUS_SUCCESS) return st;
  ncclUniqueId nid;
  std::memcpy(nid.internal, id->bytes, sizeof(nid.internal));
  ncclComm_t comm = nullptr;
  if (hal_status_t st = nccl_check(loaded().comm_init_rank(&comm, nranks, nid, rank), "ncclCommInitRank");
      st != HAL_STATUS_SUCCESS) {
    return st;
  }
  *out = reinterpret_cast<hal_comm_t>(new Comm{comm, device});
  return HAL_STATUS_SUCCESS;
}

hal_status_t comm_destroy(hal_comm_t c) {
  const hal_status_t st = nccl_check(loaded().comm_destroy(comm_of(c)->comm), "ncclCommDestroy");
  delete comm_of(c);
  return st;
}

hal_status_t comm_abort(hal_comm_t c) {
  const hal_status_t st = nccl_check(loaded().comm_abort(comm_of(c)->comm), "ncclCommAbort");
  delete comm_of(c);
  return st;
}

hal_status_t comm_get_async_error(hal_comm_t c) {
  ncclResult_t async = ncclSuccess;
  if (hal_status_t st = nccl_check(loaded().comm_get_async_error(comm_of(c)->comm, &async), "ncclCommGetAsyncError");
      st != HAL_STATUS_SUCCESS) {
    return st;
  }
  if (async == ncclInProgress) return HAL_STATUS_NOT_READY;
  return nccl_check(async, "NCCL (asynchronous error)", comm_of(c)->comm);
}

hal_status_t all_reduce(hal_comm_t c, const void* send, void* recv, uint64_t count, hal_dtype_t dtype,
                        hal_reduce_op_t op, hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(loaded().all_reduce(send, recv, count, t, static_cast<ncclRedOp_t>(op), comm_of(c)->comm, s),
                    "ncclAllReduce", comm_of(c)->comm);
}

hal_status_t broadcast(hal_comm_t c, const void* send, void* recv, uint64_t count, hal_dtype_t dtype, int32_t root,
                       hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(loaded().broadcast(send, recv, count, t, root, comm_of(c)->comm, s), "ncclBroadcast",
                    comm_of(c)->comm);
}

hal_status_t reduce(hal_comm_t c, const void* send, void* recv, uint64_t count, hal_dtype_t dtype, hal_reduce_op_t op,
                    int32_t root, hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(loaded().reduce(send, recv, count, t, static_cast<ncclRedOp_t>(op), root, comm_of(c)->comm, s),
                    "ncclReduce", comm_of(c)->comm);
}

hal_status_t all_gather(hal_comm_t c, const void* send, void* recv, uint64_t send_count, hal_dtype_t dtype,
                        hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(loaded().all_gather(send, recv, send_count, t, comm_of(c)->comm, s), "ncclAllGather",
                    comm_of(c)->comm);
}

hal_status_t reduce_scatter(hal_comm_t c, const void* send, void* recv, uint64_t recv_count, hal_dtype_t dtype,
                            hal_reduce_op_t op, hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(
      loaded().reduce_scatter(send, recv, recv_count, t, static_cast<ncclRedOp_t>(op), comm_of(c)->comm, s),
      "ncclReduceScatter", comm_of(c)->comm);
}

hal_status_t send(hal_comm_t c, const void* buf, uint64_t count, hal_dtype_t dtype, int32_t peer, hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(loaded().send(buf, count, t, peer, comm_of(c)->comm, s), "ncclSend", comm_of(c)->comm);
}

hal_status_t recv(hal_comm_t c, void* buf, uint64_t count, hal_dtype_t dtype, int32_t peer, hal_stream_t stream) {
  ncclDataType_t t;
  cudaStream_t s;
  if (hal_status_t st = prepare(c, dtype, stream, &t, &s); st != HAL_STATUS_SUCCESS) return st;
  return nccl_check(loaded().recv(buf, count, t, peer, comm_of(c)->comm, s), "ncclRecv", comm_of(c)->comm);
}

hal_status_t group_start() { return nccl_check(loaded().group_start(), "ncclGroupStart"); }
hal_status_t group_end() { return nccl_check(loaded().group_end(), "ncclGroupEnd"); }

template <auto Fn>
struct Guarded;
template <typename... Args, hal_status_t (*Fn)(Args...)>
struct Guarded<Fn> {
  static hal_status_t call(Args... args) noexcept {
    return guarded("NVIDIA adapter (NCCL)", [&] { return Fn(args...); });
  }
};

}  // namespace

const hal_collectives_t* nccl_collectives() {
  static const hal_collectives_t table = [] {
    hal_collectives_t c{};
    c.struct_size = sizeof(hal_collectives_t);
    c.engine_name = engine_name;
    c.available = Guarded<available>::call;
    c.get_unique_id = Guarded<get_unique_id>::call;
    c.comm_init_rank = Guarded<comm_init_rank>::call;
    c.comm_destroy = Guarded<comm_destroy>::call;
    c.comm_abort = Guarded<comm_abort>::call;
    c.comm_get_async_error = Guarded<comm_get_async_error>::call;
    c.all_reduce = Guarded<all_reduce>::call;
    c.broadcast = Guarded<broadcast>::call;
    c.reduce = Guarded<reduce>::call;
    c.all_gather = Guarded<all_gather>::call;
    c.reduce_scatter = Guarded<reduce_scatter>::call;
    c.send = Guarded<send>::call;
    c.recv = Guarded<recv>::call;
    c.group_start = Guarded<group_start>::call;
    c.group_end = Guarded<group_end>::call;
    return c;
  }();
  return &table;
}

}  // namespace hal_nvidia
