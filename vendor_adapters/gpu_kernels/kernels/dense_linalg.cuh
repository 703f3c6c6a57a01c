// Dense linear algebra on one matrix at a time: LU with partial pivoting, triangular solves, Cholesky, Householder
// QR and the application of its reflectors, the Hermitian eigenproblem and the singular value decomposition by
// Jacobi rotations. LAPACK's conventions throughout (1-based pivots, info codes, tau and the reflectors' storage),
// so that ATen's linear algebra, written around LAPACK, takes the results as they are.
//
// Each routine is sequential code for one matrix: the linalg family (linalg.cu) runs one thread per matrix of a
// batch (or per right-hand side), and the plain C++ test (tests/cpp/dense_linalg_test.cpp) runs the very same
// code on the CPU. That is right for the many small matrices of batched solvers and of PyTorch's own tests; large
// matrices want work-group (blocked) versions, which the glue does not route here (linalg_ops.cpp states the limit).
//
// Scalars are W (the glue computes in double) or Complex<W>; a matrix is read and written in place through its
// row and column strides, so transposed views cost nothing (the glue passes a transposed view for upper Cholesky
// and for transposed solves). The algorithms are the textbook ones (Golub & Van Loan; LAPACK's xGETF2, xPOTF2,
// xGEQR2, xLARFG, xORM2R; the cyclic Jacobi methods for eigenvalues and, one-sided, for singular values).
#pragma once

#include "kernels/gpu_runtime.h"

