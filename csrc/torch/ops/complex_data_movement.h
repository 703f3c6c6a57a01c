// Complex data movement as the same op over real views. The adapter ABI has no complex dtype, but a complex
// tensor is a real tensor of (real, imaginary) pairs (at::view_as_real: a trailing dimension of 2, stride 1).
// Moving complex elements is moving those pairs, so each op here calls the public ATen op on the views, which
// dispatches back to hal's native real kernels; nothing new is launched. Conjugate / negative bits of inputs are
// resolved first; an output or in-place self carrying them, or a dtype mix ATen would convert or refuse, answers
// "not handled" (nullopt / false) with nothing written, and the op takes its other route (ATen's errors, the CPU
// fallback).
//
// The real ops on the views may themselves take the CPU fallback where the adapter lacks a kernel (OpenCL has no
// atomic float add for an accumulating index_put_): the result is right either way.
#pragma once

#include <ATen/core/List.h>
#include <ATen/core/Tensor.h>

#include <optional>

#include "ops/indexing_launch.h"

namespace torch_hal::native::complex_data_movement {

// The row kernels of indexing_launch.h (index_select, take, index_add / index_copy / index_fill, put_,
// masked_scatter_) over complex operands: out's and values' (self's) real views are rows with one more trailing
// dimension, the pair, carried along. False (nothing written) where out carries a lazy bit or the dtype has no real
// view.
bool put_rows(const at::Tensor& out, const at::Tensor& index, const at::Tensor& values, bool accumulate);
bool select_rows(const at::Tensor& out, const at::Tensor& self, int64_t dim, const at::Tensor& index);

// scatter / scatter_add / scatter(reduce="add") into a complex out: each part scattered on its own (a real and an
// imaginary view of out's shape), src's parts or the value's. Set and Add only: a complex product is no product of
// parts, so "multiply" answers false, as do the cases put_rows refuses.
bool scatter_elements(const at::Tensor& out, int64_t dim, const at::Tensor& index, const at::Tensor* src,
                      const c10::Scalar* value, ScatterReduce reduce);

// gather (and take_along_dim, which ATen builds on it): the index, given a trailing pair dimension, gathers pairs.
std::optional<at::Tensor> gather(const at::Tensor& self, int64_t dim, const at::Tensor& index, bool sparse_grad);

// index.Tensor (x[indices]): the indices cover leading dimensions only, so they index the real view the same way
// and the pair dimension stays last in ATen's result layout.
std::optional<at::Tensor> index(const at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices);

// _index_put_impl_ (x[indices] = v, index_put_ with or without accumulate): values' real view broadcasts onto the
// indexed pairs (the pair dimensions align, being last in both).
bool index_put_impl(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices, const at::Tensor& values,
                    bool accumulate, bool unsafe);

// masked_select: the mask, given a trailing pair dimension, selects pairs in order.
std::optional<at::Tensor> masked_select(const at::Tensor& self, const at::Tensor& mask);

// cumsum, cumsum_ and cumsum.out: a complex running sum is the running sums of its parts, i.e. the real cumsum of
// the view along the same dimension. `dtype` other than self's: not handled.
std::optional<at::Tensor> cumsum(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype);
bool cumsum_(at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype);
bool cumsum_out(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype, at::Tensor& out);

// linspace.out into a complex out: ATen's CPU kernel computes start + step * i (end - step * k) part by part
// (a complex number times or over an integer scales each part), so each part is the real linspace of its parts of
// start and end, written into out's real and imaginary views.
bool linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out);

}  // namespace torch_hal::native::complex_data_movement
