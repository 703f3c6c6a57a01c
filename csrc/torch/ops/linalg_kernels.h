// torch.linalg on hal: ATen's own linear algebra (its checks, shapes, batching and the decompositions built on the
// factorizations) over the adapter's linalg family (dense_linalg.cuh: one matrix per thread, in float64).
//
// ATen writes linear algebra around LAPACK-shaped DispatchStubs (lu_factor_stub, triangular_solve_stub, ...):
// linalg_stubs.cpp registers hal's implementations of them for PrivateUse1, and linalg_ops.cpp registers ATen's
// structured kernels (meta + impl, device-generic code that calls the stubs) for hal, where ATen registers them
// for CPU and CUDA only. An op takes this route only when linalg_runs_natively says the device's adapter has the
// family and the matrices are small enough for it; otherwise it keeps the CPU route it had.
#pragma once

#include <ATen/core/Tensor.h>

namespace torch_hal::native::linalg {

// The largest side of a matrix that the glue sends to the adapter's one-thread-per-matrix kernels. Beyond it
// the CPU's blocked LAPACK is faster than one GPU thread, until the family has work-group kernels.
constexpr int64_t kMaxNativeSide = 64;

// Whether the linear algebra of `a` (a floating or complex matrix or batch of them on a hal device) runs on the
// adapter's kernels: the adapter has the linalg family (asked once per device) and no side exceeds the limit.
bool runs_natively(const at::Tensor& a);

}  // namespace torch_hal::native::linalg
