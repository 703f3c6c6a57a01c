// Reductions: sum, mean, prod, amax/amin, max/min (full and with indices), argmax/argmin, var/std (and
// var_mean/std_mean), all/any, linalg.vector_norm. The output's shape and dtype are ATen's; the kernel sees the output with the
// input's rank (reduced dimensions of size 1, adapter.h's convention), however keepdim was given.
#include <ATen/native/Resize.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/view_as_complex.h>
#include <ATen/ops/view_as_real.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <bitset>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "dispatch/native_first.h"
#include "ops/complex_statistics.h"
#include "ops/host_integer_sum.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

constexpr size_t kMaxReductionDims = 64;

struct Plan {
  std::bitset<kMaxReductionDims> reduced;
  std::vector<int64_t> keep_sizes;  // the input's sizes with reduced dimensions set to 1
  std::vector<int64_t> out_sizes;   // keep_sizes, or without the reduced dimensions when !keepdim
};

// `dims` empty or absent reduces every dimension (as sum(x, dim=[]) does).
Plan plan_reduction(const at::Tensor& self, at::OptionalIntArrayRef dims, bool keepdim) {
  const int64_t ndim = self.dim();
  TORCH_CHECK(ndim <= static_cast<int64_t>(kMaxReductionDims), "hal: reductions support at most 64 dimensions");
  Plan p;
  if (!dims.has_value() || dims->empty()) {
    for (int64_t d = 0; d < ndim; ++d) p.reduced.set(d);
  } else {
    for (int64_t d : *dims) {
      const int64_t w = c10::maybe_wrap_dim(d, ndim);
      TORCH_CHECK(ndim == 0 || !p.reduced.test(w), "dim ", w, " appears multiple times in the list of dims");
      if (ndim > 0) p.reduced.set(w);
    }
  }
  for (int64_t d = 0; d < ndim; ++d) {
    const int64_t size = p.reduced.test(d) ? 1 : self.size(d);
    p.keep_sizes.push_back(size);
    if (keepdim || !p.reduced.test(d)) p.out_sizes.push_back(size);
  }
  return p;
}

// Launches `op` from self into out (shaped plan.out_sizes), viewing out with the input's rank.
bool reduce_into(hal_op_t op, const at::Tensor& self, const at::Tensor& out, const Plan& p,
                 std::initializer_list<double> scalars = {}) {
  if (out.numel() == 0) return true;
  // Nothing to reduce: the identity of reductions that have one (the kernels need at least one element;
  // vecdot of empty vectors sums empty products). The others (mean: NaN, amax: an error) keep their routes.
  if (self.numel() == 0) {
    switch (op) {
      case HAL_OP_SUM: case HAL_OP_ANY: out.fill_(0); return true;
      case HAL_OP_PROD: case HAL_OP_ALL: out.fill_(1); return true;
      default: break;
    }
  }
  std::vector<int64_t> strides;
  if (out.dim() == self.dim()) {
    strides.assign(out.strides().begin(), out.strides().end());
  } else {
    int64_t k = 0;
    for (int64_t d = 0; d < self.dim(); ++d) strides.push_back(p.reduced.test(d) ? 0 : out.stride(k++));
  }
  KernelArgs args;
  args.input(self).output_as(out, p.keep_sizes, strides);
  for (double s : scalars) args.scalar(s);
  return launch(self.device().index(), op, args);
}

void check_nonempty(const char* name, const at::Tensor& self, const Plan& p) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    TORCH_CHECK(!p.reduced.test(d) || self.size(d) != 0, name, "(): Expected reduction dim ", d,
                " to have non-zero size.");
  }
}

// sum and prod: integers (and bool) accumulate into int64 unless a dtype is given.
at::ScalarType accumulating_dtype(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  if (dtype.has_value()) return *dtype;
  return c10::isIntegralType(self.scalar_type(), true) ? at::kLong : self.scalar_type();
}

std::optional<at::Tensor> reduce_new(hal_op_t op, const at::Tensor& self, const Plan& p, at::ScalarType type,
                                     std::initializer_list<double> scalars = {}) {
  at::Tensor out = at::empty(p.out_sizes, self.options().dtype(type));
  if (!reduce_into(op, self, out, p, scalars)) return std::nullopt;
  return out;
}