namespace hal_gpu::linalg {

template <class W>
struct Complex {
  W re, im;
};

// The arithmetic the routines are written in, for W and Complex<W> alike.
template <class W> __host__ __device__ __forceinline__ W make_scalar(W re, W, W*) { return re; }
template <class W> __host__ __device__ __forceinline__ Complex<W> make_scalar(W re, W im, Complex<W>*) {
  return {re, im};
}
template <class W> __host__ __device__ __forceinline__ W real_of(W x) { return x; }
template <class W> __host__ __device__ __forceinline__ W real_of(Complex<W> x) { return x.re; }
template <class W> __host__ __device__ __forceinline__ W imag_of(W) { return W(0); }
template <class W> __host__ __device__ __forceinline__ W imag_of(Complex<W> x) { return x.im; }
template <class W> __host__ __device__ __forceinline__ W conj_of(W x) { return x; }
template <class W> __host__ __device__ __forceinline__ Complex<W> conj_of(Complex<W> x) { return {x.re, -x.im}; }
template <class W> __host__ __device__ __forceinline__ W abs2(W x) { return x * x; }
template <class W> __host__ __device__ __forceinline__ W abs2(Complex<W> x) { return x.re * x.re + x.im * x.im; }
// LAPACK's pivot measure (xCABS1 for complex: |re| + |im|), so that pivots are chosen as the CPU chooses them.
template <class W> __host__ __device__ __forceinline__ W pivot_size(W x) { return x < W(0) ? -x : x; }
template <class W> __host__ __device__ __forceinline__ W pivot_size(Complex<W> x) {
  return (x.re < W(0) ? -x.re : x.re) + (x.im < W(0) ? -x.im : x.im);
}
template <class W> __host__ __device__ __forceinline__ bool is_zero(W x) { return x == W(0); }
template <class W> __host__ __device__ __forceinline__ bool is_zero(Complex<W> x) {
  return x.re == W(0) && x.im == W(0);
}
template <class W> __host__ __device__ __forceinline__ Complex<W> operator+(Complex<W> a, Complex<W> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class W> __host__ __device__ __forceinline__ Complex<W> operator-(Complex<W> a, Complex<W> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class W> __host__ __device__ __forceinline__ Complex<W> operator*(Complex<W> a, Complex<W> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class W> __host__ __device__ __forceinline__ Complex<W> operator*(W a, Complex<W> b) {
  return {a * b.re, a * b.im};
}
// Smith's division: no overflow for large parts.
template <class W> __host__ __device__ __forceinline__ Complex<W> operator/(Complex<W> a, Complex<W> b) {
  const W abs_re = b.re < W(0) ? -b.re : b.re, abs_im = b.im < W(0) ? -b.im : b.im;
  if (abs_re >= abs_im) {
    const W r = b.im / b.re, d = b.re + b.im * r;
    return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
  }
  const W r = b.re / b.im, d = b.re * r + b.im;
  return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
}
template <class W> __host__ __device__ __forceinline__ Complex<W> operator/(Complex<W> a, W b) {
  return {a.re / b, a.im / b};
}

// One matrix in memory: element (i, j) at base[i * row_stride + j * col_stride] (strides in scalars of S).
template <class S>
struct MatrixRef {
  S* base;
  int64_t rows, cols, row_stride, col_stride;
  __host__ __device__ __forceinline__ S& operator()(int64_t i, int64_t j) const {
    return base[i * row_stride + j * col_stride];
  }
  __host__ __device__ __forceinline__ MatrixRef transposed() const {
    return {base, cols, rows, col_stride, row_stride};
  }
};

template <class S>
__host__ __device__ __forceinline__ void swap_values(S& a, S& b) {
  const S t = a;
  a = b;
  b = t;
}

// xGETRF (unblocked): A = P L U in place, L unit lower (below the diagonal), U upper; pivots[j] the 1-based row
// swapped with row j. info: 0, or the 1-based index of the first zero pivot (the factorization goes on, as
// LAPACK's does). Without pivoting, pivots[j] = j + 1.
template <class S>
__host__ __device__ void lu_factor(MatrixRef<S> a, int32_t* pivots, int64_t pivot_stride, int32_t* info,
                                   bool pivot) {
  using W = decltype(real_of(S{}));
  const int64_t k = a.rows < a.cols ? a.rows : a.cols;
  int32_t first_zero = 0;
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    if (pivot) {
      W best = pivot_size(a(j, j));
      for (int64_t i = j + 1; i < a.rows; ++i) {
        const W size = pivot_size(a(i, j));
        if (size > best) best = size, p = i;
      }
    }
    pivots[j * pivot_stride] = static_cast<int32_t>(p + 1);
    if (!is_zero(a(p, j))) {
      if (p != j) {
        for (int64_t c = 0; c < a.cols; ++c) swap_values(a(j, c), a(p, c));
      }
      const S d = a(j, j);
      for (int64_t i = j + 1; i < a.rows; ++i) a(i, j) = a(i, j) / d;
    } else if (first_zero == 0) {
      first_zero = static_cast<int32_t>(j + 1);
    }
    for (int64_t c = j + 1; c < a.cols; ++c) {
      const S u = a(j, c);
      if (is_zero(u)) continue;
      for (int64_t i = j + 1; i < a.rows; ++i) a(i, c) = a(i, c) - a(i, j) * u;
    }
  }
  *info = first_zero;
}

// Solves T x = b in place for one right-hand side (b: n values at stride b_stride): T lower or upper triangular
// (only that triangle is read), conjugated when `conjugate`, with a unit diagonal when `unit`.
template <class S>
__host__ __device__ void triangular_solve(MatrixRef<S> t, S* b, int64_t b_stride, bool upper, bool unit,
                                          bool conjugate) {
  const int64_t n = t.rows;
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = upper ? n - 1 - step : step;
    S x = b[i * b_stride];
    if (upper) {
      for (int64_t j = i + 1; j < n; ++j) {
        const S tij = conjugate ? conj_of(t(i, j)) : t(i, j);
        x = x - tij * b[j * b_stride];
      }
    } else {
      for (int64_t j = 0; j < i; ++j) {
        const S tij = conjugate ? conj_of(t(i, j)) : t(i, j);
        x = x - tij * b[j * b_stride];
      }
    }
    if (!unit) x = x / (conjugate ? conj_of(t(i, i)) : t(i, i));
    b[i * b_stride] = x;
  }
}

// xLASWP on one column: the row interchanges of `pivots` (1-based) applied in order, or in reverse.
template <class S>
__host__ __device__ void swap_rows(S* b, int64_t b_stride, const int32_t* pivots, int64_t pivot_stride, int64_t k,
                                   bool reverse) {
  for (int64_t step = 0; step < k; ++step) {
    const int64_t j = reverse ? k - 1 - step : step;
    const int64_t p = pivots[j * pivot_stride] - 1;
    if (p != j) swap_values(b[j * b_stride], b[p * b_stride]);
  }
}

// The permutation of ATen's unpack_pivots: perm (already 0..m-1) with the swaps of `pivots` applied in order.
__host__ __device__ inline void pivots_to_permutation(int64_t* perm, int64_t perm_stride, const int32_t* pivots,
                                                      int64_t pivot_stride, int64_t k) {
  for (int64_t j = 0; j < k; ++j) {
    const int64_t p = pivots[j * pivot_stride] - 1;
    if (p != j) swap_values(perm[j * perm_stride], perm[p * perm_stride]);
  }
}

// xPOTRF (unblocked, lower): A = L L^H, L written over the lower triangle (only the lower triangle is read).
// info: 0, or the 1-based order of the first leading minor that is not positive definite (then L is partial).
template <class S, class W>
__host__ __device__ void cholesky_lower(MatrixRef<S> a, int32_t* info) {
  const int64_t n = a.rows;
  for (int64_t j = 0; j < n; ++j) {
    W d = real_of(a(j, j));
    for (int64_t k = 0; k < j; ++k) d -= abs2(a(j, k));
    if (!(d > W(0))) {  // also NaN
      *info = static_cast<int32_t>(j + 1);
      return;
    }
    const W root = ::sqrt(d);
    a(j, j) = make_scalar(root, W(0), static_cast<S*>(nullptr));
    for (int64_t i = j + 1; i < n; ++i) {
      S x = a(i, j);
      for (int64_t k = 0; k < j; ++k) x = x - a(i, k) * conj_of(a(j, k));
      a(i, j) = x / make_scalar(root, W(0), static_cast<S*>(nullptr));
    }
  }
  *info = 0;
}

// xGEQR2 with xLARFG: A = Q R, R on and above the diagonal, the reflectors' vectors below it (v[j] = 1 implied),
// tau[j] their factors: Q = H_0 H_1 ... H_{k-1}, H_j = I - tau_j v_j v_j^H.
template <class S, class W>
__host__ __device__ void householder_qr(MatrixRef<S> a, S* tau, int64_t tau_stride) {
  const int64_t k = a.rows < a.cols ? a.rows : a.cols;
  for (int64_t j = 0; j < k; ++j) {
    const S alpha = a(j, j);
    W xnorm2 = W(0);
    for (int64_t i = j + 1; i < a.rows; ++i) xnorm2 += abs2(a(i, j));
    S t = make_scalar(W(0), W(0), static_cast<S*>(nullptr));
    if (xnorm2 != W(0) || imag_of(alpha) != W(0)) {
      const W ar = real_of(alpha), ai = imag_of(alpha);
      const W norm = ::sqrt(ar * ar + ai * ai + xnorm2);
      const W beta = ar >= W(0) ? -norm : norm;
      t = make_scalar((beta - ar) / beta, -ai / beta, static_cast<S*>(nullptr));
      const S scale = make_scalar(W(1), W(0), static_cast<S*>(nullptr)) /
                      (alpha - make_scalar(beta, W(0), static_cast<S*>(nullptr)));
      for (int64_t i = j + 1; i < a.rows; ++i) a(i, j) = a(i, j) * scale;
      a(j, j) = make_scalar(beta, W(0), static_cast<S*>(nullptr));
    }
    tau[j * tau_stride] = t;
    // H_j^H (conj(tau)) applied from the left to the columns on the right.
    const S tc = conj_of(t);
    if (is_zero(t)) continue;
    for (int64_t c = j + 1; c < a.cols; ++c) {
      S w = a(j, c);
      for (int64_t i = j + 1; i < a.rows; ++i) w = w + conj_of(a(i, j)) * a(i, c);
      w = tc * w;
      a(j, c) = a(j, c) - w;
      for (int64_t i = j + 1; i < a.rows; ++i) a(i, c) = a(i, c) - a(i, j) * w;
    }
  }
}

// xORM2R / xUNM2R: C = op(Q) C (left) or C op(Q) (right), op(Q) = Q or Q^H, Q = H_0 ... H_{k-1} from the
// reflectors below the diagonal of v (v[j][j] = 1 implied) and tau.
template <class S, class W>
__host__ __device__ void apply_householder(MatrixRef<S> v, const S* tau, int64_t tau_stride, int64_t k,
                                           MatrixRef<S> c, bool left, bool adjoint) {
  // Left: Q C applies H_{k-1} first; Q^H C applies H_0^H first. Right: C Q applies H_0 first; C Q^H H_{k-1}^H.
  const bool forward = left == adjoint;
  const int64_t length = left ? c.rows : c.cols;  // the reflectors' length
  for (int64_t step = 0; step < k; ++step) {
    const int64_t j = forward ? step : k - 1 - step;
    const S t = adjoint ? conj_of(tau[j * tau_stride]) : tau[j * tau_stride];
    if (is_zero(t)) continue;
    const auto vi = [&](int64_t i) {  // the reflector's i-th entry
      return i == j ? make_scalar(W(1), W(0), static_cast<S*>(nullptr)) : v(i, j);
    };
    if (left) {  // C -= t v (v^H C)
      for (int64_t col = 0; col < c.cols; ++col) {
        S w = make_scalar(W(0), W(0), static_cast<S*>(nullptr));
        for (int64_t i = j; i < length; ++i) w = w + conj_of(vi(i)) * c(i, col);
        w = t * w;
        for (int64_t i = j; i < length; ++i) c(i, col) = c(i, col) - vi(i) * w;
      }
    } else {  // C -= t (C v) v^H
      for (int64_t row = 0; row < c.rows; ++row) {
        S w = make_scalar(W(0), W(0), static_cast<S*>(nullptr));
        for (int64_t i = j; i < length; ++i) w = w + c(row, i) * vi(i);
        w = t * w;
        for (int64_t i = j; i < length; ++i) c(row, i) = c(row, i) - w * conj_of(vi(i));
      }
    }
  }
}

// The Bunch-Kaufman pivot measure: |x| for real x, |re| + |im| (xCABS1) for complex; `real_part_only` measures a
// Hermitian matrix's diagonal entry by its real part, as xHETF2 does.
template <class S, class W>
__host__ __device__ __forceinline__ W bunch_kaufman_size(S x, bool real_part_only) {
  if (real_part_only) {
    const W r = real_of(x);
    return r < W(0) ? -r : r;
  }
  return pivot_size(x);
}
// conj(x) for a Hermitian factorization, x for a symmetric one.
template <class S>
__host__ __device__ __forceinline__ S conj_if(S x, bool hermitian) {
  return hermitian ? conj_of(x) : x;
}
template <class S, class W>
__host__ __device__ __forceinline__ S real_scalar(W x) {
  return make_scalar(x, W(0), static_cast<S*>(nullptr));
}

// xSYTF2 / xHETF2 with UPLO = 'L': A = L D L^T (L D L^H when `hermitian`) by Bunch-Kaufman diagonal pivoting,
// L and the 1x1 and 2x2 blocks of D written over the lower triangle (only it is read), pivots as LAPACK stores
// them (k for a 1x1 block at k, -p on both rows of a 2x2 block, 1-based). info: 0, or the first zero pivot.
template <class S, class W>
__host__ __device__ void ldl_factor_lower(MatrixRef<S> a, int32_t* pivots, int64_t pivot_stride, int32_t* info,
                                          bool hermitian) {
  const int64_t n = a.rows;
  const W alpha = (W(1) + ::sqrt(W(17))) / W(8);
  int32_t first_zero = 0;
  int64_t k = 0;
  while (k < n) {
    int64_t step = 1, kp = k;
    const W absakk = bunch_kaufman_size<S, W>(a(k, k), hermitian);
    int64_t imax = k;
    W colmax = W(0);
    for (int64_t i = k + 1; i < n; ++i) {
      const W size = pivot_size(a(i, k));
      if (i == k + 1 || size > colmax) colmax = size, imax = i;
    }
    if ((absakk > colmax ? absakk : colmax) == W(0) || absakk != absakk) {
      if (first_zero == 0) first_zero = static_cast<int32_t>(k + 1);
      if (hermitian) a(k, k) = real_scalar<S, W>(real_of(a(k, k)));
    } else {
      if (!(absakk >= alpha * colmax)) {
        W rowmax = W(0);
        for (int64_t j = k; j < imax; ++j) {
          const W size = pivot_size(a(imax, j));
          if (size > rowmax) rowmax = size;
        }
        for (int64_t j = imax + 1; j < n; ++j) {
          const W size = pivot_size(a(j, imax));
          if (size > rowmax) rowmax = size;
        }
        if (absakk >= alpha * colmax * (colmax / rowmax)) {
          kp = k;
        } else if (bunch_kaufman_size<S, W>(a(imax, imax), hermitian) >= alpha * rowmax) {
          kp = imax;
        } else {
          kp = imax;
          step = 2;
        }
      }
      const int64_t kk = k + step - 1;
      if (kp != kk) {  // rows and columns kk and kp of the trailing matrix interchanged (its lower triangle)
        for (int64_t i = kp + 1; i < n; ++i) swap_values(a(i, kk), a(i, kp));
        for (int64_t j = kk + 1; j < kp; ++j) {
          const S t = conj_if(a(j, kk), hermitian);
          a(j, kk) = conj_if(a(kp, j), hermitian);
          a(kp, j) = t;
        }
        if (hermitian) a(kp, kk) = conj_of(a(kp, kk));
        swap_values(a(kk, kk), a(kp, kp));
        if (hermitian) {
          a(kk, kk) = real_scalar<S, W>(real_of(a(kk, kk)));
          a(kp, kp) = real_scalar<S, W>(real_of(a(kp, kp)));
        }
        if (step == 2) {
          if (hermitian) a(k, k) = real_scalar<S, W>(real_of(a(k, k)));
          swap_values(a(k + 1, k), a(kp, k));
        }
      } else if (hermitian) {
        a(k, k) = real_scalar<S, W>(real_of(a(k, k)));
        if (step == 2) a(k + 1, k + 1) = real_scalar<S, W>(real_of(a(k + 1, k + 1)));
      }
      if (step == 1) {  // A22 -= x d11^-1 x^T (x^H), x /= d11
        const S d11 = hermitian ? real_scalar<S, W>(W(1) / real_of(a(k, k)))
                                : make_scalar(W(1), W(0), static_cast<S*>(nullptr)) / a(k, k);
        for (int64_t j = k + 1; j < n; ++j) {
          const S xj = conj_if(a(j, k), hermitian);
          for (int64_t i = j; i < n; ++i) a(i, j) = a(i, j) - d11 * a(i, k) * xj;
          if (hermitian) a(j, j) = real_scalar<S, W>(real_of(a(j, j)));
        }
        for (int64_t i = k + 1; i < n; ++i) a(i, k) = d11 * a(i, k);
      } else if (k + 2 < n) {
        if (hermitian) {
          const W d = ::sqrt(abs2(a(k + 1, k)));
          const W d11 = real_of(a(k + 1, k + 1)) / d, d22 = real_of(a(k, k)) / d;
          const W tt = W(1) / (d11 * d22 - W(1));
          const S d21 = a(k + 1, k) / real_scalar<S, W>(d);
          const W scale = tt / d;
          for (int64_t j = k + 2; j < n; ++j) {
            const S wk = scale * (d11 * a(j, k) - d21 * a(j, k + 1));
            const S wkp1 = scale * (d22 * a(j, k + 1) - conj_of(d21) * a(j, k));
            for (int64_t i = j; i < n; ++i) a(i, j) = a(i, j) - a(i, k) * conj_of(wk) - a(i, k + 1) * conj_of(wkp1);
            a(j, k) = wk;
            a(j, k + 1) = wkp1;
            a(j, j) = real_scalar<S, W>(real_of(a(j, j)));
          }
        } else {
          const S one = make_scalar(W(1), W(0), static_cast<S*>(nullptr));
          S d21 = a(k + 1, k);
          const S d11 = a(k + 1, k + 1) / d21, d22 = a(k, k) / d21;
          const S t = one / (d11 * d22 - one);
          d21 = t / d21;
          for (int64_t j = k + 2; j < n; ++j) {
            const S wk = d21 * (d11 * a(j, k) - a(j, k + 1));
            const S wkp1 = d21 * (d22 * a(j, k + 1) - a(j, k));
            for (int64_t i = j; i < n; ++i) a(i, j) = a(i, j) - a(i, k) * wk - a(i, k + 1) * wkp1;
            a(j, k) = wk;
            a(j, k + 1) = wkp1;
          }
        }
      }
    }
    if (step == 1) {
      pivots[k * pivot_stride] = static_cast<int32_t>(kp + 1);
    } else {
      pivots[k * pivot_stride] = static_cast<int32_t>(-(kp + 1));
      pivots[(k + 1) * pivot_stride] = static_cast<int32_t>(-(kp + 1));
    }
    k += step;
  }
  *info = first_zero;
}

// xSYTRS / xHETRS with UPLO = 'L' on one right-hand side (b: n values at stride b_stride), from ldl_factor_lower's
// factors and pivots.
template <class S, class W>
__host__ __device__ void ldl_solve_lower(MatrixRef<S> a, const int32_t* pivots, int64_t pivot_stride, S* b,
                                         int64_t b_stride, bool hermitian) {
  const int64_t n = a.rows;
  const auto piv = [&](int64_t k) { return pivots[k * pivot_stride]; };
  const auto bv = [&](int64_t i) -> S& { return b[i * b_stride]; };
  // L D y = b.
  int64_t k = 0;
  while (k < n) {
    if (piv(k) > 0) {
      const int64_t kp = piv(k) - 1;
      if (kp != k) swap_values(bv(k), bv(kp));
      for (int64_t i = k + 1; i < n; ++i) bv(i) = bv(i) - a(i, k) * bv(k);
      const S one = make_scalar(W(1), W(0), static_cast<S*>(nullptr));  // a reciprocal, as xSCAL applies it
      bv(k) = (hermitian ? real_scalar<S, W>(W(1) / real_of(a(k, k))) : one / a(k, k)) * bv(k);
      k += 1;
    } else {
      const int64_t kp = -piv(k) - 1;
      if (kp != k + 1) swap_values(bv(k + 1), bv(kp));
      for (int64_t i = k + 2; i < n; ++i) bv(i) = bv(i) - a(i, k) * bv(k) - a(i, k + 1) * bv(k + 1);
      const S one = make_scalar(W(1), W(0), static_cast<S*>(nullptr));
      const S akm1k = a(k + 1, k);
      const S akm1 = a(k, k) / conj_if(akm1k, hermitian);
      const S ak = a(k + 1, k + 1) / akm1k;
      const S denom = akm1 * ak - one;
      const S bkm1 = bv(k) / conj_if(akm1k, hermitian);
      const S bk = bv(k + 1) / akm1k;
      bv(k) = (ak * bkm1 - bk) / denom;
      bv(k + 1) = (akm1 * bk - bkm1) / denom;
      k += 2;
    }
  }
  // L^T x = y (L^H).
  k = n - 1;
  while (k >= 0) {
    if (piv(k) > 0) {
      for (int64_t i = k + 1; i < n; ++i) bv(k) = bv(k) - conj_if(a(i, k), hermitian) * bv(i);
      const int64_t kp = piv(k) - 1;
      if (kp != k) swap_values(bv(k), bv(kp));
      k -= 1;
    } else {
      for (int64_t i = k + 1; i < n; ++i) {
        bv(k) = bv(k) - conj_if(a(i, k), hermitian) * bv(i);
        bv(k - 1) = bv(k - 1) - conj_if(a(i, k - 1), hermitian) * bv(i);
      }
      const int64_t kp = -piv(k) - 1;
      if (kp != k) swap_values(bv(k), bv(kp));
      k -= 2;
    }
  }
}

// The unit-modulus phase of x (1 for 0): x = |x| phase.
template <class W> __host__ __device__ __forceinline__ W phase_of(W x, W) { return x < W(0) ? W(-1) : W(1); }
template <class W> __host__ __device__ __forceinline__ Complex<W> phase_of(Complex<W> x, W magnitude) {
  return {x.re / magnitude, x.im / magnitude};
}

// The tangent of the Jacobi rotation that zeroes the coupling g (> 0) of diagonal entries a and b: the smaller
// root of t^2 + 2 zeta t - 1 = 0, zeta = (b - a) / 2g, which keeps the rotation small and the method stable.
template <class W>
__host__ __device__ __forceinline__ W jacobi_tangent(W a, W b, W g) {
  const W zeta = (b - a) / (W(2) * g);
  const W root = ::sqrt(W(1) + zeta * zeta);
  return zeta >= W(0) ? W(1) / (zeta + root) : W(-1) / (-zeta + root);
}

// The Hermitian eigenproblem A = V diag(w) V^H by cyclic Jacobi rotations. Only the upper (or lower) triangle of
// `a` is read, as LAPACK's xHEEV reads it (the other is taken as its conjugate transpose, the diagonal's
// imaginary parts as 0); `a` is destroyed, w receives the eigenvalues in ascending order, V (when wanted) the
// eigenvectors as columns. info: 0, or 1 when the sweeps did not converge.
template <class S, class W>
__host__ __device__ void hermitian_eigen(MatrixRef<S> a, bool upper, W* w, int64_t w_stride, MatrixRef<S> v,
                                         bool vectors, int32_t* info) {
  const int64_t n = a.rows;
  const S zero = make_scalar(W(0), W(0), static_cast<S*>(nullptr));
  const S one = make_scalar(W(1), W(0), static_cast<S*>(nullptr));
  for (int64_t i = 0; i < n; ++i) {
    a(i, i) = make_scalar(real_of(a(i, i)), W(0), static_cast<S*>(nullptr));
    for (int64_t j = i + 1; j < n; ++j) {
      if (upper) a(j, i) = conj_of(a(i, j));
      else a(i, j) = conj_of(a(j, i));
    }
  }
  if (vectors) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) v(i, j) = i == j ? one : zero;
  }
  int32_t status = 1;
  for (int sweep = 0; sweep < 60; ++sweep) {
    W off = W(0), total = W(0);
    for (int64_t i = 0; i < n; ++i) {
      total += abs2(a(i, i));
      for (int64_t j = i + 1; j < n; ++j) off += abs2(a(i, j));
    }
    if (off == W(0) || off <= W(1e-32) * (total + off)) {
      status = 0;
      break;
    }
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const W g = ::sqrt(abs2(a(p, q)));
        if (g == W(0)) continue;
        // Make a(p, q) real and positive: column q times conj(e), row q times e (e its phase).
        const S e = phase_of(a(p, q), g), ec = conj_of(e);
        for (int64_t i = 0; i < n; ++i) a(i, q) = a(i, q) * ec;
        for (int64_t j = 0; j < n; ++j) a(q, j) = e * a(q, j);
        if (vectors) {
          for (int64_t i = 0; i < n; ++i) v(i, q) = v(i, q) * ec;
        }
        const W t = jacobi_tangent(real_of(a(p, p)), real_of(a(q, q)), g);
        const W cs = W(1) / ::sqrt(W(1) + t * t), sn = t * cs;
        for (int64_t i = 0; i < n; ++i) {  // columns p, q
          const S x = a(i, p), y = a(i, q);
          a(i, p) = cs * x - sn * y;
          a(i, q) = sn * x + cs * y;
        }
        for (int64_t j = 0; j < n; ++j) {  // rows p, q
          const S x = a(p, j), y = a(q, j);
          a(p, j) = cs * x - sn * y;
          a(q, j) = sn * x + cs * y;
        }
        a(p, q) = zero;
        a(q, p) = zero;
        a(p, p) = make_scalar(real_of(a(p, p)), W(0), static_cast<S*>(nullptr));
        a(q, q) = make_scalar(real_of(a(q, q)), W(0), static_cast<S*>(nullptr));
        if (vectors) {
          for (int64_t i = 0; i < n; ++i) {
            const S x = v(i, p), y = v(i, q);
            v(i, p) = cs * x - sn * y;
            v(i, q) = sn * x + cs * y;
          }
        }
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) w[i * w_stride] = real_of(a(i, i));
  // Ascending order (selection sort: n is small here).
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = i;
    for (int64_t j = i + 1; j < n; ++j) {
      if (w[j * w_stride] < w[best * w_stride]) best = j;
    }
    if (best == i) continue;
    swap_values(w[i * w_stride], w[best * w_stride]);
    if (vectors) {
      for (int64_t r = 0; r < n; ++r) swap_values(v(r, i), v(r, best));
    }
  }
  *info = status;
}

