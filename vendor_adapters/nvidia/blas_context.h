// A device's cuBLAS and cuBLASLt state: one handle of each (made at first use), one workspace per stream
// that has run a GEMM, and the prepared cuBLASLt GEMMs (lt_bias_gemm.h).
//
// A cuBLAS handle is not safe to use from two threads at once (its stream and workspace are settings of
// the handle), and the prepared cuBLASLt descriptors are shared by every call of one shape, so a GEMM holds
// the device's lock from its first BLAS call until its launch has been queued; that is microseconds, the
// GPU work itself runs after the lock is released.
// The workspace is per stream because kernels running concurrently on two streams must not share scratch
// memory (cuBLAS documents this for cublasSetWorkspace); cuBLAS and cuBLASLt calls on one stream run in
// order and share it. Streams are pooled by the core, so the number of workspaces stays small; they are
// freed when their stream is destroyed or the adapter shuts down.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "cublas_library.h"
#include "cublaslt_library.h"
#include "cuda_handles.h"
#include "kernels/library_handle.h"
#include "lt_bias_gemm.h"
#include "torch_hal/adapter.h"

namespace hal_nvidia {

using hal_gpu::LibraryHandle;

class BlasContext {
 public:
  // One GEMM's exclusive use of the device's BLAS state on one stream; released when destroyed.
  class Lease {
   public:
    // cuBLAS's handle (made at first use; on failure the message is recorded) bound to this lease's
    // stream and workspace.
    hal_status_t cublas(const CublasApi& api, cublasHandle_t* handle);
    // cuBLASLt's handle, made at first use; nullptr when cuBLASLt cannot make one (the caller then takes
    // the cuBLAS path, so this records no message).
    cublasLtHandle_t cublas_lt(const CublasLtApi& api);
    LtBiasGemmCache& lt_bias_gemms() { return context_->lt_bias_gemms_; }
    // The stream's scratch memory: nullptr and 0 when it could not be allocated.
    void* workspace() const { return workspace_; }
    uint64_t workspace_bytes() const { return workspace_bytes_; }

   private:
    friend class BlasContext;
    BlasContext* context_ = nullptr;
    std::unique_lock<std::mutex> lock_;
    int32_t device_ = 0;
    cudaStream_t stream_ = nullptr;
    void* workspace_ = nullptr;
    uint64_t workspace_bytes_ = 0;
  };

  BlasContext() = default;
  BlasContext(const BlasContext&) = delete;
  BlasContext& operator=(const BlasContext&) = delete;

  // Locks the context for one GEMM on `stream` and finds (or allocates, `workspace_bytes`) the stream's
  // workspace. The caller has made `device` current.
  void acquire(int32_t device, uint64_t workspace_bytes, cudaStream_t stream, Lease* lease);
  // Frees `stream`'s workspace; called before the stream is destroyed (a later stream given the same
  // handle then starts without one). cudaFree waits for the device, so queued GEMMs are done with it.
  void forget(cudaStream_t stream);

 private:
  std::mutex mutex_;
  std::unordered_map<cudaStream_t, DeviceBuffer> workspaces_;
  // Declared after the workspaces, destroyed before them: the handles go before the memory they may have
  // used. The prepared GEMMs are host objects of cuBLASLt, destroyed before its handle.
  LibraryHandle<cublasContext> cublas_;
  LibraryHandle<cublasLtContext> cublas_lt_;
  LtBiasGemmCache lt_bias_gemms_;
};

}  // namespace hal_nvidia