bool reduce_out(hal_op_t op, const at::Tensor& self, const Plan& p, std::optional<at::ScalarType> dtype,
                at::Tensor& out) {
  if (dtype.has_value()) {
    TORCH_CHECK(out.scalar_type() == *dtype, "Expected out tensor to have dtype ", *dtype, ", but got ",
                out.scalar_type(), " instead");
  }
  at::native::resize_output(out, p.out_sizes);
  return reduce_into(op, self, out, p);
}

// ---- sum / mean / prod ---------------------------------------------------------------------------

// Complex sums and means: the real reduction over the (real, imaginary) view, of the same dims (wrapped on the
// complex rank, so that the trailing pair is kept). nullopt (declined) for 0-dim inputs, another result dtype,
// conjugate or negative bits.
std::optional<std::vector<int64_t>> pair_dims(const at::Tensor& self, at::OptionalIntArrayRef dims,
                                              std::optional<at::ScalarType> dtype) {
  const at::ScalarType type = self.scalar_type();
  if ((type != at::kComplexFloat && type != at::kComplexDouble) || self.is_conj() ||
      self.is_neg() || (dtype.has_value() && *dtype != type)) {
    return std::nullopt;
  }
  std::vector<int64_t> wrapped;
  if (!dims.has_value() || dims->empty()) {
    for (int64_t d = 0; d < self.dim(); ++d) wrapped.push_back(d);
  } else {
    for (int64_t d : *dims) wrapped.push_back(c10::maybe_wrap_dim(d, self.dim()));
  }
  return wrapped;
}
// The plan over the [..., 2] view. A 0-dim input (whose dims, if any, are 0 or -1) reduces nothing: its pair is
// kept as it is (plan_reduction would read the empty list of dims as "all of them").
Plan pair_plan(const at::Tensor& self, const at::Tensor& parts, at::OptionalIntArrayRef dims,
               const std::vector<int64_t>& pair, bool keepdim) {
  if (self.dim() > 0) return plan_reduction(parts, pair, keepdim);
  (void)plan_reduction(self, dims, keepdim);  // ATen's checks of the dims
  Plan p;
  p.keep_sizes = {2};
  p.out_sizes = {2};
  return p;
}
std::optional<at::Tensor> complex_reduce_new(hal_op_t op, const at::Tensor& self, at::OptionalIntArrayRef dims,
                                             bool keepdim, std::optional<at::ScalarType> dtype) {
  const auto pair = pair_dims(self, dims, dtype);
  if (!pair.has_value()) return std::nullopt;
  const at::Tensor parts = at::view_as_real(self);
  auto out = reduce_new(op, parts, pair_plan(self, parts, dims, *pair, keepdim), parts.scalar_type());
  if (!out.has_value()) return std::nullopt;
  return at::view_as_complex(*out);  // a new contiguous [..., 2]
}
bool complex_reduce_out(hal_op_t op, const at::Tensor& self, at::OptionalIntArrayRef dims, bool keepdim,
                        std::optional<at::ScalarType> dtype, at::Tensor& out) {
  const auto pair = pair_dims(self, dims, dtype);
  if (!pair.has_value() || out.scalar_type() != self.scalar_type() || out.is_conj() || out.is_neg()) return false;
  at::native::resize_output(out, plan_reduction(self, dims, keepdim).out_sizes);
  const at::Tensor parts = at::view_as_real(self);
  return reduce_into(op, parts, at::view_as_real(out), pair_plan(self, parts, dims, *pair, keepdim));
}

