// Complex matrix products as real GEMMs over the parts (complex_matmul.h).
//
// With A = Ar + i Ai and B = Br + i Bi: A B = (Ar Br - Ai Bi) + i (Ar Bi + Ai Br), four real GEMMs. Each pair
// of them accumulates into one real matrix: the second GEMM adds its product to the first's result (its c, beta 1),
// so each part of the result is two separately summed real products and one subtraction or addition, as BLAS's
// cgemm computes it (the CPU's mm, MKL's cgemm, gives the same values to the bit on the OpenCL CPU runtime; a
// single GEMM over interleaved (re, im) pairs, which mixes the two sums in one accumulator, was measurably further
// from both the CPU's and the exact results). Small batched products are summed in ATen's loop order instead
// (product_in_atens_loop_order below).
//
// The GEMM needs each matrix to have a unit stride in one of its last two dims, which a part of a complex tensor
// (stride 2 in real elements) never has: A's and B's parts are copied into dense "planar" real tensors (both parts
// by one launch), and the GEMMs write a planar temporary, copied into `out` by the last launch. So `out` is written
// by one launch at the very end (a refusal before it leaves `out` as it was, in place ops included) and no GEMM
// reads memory that it writes.
//
// Conjugate and negative views are taken as stored: their signs go into the GEMMs' alphas. Real alpha and beta
// go into the GEMMs too (c's parts as the first GEMMs' c); complex ones are applied after the product as ATen
// applies them: beta * c + alpha * (A B), each complex product rounded as ATen's complex multiplication rounds it.
#include "ops/complex_matmul.h"

#include <ATen/ops/_neg_view.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/view_as_real.h>

#include <array>

#include "ops/complex_parts.h"

