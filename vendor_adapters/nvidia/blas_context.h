// A device's cuBLAS state: one handle, and one workspace per stream that has run a GEMM.
//
// A cuBLAS handle is not safe to use from two threads at once (its stream and workspace are settings of
// the handle), so a GEMM holds the device's lock from cublasSetStream until its launch has been queued;
// that is microseconds, the GPU work itself runs after the lock is released.
// The workspace is per stream because kernels of one handle running concurrently on two streams must not
// share scratch memory (cuBLAS documents this for cublasSetWorkspace). Streams are pooled by the core, so
// the number of workspaces stays small; they are freed when the adapter shuts down.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "cublas_library.h"
#include "cuda_handles.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

class BlasContext {
 public:
  // The device's handle, locked for one GEMM on `stream`; release it by destroying the lease.
  class Lease {
   public:
    cublasHandle_t handle() const { return handle_; }

   private:
    friend class BlasContext;
    std::unique_lock<std::mutex> lock_;
    cublasHandle_t handle_ = nullptr;
  };

  BlasContext() = default;
  BlasContext(const BlasContext&) = delete;
  BlasContext& operator=(const BlasContext&) = delete;
  ~BlasContext();

  // Creates the handle at first use; the caller has made `device` current. `workspace_bytes` is the
  // scratch size for a new stream's workspace.
  hal_status_t acquire(const CublasApi& api, int32_t device, uint64_t workspace_bytes, cudaStream_t stream,
                       Lease* lease);

 private:
  std::mutex mutex_;
  std::unordered_map<cudaStream_t, DeviceBuffer> workspaces_;
  // Declared last, destroyed first: the handle goes before the memory it may have used.
  const CublasApi* api_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

}  // namespace hal_nvidia