std::optional<at::Tensor> sum_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                   std::optional<at::ScalarType> dtype) {
  if (self.is_complex()) return complex_reduce_new(HAL_OP_SUM, self, dim, keepdim, dtype);
  return reduce_new(HAL_OP_SUM, self, plan_reduction(self, dim, keepdim), accumulating_dtype(self, dtype));
}
std::optional<at::Tensor> sum_all(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  return sum_dims(self, std::nullopt, false, dtype);
}
// The registered kernels: integer sums on host-accessible memory first (host_integer_sum.h says why).
at::Tensor sum_dims_entry(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                          std::optional<at::ScalarType> dtype) {
  if (auto r = host_integer_sum(self, dim, keepdim, dtype)) return std::move(*r);
  return NativeFirst<at::_ops::sum_dim_IntList, &sum_dims>::call(self, dim, keepdim, dtype);
}
at::Tensor sum_all_entry(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  if (auto r = host_integer_sum(self, std::nullopt, false, dtype)) return std::move(*r);
  return NativeFirst<at::_ops::sum, &sum_all>::call(self, dtype);
}
bool sum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, std::optional<at::ScalarType> dtype,
             at::Tensor& out) {
  if (self.is_complex()) return complex_reduce_out(HAL_OP_SUM, self, dim, keepdim, dtype, out);
  return reduce_out(HAL_OP_SUM, self, plan_reduction(self, dim, keepdim), dtype, out);
}

at::ScalarType mean_dtype(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  const at::ScalarType type = dtype.value_or(self.scalar_type());
  TORCH_CHECK(at::isFloatingType(type) || at::isComplexType(type), "mean(): could not infer output dtype. ",
              dtype.has_value() ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. ",
              "Got: ", type);
  return type;
}
std::optional<at::Tensor> mean_dims(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                    std::optional<at::ScalarType> dtype) {
  if (self.is_complex()) {
    mean_dtype(self, dtype);
    return complex_reduce_new(HAL_OP_MEAN, self, dim, keepdim, dtype);
  }
  return reduce_new(HAL_OP_MEAN, self, plan_reduction(self, dim, keepdim), mean_dtype(self, dtype));
}
bool mean_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim, std::optional<at::ScalarType> dtype,
              at::Tensor& out) {
  mean_dtype(self, dtype.has_value() ? dtype : std::optional<at::ScalarType>(out.scalar_type()));
  if (self.is_complex()) return complex_reduce_out(HAL_OP_MEAN, self, dim, keepdim, dtype, out);
  return reduce_out(HAL_OP_MEAN, self, plan_reduction(self, dim, keepdim), dtype, out);
}

// Complex products: no kernel multiplies complex numbers, so the dimension is halved until one element is left,
// the first half times the second (complex multiplication composed over the real views), an odd last element
// carried to the next round: log2(n) rounds of native multiplications. The association differs from ATen's
// running product by rounding only. nullopt for another result dtype and conjugate or negative bits.
bool complex_prod_done(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  return self.is_complex() && !self.is_conj() && !self.is_neg() &&
         (!dtype.has_value() || *dtype == self.scalar_type());
}
at::Tensor complex_prod_last(at::Tensor t) {  // over the last dimension (not empty), kept with size 1
  int64_t n = t.size(-1);
  while (n > 1) {
    const int64_t half = n / 2;
    at::Tensor product = t.narrow(-1, 0, half).mul(t.narrow(-1, half, half));
    t = n % 2 == 0 ? product : at::cat({product, t.narrow(-1, 2 * half, 1)}, -1);
    n = t.size(-1);
  }
  return t;
}
std::optional<at::Tensor> complex_prod_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return self.clone();
  const int64_t d = c10::maybe_wrap_dim(dim, self.dim());
  const at::Tensor moved = self.movedim(d, -1);
  at::Tensor result;
  if (moved.size(-1) == 0) {
    std::vector<int64_t> sizes = moved.sizes().vec();
    sizes.back() = 1;
    result = at::ones(sizes, self.options());
  } else {
    result = complex_prod_last(moved);
  }
  result = result.squeeze(-1);
  return keepdim ? result.unsqueeze(d) : result.contiguous();
}