namespace torch_hal::native {
namespace {

using complex_by_real_view::Composer;
using complex_by_real_view::number;
using complex_by_real_view::tensor;
using Complex = c10::complex<double>;

// An operand as its stored elements (a view with neither lazy bit) and the bits that were set on it: the
// operand's values are stored ones conjugated where `conjugated`, negated where `negated`.
struct Stored {
  at::Tensor values;
  bool conjugated = false;
  bool negated = false;
};

Stored stored_of(const at::Tensor& t) {
  Stored s{t, t.is_conj(), t.is_neg()};
  if (s.conjugated) s.values = s.values.conj();       // conj() of a conjugate view clears the bit
  if (s.negated) s.values = at::_neg_view(s.values);  // as _neg_view does for the negative bit
  return s;
}

// The real and imaginary parts of a complex tensor (without lazy bits), or of a planar one, as real tensors.
struct RealParts {
  at::Tensor re, im;
};
RealParts parts_of(const at::Tensor& complex) {
  const at::Tensor pairs = at::view_as_real(complex);
  return {pairs.select(-1, 0), pairs.select(-1, 1)};
}

// Real parts [2, ...shape], dense: [0] the real parts, [1] the imaginary ones, each a dense matrix (or batch of
// them) that the GEMM reads and writes as it is.
struct Planar {
  at::Tensor both;
  RealParts parts() const { return {both.select(0, 0), both.select(0, 1)}; }
  // Both parts as the real view ([...shape, 2]) of a complex tensor: one launch copies or adds all of them.
  at::Tensor pairs() const { return both.movedim(0, -1); }
};

Planar planar_temp(at::IntArrayRef shape, const at::TensorOptions& real_options) {
  c10::SmallVector<int64_t, 5> sizes{2};
  sizes.append(shape.begin(), shape.end());
  return {at::empty(sizes, real_options)};
}

// A complex operand's stored elements as dense planar parts (one copy launch).
Planar planar_copy(Composer& c, const at::Tensor& complex_values) {
  Planar p = planar_temp(complex_values.sizes(), complex_values.options().dtype(c.real()));
  c.copy(p.pairs(), at::view_as_real(complex_values));
  return p;
}

bool complex_in_abi_parts(at::ScalarType t) { return t == at::kComplexFloat || t == at::kComplexDouble; }

bool same_geometry(const at::Tensor& x, const at::Tensor& y) {
  return x.data_ptr() == y.data_ptr() && x.sizes().equals(y.sizes()) && x.strides().equals(y.strides());
}

// A complex scalar as the complex dtype holds it (complex64: float parts), as ATen rounds it before multiplying.
Complex rounded_to(at::ScalarType real, Complex s) {
  if (real != at::kFloat) return s;
  return {static_cast<float>(s.real()), static_cast<float>(s.imag())};
}

// dst = s * z, z conjugated first where `conjugate`, part by part: re = s.re z.re - s.im z.im, im = s.re z.im +
// s.im z.re, each product rounded and then the sum, as ATen's complex multiplication computes it. s == 1 (and a
// real s) take the launches they need and no more.
void write_scaled(Composer& c, const RealParts& dst, const RealParts& z, bool conjugate, Complex s) {
  s = rounded_to(c.real(), s);
  const double im_sign = conjugate ? -1.0 : 1.0;  // the sign of z's imaginary part as stored
  if (s == Complex(1.0, 0.0)) {
    c.copy(dst.re, z.re);
    if (conjugate) c.unary(dst.im, HAL_OP_NEG, z.im);
    else c.copy(dst.im, z.im);
    return;
  }
  c.binary(dst.re, HAL_OP_MUL, Form::Binary, tensor(z.re), number(s.real()));
  c.binary(dst.im, HAL_OP_MUL, Form::Binary, tensor(z.im), number(s.real() * im_sign));
  if (s.imag() == 0) return;
  const at::Tensor t = at::empty(dst.re.sizes(), dst.re.options());
  c.binary(t, HAL_OP_MUL, Form::Binary, tensor(z.im), number(s.imag() * im_sign));
  c.binary(dst.re, HAL_OP_SUB, Form::Binary, tensor(dst.re), tensor(t));
  c.binary(t, HAL_OP_MUL, Form::Binary, tensor(z.re), number(s.imag()));
  c.binary(dst.im, HAL_OP_ADD, Form::Binary, tensor(dst.im), tensor(t));
}

// ATen's CPU computes a batched product (bmm, baddbmm) with K * M * N below 400 by a plain loop: each element of
// the result is the sum, from k = 0 on, of complex products each rounded as ATen's complex multiplication rounds
// it (re = Ar Br - Ai Bi: two rounded products, then their rounded difference; im likewise). Where the parts
// cancel, that differs from a GEMM's sums by several times complex64's tolerance (OpInfo's baddbmm and matmul
// samples; neither is the exact result), so products this small are computed in that order.
constexpr int64_t kAtenSmallBatchedProduct = 400;  // aten/src/ATen/native/LinearAlgebra.cpp, bmm_out_or_baddbmm_

bool sums_in_atens_loop_order(const at::Tensor& out, int64_t k) {
  return out.dim() == 3 && k > 0 && k * out.size(1) * out.size(2) < kAtenSmallBatchedProduct;
}

// The product of a [B, M, K] and b [B, K, N] into `product` (planar [2, B, M, N]) in the order of ATen's loop:
// the complex products for every (b, m, n, k) by elementwise kernels, then their sums over k by a GEMM with a
// column of ones, which adds the terms one after the other into one accumulator (fma(t, 1, acc) rounds as t +
// acc). False when a launch is refused.
bool product_in_atens_loop_order(Composer& c, const Planar& product, const Stored& a, const Stored& b) {
  const int64_t batch = a.values.size(0), m = a.values.size(1), k = a.values.size(2), n = b.values.size(2);
  const at::TensorOptions real_options = product.both.options();
  const std::array<int64_t, 4> term_sizes{batch, m, n, k};
  const auto from_a = [&](const at::Tensor& part) { return part.unsqueeze(2).expand(term_sizes); };
  const auto from_b = [&](const at::Tensor& part) { return part.transpose(1, 2).unsqueeze(1).expand(term_sizes); };
  const RealParts ap = parts_of(a.values), bp = parts_of(b.values);
  const Planar terms = planar_temp(term_sizes, real_options);
  const RealParts t = terms.parts();
  const at::Tensor scratch = at::empty(term_sizes, real_options);
  // With the stored imaginary parts (a conjugate's are the negatives of its values'), for ai, bi the signs they
  // carry: re = Ar Br - ai bi Ai Bi, im = bi (Ar Bi + ai bi Ai Br); the sign bi goes into the sums' alpha.
  const bool one_conjugate = a.conjugated != b.conjugated;
  c.binary(t.re, HAL_OP_MUL, Form::Binary, tensor(from_a(ap.re)), tensor(from_b(bp.re)));
  c.binary(scratch, HAL_OP_MUL, Form::Binary, tensor(from_a(ap.im)), tensor(from_b(bp.im)));
  c.binary(t.re, one_conjugate ? HAL_OP_ADD : HAL_OP_SUB, Form::Binary, tensor(t.re), tensor(scratch));
  c.binary(t.im, HAL_OP_MUL, Form::Binary, tensor(from_a(ap.re)), tensor(from_b(bp.im)));
  c.binary(scratch, HAL_OP_MUL, Form::Binary, tensor(from_a(ap.im)), tensor(from_b(bp.re)));
  c.binary(t.im, one_conjugate ? HAL_OP_SUB : HAL_OP_ADD, Form::Binary, tensor(t.im), tensor(scratch));
  const at::Tensor ones = at::empty({k, 1}, real_options);
  c.fill(ones, 1.0);
  if (!c.ok()) return false;
  const double sign = a.negated != b.negated ? -1.0 : 1.0;
  const int64_t elements = batch * m * n;
  const RealParts p = product.parts();
  return gemm(p.re.view({elements, 1}), t.re.view({elements, k}), ones, at::Tensor(), 0.0, sign) &&
         gemm(p.im.view({elements, 1}), t.im.view({elements, k}), ones, at::Tensor(), 0.0,
              b.conjugated ? -sign : sign);
}

// out = beta * c + alpha * product as ATen's kernels compute it (each complex product rounded part by part, then
// the sum), `out` written by the last launch only. c: its stored elements, `conjugated` as stored_of says, its
// negation already in beta; undefined when beta is 0.
bool combine_as_aten(Composer& composer, const at::Tensor& out, const Planar& product, Complex alpha, const Stored& c,
                     Complex beta) {
  const at::TensorOptions real_options = product.both.options();
  Planar scaled = product;
  if (alpha != Complex(1.0, 0.0)) {
    scaled = planar_temp(out.sizes(), real_options);
    write_scaled(composer, scaled.parts(), product.parts(), false, alpha);
  }
  if (!c.values.defined()) {
    composer.copy(at::view_as_real(out), scaled.pairs());
    return composer.ok();
  }
  // beta * c: c's own elements where beta is 1 and the final add may read them while writing out (the same
  // elements in place, or memory apart); else written into a temporary first.
  const at::Tensor expanded = c.values.expand(out.sizes());
  at::Tensor addend = at::view_as_real(expanded);
  if (beta != Complex(1.0, 0.0) || c.conjugated || (expanded.is_alias_of(out) && !same_geometry(expanded, out))) {
    const Planar y = planar_temp(out.sizes(), real_options);
    write_scaled(composer, y.parts(), parts_of(expanded), c.conjugated, beta);
    addend = y.pairs();
  }
  composer.binary(at::view_as_real(out), HAL_OP_ADD, Form::Binary, tensor(addend), tensor(scaled.pairs()));
  return composer.ok();
}

}  // namespace

bool complex_gemm(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, const at::Tensor& c,
                  const c10::Scalar& beta, const c10::Scalar& alpha) {
  const at::ScalarType type = out.scalar_type();
  if (!complex_in_abi_parts(type) || a.scalar_type() != type || b.scalar_type() != type) return false;
  if (c.defined() && c.scalar_type() != type) return false;
  if (out.is_conj() || out.is_neg()) return false;  // written through its real view, which has no lazy bits
  if (out.numel() == 0) return true;
  const at::ScalarType real = c10::toRealValueType(type);
  const at::TensorOptions real_options = out.options().dtype(real);

  const Stored sa = stored_of(a), sb = stored_of(b);
  // beta == 0 ignores c, its NaNs included (ATen's rule); c's negation goes into beta.
  Complex beta_value = beta.toComplexDouble();
  const Stored sc = c.defined() && beta_value != Complex(0.0, 0.0) ? stored_of(c) : Stored{};
  if (sc.negated) beta_value = -beta_value;
  const Complex alpha_value = alpha.toComplexDouble();
  const bool real_scalars = alpha_value.imag() == 0 && beta_value.imag() == 0;

  Composer composer(out.sizes(), real, real_options);
  const Planar product = planar_temp(out.sizes(), real_options);
  if (sums_in_atens_loop_order(out, a.size(-1))) {
    if (!product_in_atens_loop_order(composer, product, sa, sb)) return false;
    return combine_as_aten(composer, out, product, alpha_value, sc, beta_value);
  }
  const RealParts pa = planar_copy(composer, sa.values).parts(), pb = planar_copy(composer, sb.values).parts();
  if (!composer.ok()) return false;

  // The signs the lazy bits put on the products: -1 for a negated product, for a conjugated A's imaginary parts
  // (Ai = -stored), for a conjugated B's. A real alpha scales all four.
  const double sign = (sa.negated != sb.negated ? -1.0 : 1.0) * (real_scalars ? alpha_value.real() : 1.0);
  const double ai = sa.conjugated ? -1.0 : 1.0, bi = sb.conjugated ? -1.0 : 1.0;
  // A real beta: c's parts are the first GEMMs' c (a conjugated c's imaginary parts with the sign flipped).
  RealParts cp;
  double beta_re = 0, beta_im = 0;
  if (real_scalars && sc.values.defined()) {
    cp = parts_of(sc.values.expand(out.sizes()));
    beta_re = beta_value.real();
    beta_im = sc.conjugated ? -beta_re : beta_re;
  }
  const RealParts p = product.parts();
  // re = Ar Br - Ai Bi, im = Ar Bi + Ai Br; the GEMM refused (an adapter without the real dtype's GEMM) at the
  // first, before anything but temporaries is written.
  const bool multiplied = gemm(p.re, pa.re, pb.re, cp.re, beta_re, sign) &&
                          gemm(p.re, pa.im, pb.im, p.re, 1.0, -sign * ai * bi) &&
                          gemm(p.im, pa.re, pb.im, cp.im, beta_im, sign * bi) &&
                          gemm(p.im, pa.im, pb.re, p.im, 1.0, sign * ai);
  if (!multiplied) return false;
  if (!real_scalars) return combine_as_aten(composer, out, product, alpha_value, sc, beta_value);
  composer.copy(at::view_as_real(out), product.pairs());
  return composer.ok();
}

}  // namespace torch_hal::native