// Fills column `col` of u with a unit vector orthogonal to the columns flagged in `keep` (orthonormal ones): the
// unit vector e_r farthest from their span, orthogonalized twice (Gram-Schmidt).
template <class S, class W>
__host__ __device__ void orthonormal_column(MatrixRef<S> u, int64_t col, const bool* keep) {
  const int64_t m = u.rows;
  const S zero = make_scalar(W(0), W(0), static_cast<S*>(nullptr));
  const S one = make_scalar(W(1), W(0), static_cast<S*>(nullptr));
  int64_t best_row = 0;
  W best = W(-1);
  for (int64_t r = 0; r < m; ++r) {  // |e_r - proj(e_r)|^2 = 1 - sum_c |u(r, c)|^2
    W left = W(1);
    for (int64_t c = 0; c < u.cols; ++c) {
      if (c != col && keep[c]) left -= abs2(u(r, c));
    }
    if (left > best) best = left, best_row = r;
  }
  for (int64_t i = 0; i < m; ++i) u(i, col) = i == best_row ? one : zero;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t c = 0; c < u.cols; ++c) {
      if (c == col || !keep[c]) continue;
      S d = zero;
      for (int64_t i = 0; i < m; ++i) d = d + conj_of(u(i, c)) * u(i, col);
      for (int64_t i = 0; i < m; ++i) u(i, col) = u(i, col) - u(i, c) * d;
    }
  }
  W norm2 = W(0);
  for (int64_t i = 0; i < m; ++i) norm2 += abs2(u(i, col));
  const W inv = W(1) / ::sqrt(norm2);
  for (int64_t i = 0; i < m; ++i) u(i, col) = inv * u(i, col);
}