std::optional<at::Tensor> prod_all(const at::Tensor& self, std::optional<at::ScalarType> dtype) {
  if (self.is_complex()) {
    if (!complex_prod_done(self, dtype)) return std::nullopt;
    return complex_prod_dim(self.reshape({-1}), 0, false);
  }
  return reduce_new(HAL_OP_PROD, self, plan_reduction(self, std::nullopt, false), accumulating_dtype(self, dtype));
}
std::optional<at::Tensor> prod_dim(const at::Tensor& self, int64_t dim, bool keepdim,
                                   std::optional<at::ScalarType> dtype) {
  if (self.is_complex()) {
    if (!complex_prod_done(self, dtype)) return std::nullopt;
    return complex_prod_dim(self, dim, keepdim);
  }
  return reduce_new(HAL_OP_PROD, self, plan_reduction(self, at::IntArrayRef(dim), keepdim),
                    accumulating_dtype(self, dtype));
}
bool prod_out(const at::Tensor& self, int64_t dim, bool keepdim, std::optional<at::ScalarType> dtype, at::Tensor& out) {
  if (self.is_complex()) return write_out(prod_dim(self, dim, keepdim, dtype), out);
  return reduce_out(HAL_OP_PROD, self, plan_reduction(self, at::IntArrayRef(dim), keepdim), dtype, out);
}

// ---- amax / amin / max / min -----------------------------------------------------------------------

template <bool Max>
std::optional<at::Tensor> extremum(const at::Tensor& self, at::IntArrayRef dim, bool keepdim) {
  const Plan p = plan_reduction(self, dim, keepdim);
  check_nonempty(Max ? "amax" : "amin", self, p);
  return reduce_new(Max ? HAL_OP_AMAX : HAL_OP_AMIN, self, p, self.scalar_type());
}
template <bool Max>
bool extremum_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  const Plan p = plan_reduction(self, dim, keepdim);
  check_nonempty(Max ? "amax" : "amin", self, p);
  TORCH_CHECK(self.scalar_type() == out.scalar_type(), "Expected the dtype for input and out to match, but got ",
              self.scalar_type(), " for input's dtype and ", out.scalar_type(), " for out's dtype.");
  return reduce_out(Max ? HAL_OP_AMAX : HAL_OP_AMIN, self, p, std::nullopt, out);
}

// max() / min() over every element.
template <bool Max>
std::optional<at::Tensor> extremum_all(const at::Tensor& self) {
  TORCH_CHECK(self.numel() > 0, Max ? "max" : "min",
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
              "'dim' argument.");
  return reduce_new(Max ? HAL_OP_AMAX : HAL_OP_AMIN, self, plan_reduction(self, std::nullopt, false),
                    self.scalar_type());
}

// argmax / argmin: without a dim, of the flattened input.
template <bool Max>
bool arg_into(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim, at::Tensor* out_param,
              at::Tensor* result) {
  const char* name = Max ? "argmax" : "argmin";
  const hal_op_t op = Max ? HAL_OP_ARGMAX : HAL_OP_ARGMIN;
  at::Tensor input = self;
  Plan p;
  if (dim.has_value()) {
    p = plan_reduction(self, at::IntArrayRef(*dim), keepdim);
    check_nonempty(name, self, p);
  } else {
    TORCH_CHECK(self.numel() != 0, name, "(): Expected reduction dim to be specified for input.numel() == 0.");
    input = self.reshape({-1});
    p = plan_reduction(input, std::nullopt, false);
    // The result's shape: 0-dim, or all ones of self's rank with keepdim.
    p.out_sizes = keepdim ? std::vector<int64_t>(self.dim(), 1) : std::vector<int64_t>{};
  }
  at::Tensor out;
  if (out_param != nullptr) {
    out = *out_param;
    at::native::resize_output(out, p.out_sizes);
  } else {
    out = at::empty(p.out_sizes, self.options().dtype(at::kLong));
  }
  // The flattened case launches on [1]-shaped view of the output (same rank as the 1-D input).
  const at::Tensor target = dim.has_value() ? out : out.view({1});
  if (!reduce_into(op, input, target, p)) return false;
  if (result != nullptr) *result = out;
  return true;
}
template <bool Max>
std::optional<at::Tensor> arg(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  at::Tensor result;
  if (!arg_into<Max>(self, dim, keepdim, nullptr, &result)) return std::nullopt;
  return result;
}
template <bool Max>
bool arg_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim, at::Tensor& out) {
  TORCH_CHECK(out.scalar_type() == at::kLong, "Expected out tensor to have dtype Long, but got ", out.scalar_type(),
              " instead");
  return arg_into<Max>(self, dim, keepdim, &out, nullptr);
}

