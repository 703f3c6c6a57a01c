// The few NCCL entry points the adapter's collectives use, declared here (NCCL's API, stable since 2.7) so
// that the adapter builds without NCCL's headers and loads libnccl.so.2 at run time (nccl_collectives.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace hal_nvidia::nccl {

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

struct Api {
  ncclResult_t (*get_version)(int* version);
  ncclResult_t (*get_unique_id)(ncclUniqueId* id);
  ncclResult_t (*comm_init_rank)(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank);
  ncclResult_t (*comm_destroy)(ncclComm_t comm);
  ncclResult_t (*comm_abort)(ncclComm_t comm);
  ncclResult_t (*comm_get_async_error)(ncclComm_t comm, ncclResult_t* error);
  const char* (*get_error_string)(ncclResult_t result);
  const char* (*get_last_error)(ncclComm_t comm);  // NCCL 2.13+; may be NULL
  ncclResult_t (*all_reduce)(const void* send, void* recv, size_t count, ncclDataType_t dtype, ncclRedOp_t op,
                             ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*broadcast)(const void* send, void* recv, size_t count, ncclDataType_t dtype, int root,
                            ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*reduce)(const void* send, void* recv, size_t count, ncclDataType_t dtype, ncclRedOp_t op, int root,
                         ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*all_gather)(const void* send, void* recv, size_t send_count, ncclDataType_t dtype, ncclComm_t comm,
                             cudaStream_t stream);
  ncclResult_t (*reduce_scatter)(const void* send, void* recv, size_t recv_count, ncclDataType_t dtype,
                                 ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream);
  ncclResult_t (*send)(const void* send, size_t count, ncclDataType_t dtype, int peer, ncclComm_t comm,
                       cudaStream_t stream);
  ncclResult_t (*recv)(void* recv, size_t count, ncclDataType_t dtype, int peer, ncclComm_t comm,
                       cudaStream_t stream);
  ncclResult_t (*group_start)();
  ncclResult_t (*group_end)();
  int version = 0;
};

// libnccl.so.2, loaded once (the one already in the process, e.g. PyTorch's, when there is one); nullptr
// with the reason in `*why` when it is absent or lacks an entry point.
const Api* api(std::string* why);

}  // namespace hal_nvidia::nccl