// The thin SVD of an m x n matrix, m >= n, by one-sided Jacobi (Hestenes): `a` is rotated in place until its
// columns are orthogonal; then s[j] = |a_j| (descending), u's first n columns a_j / s[j], v the accumulated
// rotations (n x n). u (m x u.cols, u.cols >= n; may be a itself when u.cols == n) gets orthonormal columns
// wherever s[j] == 0 and past n. info: 0, or 1 when the sweeps did not converge. `keep` is scratch of
// u.cols flags.
template <class S, class W>
__host__ __device__ void singular_values(MatrixRef<S> a, W* s, int64_t s_stride, MatrixRef<S> u, MatrixRef<S> v,
                                         bool vectors, bool* keep, int32_t* info) {
  const int64_t m = a.rows, n = a.cols;
  const S zero = make_scalar(W(0), W(0), static_cast<S*>(nullptr));
  const S one = make_scalar(W(1), W(0), static_cast<S*>(nullptr));
  if (vectors) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) v(i, j) = i == j ? one : zero;
  }
  int32_t status = 1;
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        W alpha = W(0), beta = W(0);
        S gamma = zero;
        for (int64_t i = 0; i < m; ++i) {
          alpha += abs2(a(i, p));
          beta += abs2(a(i, q));
          gamma = gamma + conj_of(a(i, p)) * a(i, q);
        }
        const W g = ::sqrt(abs2(gamma));
        if (g == W(0) || g <= W(1e-15) * ::sqrt(alpha * beta)) continue;
        rotated = true;
        // Make the coupling real: column q times conj(e).
        const S ec = conj_of(phase_of(gamma, g));
        for (int64_t i = 0; i < m; ++i) a(i, q) = a(i, q) * ec;
        if (vectors) {
          for (int64_t i = 0; i < n; ++i) v(i, q) = v(i, q) * ec;
        }
        const W t = jacobi_tangent(alpha, beta, g);
        const W cs = W(1) / ::sqrt(W(1) + t * t), sn = t * cs;
        for (int64_t i = 0; i < m; ++i) {
          const S x = a(i, p), y = a(i, q);
          a(i, p) = cs * x - sn * y;
          a(i, q) = sn * x + cs * y;
        }
        if (vectors) {
          for (int64_t i = 0; i < n; ++i) {
            const S x = v(i, p), y = v(i, q);
            v(i, p) = cs * x - sn * y;
            v(i, q) = sn * x + cs * y;
          }
        }
      }
    }
    if (!rotated) {
      status = 0;
      break;
    }
  }
  // Column norms, then descending order (selection sort, moving a's and v's columns along).
  for (int64_t j = 0; j < n; ++j) {
    W norm2 = W(0);
    for (int64_t i = 0; i < m; ++i) norm2 += abs2(a(i, j));
    s[j * s_stride] = ::sqrt(norm2);
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = i;
    for (int64_t j = i + 1; j < n; ++j) {
      if (s[j * s_stride] > s[best * s_stride]) best = j;
    }
    if (best == i) continue;
    swap_values(s[i * s_stride], s[best * s_stride]);
    for (int64_t r = 0; r < m; ++r) swap_values(a(r, i), a(r, best));
    if (vectors) {
      for (int64_t r = 0; r < n; ++r) swap_values(v(r, i), v(r, best));
    }
  }
  if (vectors) {
    const W largest = n > 0 ? s[0] : W(0);
    for (int64_t j = 0; j < u.cols; ++j) {
      keep[j] = j < n && s[j * s_stride] > largest * W(1e-13);  // else a column of rounding noise
      if (!keep[j]) continue;
      const W inv = W(1) / s[j * s_stride];
      for (int64_t i = 0; i < m; ++i) u(i, j) = inv * a(i, j);
    }
    for (int64_t j = 0; j < u.cols; ++j) {
      if (keep[j]) continue;
      orthonormal_column<S, W>(u, j, keep);
      keep[j] = true;
    }
  }
  *info = status;
}

}  // namespace hal_gpu::linalg