// max.dim / min.dim: the values (amax) and their first indices (argmax).
template <bool Max>
std::optional<std::tuple<at::Tensor, at::Tensor>> extremum_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  const Plan p = plan_reduction(self, at::IntArrayRef(dim), keepdim);
  check_nonempty(Max ? "max" : "min", self, p);
  auto values = reduce_new(Max ? HAL_OP_AMAX : HAL_OP_AMIN, self, p, self.scalar_type());
  if (!values.has_value()) return std::nullopt;
  auto indices = reduce_new(Max ? HAL_OP_ARGMAX : HAL_OP_ARGMIN, self, p, at::kLong);
  if (!indices.has_value()) return std::nullopt;
  return std::make_tuple(std::move(*values), std::move(*indices));
}

// ---- var / std ---------------------------------------------------------------------------------------

void check_moments_dtype(const at::Tensor& self) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "std and var only support floating point and complex dtypes");
}
double correction_of(const std::optional<c10::Scalar>& correction) {
  return correction.has_value() ? correction->toDouble() : 1.0;
}
template <bool Std>
std::optional<at::Tensor> moments(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                  const std::optional<c10::Scalar>& correction, bool keepdim) {
  check_moments_dtype(self);
  if (self.is_complex()) return complex_statistics::var(self, dim, correction, keepdim, Std);
  return reduce_new(Std ? HAL_OP_STD : HAL_OP_VAR, self, plan_reduction(self, dim, keepdim), self.scalar_type(),
                    {correction_of(correction)});
}
template <bool Std>
bool moments_out(const at::Tensor& self, at::OptionalIntArrayRef dim, const std::optional<c10::Scalar>& correction,
                 bool keepdim, at::Tensor& out) {
  check_moments_dtype(self);
  if (self.is_complex()) return complex_statistics::var_out(self, dim, correction, keepdim, Std, out);
  const Plan p = plan_reduction(self, dim, keepdim);
  at::native::resize_output(out, p.out_sizes);
  return reduce_into(Std ? HAL_OP_STD : HAL_OP_VAR, self, out, p, {correction_of(correction)});
}
template <bool Std>
std::optional<std::tuple<at::Tensor, at::Tensor>> moments_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                                                const std::optional<c10::Scalar>& correction,
                                                                bool keepdim) {
  check_moments_dtype(self);
  if (self.is_complex()) return complex_statistics::var_mean(self, dim, correction, keepdim, Std);
  const Plan p = plan_reduction(self, dim, keepdim);
  auto spread = reduce_new(Std ? HAL_OP_STD : HAL_OP_VAR, self, p, self.scalar_type(), {correction_of(correction)});
  if (!spread.has_value()) return std::nullopt;
  auto mean = reduce_new(HAL_OP_MEAN, self, p, self.scalar_type());
  if (!mean.has_value()) return std::nullopt;
  return std::make_tuple(std::move(*spread), std::move(*mean));
}

// ---- all / any ---------------------------------------------------------------------------------------

// The result's dtype: the out= tensor's (bool or uint8), else uint8 for uint8 input and bool for the rest.
at::ScalarType logical_dtype(const at::Tensor& self, const at::Tensor* out, const char* name) {
  if (out != nullptr) {
    TORCH_CHECK(out->scalar_type() == at::kBool || out->scalar_type() == at::kByte, name,
                " only supports bool tensor for result, got: ", out->scalar_type());
    return out->scalar_type();
  }
  return self.scalar_type() == at::kByte ? at::kByte : at::kBool;
}
// all.dims / any.dims: dim=None reduces every dimension, an empty list none (each element tested alone).
Plan plan_logical(const at::Tensor& self, at::OptionalIntArrayRef dims, bool keepdim) {
  if (dims.has_value() && dims->empty()) {
    Plan p;
    p.keep_sizes.assign(self.sizes().begin(), self.sizes().end());
    p.out_sizes = p.keep_sizes;
    return p;
  }
  return plan_reduction(self, dims, keepdim);
}
// A complex element is true where it is nonzero (either part, NaN included): where its magnitude is, which
// hypot never rounds to 0 for a nonzero pair. The real magnitudes then take the real reduction.
at::Tensor truth_operand(const at::Tensor& self) { return self.is_complex() ? self.abs() : self; }
template <bool All>
std::optional<at::Tensor> logical(const at::Tensor& self, const Plan& p) {
  return reduce_new(All ? HAL_OP_ALL : HAL_OP_ANY, truth_operand(self), p,
                    logical_dtype(self, nullptr, All ? "all" : "any"));
}
template <bool All>
bool logical_out(const at::Tensor& self, const Plan& p, at::Tensor& out) {
  logical_dtype(self, &out, All ? "all" : "any");
  at::native::resize_output(out, p.out_sizes);
  return reduce_into(All ? HAL_OP_ALL : HAL_OP_ANY, truth_operand(self), out, p);
}
template <bool All>
std::optional<at::Tensor> logical_all(const at::Tensor& self) {
  return logical<All>(self, plan_reduction(self, std::nullopt, false));
}
template <bool All>
bool logical_all_out(const at::Tensor& self, at::Tensor& out) {
  return logical_out<All>(self, plan_reduction(self, std::nullopt, false), out);
}
template <bool All>
std::optional<at::Tensor> logical_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  return logical<All>(self, plan_reduction(self, at::IntArrayRef(dim), keepdim));
}
template <bool All>
bool logical_dim_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return logical_out<All>(self, plan_reduction(self, at::IntArrayRef(dim), keepdim), out);
}
template <bool All>
std::optional<at::Tensor> logical_dims(const at::Tensor& self, at::OptionalIntArrayRef dims, bool keepdim) {
  return logical<All>(self, plan_logical(self, dims, keepdim));
}
template <bool All>
bool logical_dims_out(const at::Tensor& self, at::OptionalIntArrayRef dims, bool keepdim, at::Tensor& out) {
  return logical_out<All>(self, plan_logical(self, dims, keepdim), out);
}

// ---- linalg.vector_norm ----------------------------------------------------------------------------------

// ATen's checks and result dtype (real inputs: complex ones take the usual route, where `nullopt`).
std::optional<at::ScalarType> vector_norm_dtype(const at::Tensor& self, const c10::Scalar& ord, const Plan& p,
                                                std::optional<at::ScalarType> dtype) {
  const at::ScalarType in = self.scalar_type();
  TORCH_CHECK(at::isFloatingType(in) || at::isComplexType(in),
              "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", in);
  if (dtype.has_value()) {
    TORCH_CHECK(at::isFloatingType(*dtype) || at::isComplexType(*dtype),
                "linalg.vector_norm: dtype should be floating point or complex, but got ", *dtype);
    TORCH_CHECK(at::promoteTypes(in, *dtype) == *dtype, "linalg.vector_norm: the dtype of the input (", in,
                ") should be convertible without narrowing to the specified dtype (", *dtype, ")");
  }
  const double p_ord = ord.toDouble();
  if (self.numel() == 0 && (p_ord < 0 || p_ord == std::numeric_limits<double>::infinity())) {
    bool every = true;  // every dimension reduced: the message of dim=None
    for (int64_t d = 0; d < self.dim(); ++d) every = every && p.reduced.test(d);
    TORCH_CHECK(!every, "linalg.vector_norm cannot compute the ", ord, " norm on an empty tensor because the ",
                "operation does not have an identity");
    for (int64_t d = 0; d < self.dim(); ++d) {
      TORCH_CHECK(!p.reduced.test(d) || self.size(d) != 0, "linalg.vector_norm cannot compute the ", ord,
                  " norm on the dimension ", d, "because this dimension is empty and the operation does not have ",
                  "an identity");
    }
  }
  const at::ScalarType type = dtype.value_or(in);
  if (!at::isFloatingType(type) || !at::isFloatingType(in) || ord.isComplex()) return std::nullopt;
  return type;
}
std::optional<at::Tensor> vector_norm(const at::Tensor& self, const c10::Scalar& ord, at::OptionalIntArrayRef dim,
                                      bool keepdim, std::optional<at::ScalarType> dtype) {
  // A complex vector's norm is its magnitudes' (a real tensor of the matching precision), after the conversion
  // to a complex `dtype` ATen makes first; a real `dtype` is ATen's error.
  if (self.is_complex()) {
    if (dtype.has_value() && !at::isComplexType(*dtype)) return std::nullopt;
    const at::Tensor converted = dtype.has_value() ? self.to(*dtype) : self;
    return vector_norm(converted.abs(), ord, dim, keepdim, std::nullopt);
  }
  const Plan p = plan_reduction(self, dim, keepdim);
  const auto type = vector_norm_dtype(self, ord, p, dtype);
  if (!type.has_value()) return std::nullopt;
  return reduce_new(HAL_OP_VECTOR_NORM, self, p, *type, {ord.toDouble()});
}
bool vector_norm_out(const at::Tensor& self, const c10::Scalar& ord, at::OptionalIntArrayRef dim, bool keepdim,
                     std::optional<at::ScalarType> dtype, at::Tensor& out) {
  if (self.is_complex()) return write_out(vector_norm(self, ord, dim, keepdim, dtype), out);
  const Plan p = plan_reduction(self, dim, keepdim);
  const auto type = vector_norm_dtype(self, ord, p, dtype);
  if (!type.has_value()) return false;
  TORCH_CHECK(out.scalar_type() == *type, "Expected out tensor to have dtype ", *type, ", but got ",
              out.scalar_type(), " instead");
  at::native::resize_output(out, p.out_sizes);
  return reduce_into(HAL_OP_VECTOR_NORM, self, out, p, {ord.toDouble()});
}

// norm over dims (what dist and the triplet margin losses call): linalg.vector_norm's kernel, after norm's own
// refusal of integer inputs; p absent is 2.
void check_norm_input(const at::Tensor& self) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
}
std::optional<at::Tensor> norm_dim(const at::Tensor& self, const std::optional<c10::Scalar>& p, at::IntArrayRef dim,
                                   bool keepdim) {
  check_norm_input(self);
  return vector_norm(self, p.value_or(2.0), dim, keepdim, std::nullopt);
}
std::optional<at::Tensor> norm_dim_dtype(const at::Tensor& self, const std::optional<c10::Scalar>& p,
                                         at::IntArrayRef dim, bool keepdim, at::ScalarType dtype) {
  check_norm_input(self);
  return vector_norm(self, p.value_or(2.0), dim, keepdim, dtype);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  impl_recorded(m, Route::AdapterFirst, "sum", TORCH_FN(sum_all_entry), launches(HAL_OP_SUM));
  impl_recorded(m, Route::AdapterFirst, "sum.dim_IntList", TORCH_FN(sum_dims_entry), launches(HAL_OP_SUM));
  HAL_NATIVE(m, sum_IntList_out, "sum.IntList_out", launches(HAL_OP_SUM), sum_out);
  HAL_NATIVE(m, mean_dim, "mean.dim", launches(HAL_OP_MEAN), mean_dims);
  HAL_NATIVE(m, mean_out, "mean.out", launches(HAL_OP_MEAN), mean_out);
  HAL_NATIVE(m, prod, "prod", launches(HAL_OP_PROD), prod_all);
  HAL_NATIVE(m, prod_dim_int, "prod.dim_int", launches(HAL_OP_PROD), prod_dim);
  HAL_NATIVE(m, prod_int_out, "prod.int_out", launches(HAL_OP_PROD), prod_out);
  HAL_NATIVE(m, amax, "amax", launches(HAL_OP_AMAX), extremum<true>);
  HAL_NATIVE(m, amax_out, "amax.out", launches(HAL_OP_AMAX), extremum_out<true>);
  HAL_NATIVE(m, amin, "amin", launches(HAL_OP_AMIN), extremum<false>);
  HAL_NATIVE(m, amin_out, "amin.out", launches(HAL_OP_AMIN), extremum_out<false>);
  HAL_NATIVE(m, max, "max", launches(HAL_OP_AMAX), extremum_all<true>);
  HAL_NATIVE(m, min, "min", launches(HAL_OP_AMIN), extremum_all<false>);
  HAL_NATIVE(m, max_dim, "max.dim", launches(HAL_OP_AMAX, HAL_OP_ARGMAX), extremum_dim<true>);
  HAL_NATIVE(m, min_dim, "min.dim", launches(HAL_OP_AMIN, HAL_OP_ARGMIN), extremum_dim<false>);
  HAL_NATIVE(m, argmax, "argmax", launches(HAL_OP_ARGMAX), arg<true>);
  HAL_NATIVE(m, argmax_out, "argmax.out", launches(HAL_OP_ARGMAX), arg_out<true>);
  HAL_NATIVE(m, argmin, "argmin", launches(HAL_OP_ARGMIN), arg<false>);
  HAL_NATIVE(m, argmin_out, "argmin.out", launches(HAL_OP_ARGMIN), arg_out<false>);
  HAL_NATIVE(m, var_correction, "var.correction", launches(HAL_OP_VAR), moments<false>);
  HAL_NATIVE(m, var_correction_out, "var.correction_out", launches(HAL_OP_VAR), moments_out<false>);
  HAL_NATIVE(m, std_correction, "std.correction", launches(HAL_OP_STD), moments<true>);
  HAL_NATIVE(m, std_correction_out, "std.correction_out", launches(HAL_OP_STD), moments_out<true>);
  HAL_NATIVE(m, var_mean_correction, "var_mean.correction", launches(HAL_OP_VAR, HAL_OP_MEAN), moments_mean<false>);
  HAL_NATIVE(m, std_mean_correction, "std_mean.correction", launches(HAL_OP_STD, HAL_OP_MEAN), moments_mean<true>);
  HAL_NATIVE(m, all, "all", launches(HAL_OP_ALL), logical_all<true>);
  HAL_NATIVE(m, all_all_out, "all.all_out", launches(HAL_OP_ALL), logical_all_out<true>);
  HAL_NATIVE(m, all_dim, "all.dim", launches(HAL_OP_ALL), logical_dim<true>);
  HAL_NATIVE(m, all_out, "all.out", launches(HAL_OP_ALL), logical_dim_out<true>);
  HAL_NATIVE(m, all_dims, "all.dims", launches(HAL_OP_ALL), logical_dims<true>);
  HAL_NATIVE(m, all_dims_out, "all.dims_out", launches(HAL_OP_ALL), logical_dims_out<true>);
  HAL_NATIVE(m, any, "any", launches(HAL_OP_ANY), logical_all<false>);
  HAL_NATIVE(m, any_all_out, "any.all_out", launches(HAL_OP_ANY), logical_all_out<false>);
  HAL_NATIVE(m, any_dim, "any.dim", launches(HAL_OP_ANY), logical_dim<false>);
  HAL_NATIVE(m, any_out, "any.out", launches(HAL_OP_ANY), logical_dim_out<false>);
  HAL_NATIVE(m, any_dims, "any.dims", launches(HAL_OP_ANY), logical_dims<false>);
  HAL_NATIVE(m, any_dims_out, "any.dims_out", launches(HAL_OP_ANY), logical_dims_out<false>);
  HAL_NATIVE(m, linalg_vector_norm, "linalg_vector_norm", launches(HAL_OP_VECTOR_NORM), vector_norm);
  HAL_NATIVE(m, linalg_vector_norm_out, "linalg_vector_norm.out", launches(HAL_OP_VECTOR_NORM), vector_norm_out);
  HAL_NATIVE(m, norm_ScalarOpt_dim, "norm.ScalarOpt_dim", launches(HAL_OP_VECTOR_NORM), norm_dim);
  HAL_NATIVE(m, norm_ScalarOpt_dim_dtype, "norm.ScalarOpt_dim_dtype", launches(HAL_OP_VECTOR_NORM), norm_dim_dtype);
}

}  // namespace
}  // namespace torch_hal::native
