// The kernel library's dense linear algebra (kernels/dense_linalg.cuh) compiled as plain C++ and checked by what
// each factorization promises: the factors multiply back to the matrix, the orthogonal ones are orthogonal, the
// triangular ones triangular, the orders and LAPACK's conventions (pivots, info, tau) hold; real and complex,
// square, tall and wide, rank-deficient and singular. The same source runs one matrix per GPU thread (linalg.cu:
// checked against LAPACK through torch.linalg in tests/gpu/test_native_linalg.py); here CI checks its math.
#define HAL_GPU_HOST_ONLY 1
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/dense_linalg.cuh"

namespace hal_gpu::linalg {
namespace {

using C = Complex<double>;

template <class S> S from(double re, double im);
template <> double from<double>(double re, double) { return re; }
template <> C from<C>(double re, double im) { return {re, im}; }

// A column-major matrix that owns its storage.
template <class S>
struct Dense {
  int64_t rows, cols;
  std::vector<S> data;
  Dense(int64_t r, int64_t c) : rows(r), cols(c), data(r * c, from<S>(0, 0)) {}
  MatrixRef<S> ref() { return {data.data(), rows, cols, 1, rows}; }
  S& operator()(int64_t i, int64_t j) { return data[i + j * rows]; }
};

template <class S>
Dense<S> random_matrix(int64_t r, int64_t c, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Dense<S> a(r, c);
  for (auto& x : a.data) x = from<S>(u(gen), u(gen));
  return a;
}
template <class S>
Dense<S> identity(int64_t n, int64_t c) {
  Dense<S> a(n, c);
  for (int64_t i = 0; i < std::min(n, c); ++i) a(i, i) = from<S>(1, 0);
  return a;
}
template <class S>
Dense<S> product(Dense<S>& a, Dense<S>& b) {
  Dense<S> c(a.rows, b.cols);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < b.cols; ++j) {
      S s = from<S>(0, 0);
      for (int64_t k = 0; k < a.cols; ++k) s = s + a(i, k) * b(k, j);
      c(i, j) = s;
    }
  return c;
}
template <class S>
Dense<S> adjoint(Dense<S>& a) {
  Dense<S> t(a.cols, a.rows);
  for (int64_t i = 0; i < a.rows; ++i)
    for (int64_t j = 0; j < a.cols; ++j) t(j, i) = conj_of(a(i, j));
  return t;
}
template <class S>
double max_difference(Dense<S>& a, Dense<S>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.data.size(); ++i) worst = std::max(worst, std::sqrt(abs2(a.data[i] - b.data[i])));
  return worst;
}
template <class S>
void expect_orthonormal_columns(Dense<S>& q) {
  Dense<S> qh = adjoint(q);
  Dense<S> g = product(qh, q);
  Dense<S> eye = identity<S>(q.cols, q.cols);
  EXPECT_LT(max_difference(g, eye), 1e-12);
}

template <class S>
class DenseLinalg : public ::testing::Test {};
using Scalars = ::testing::Types<double, C>;
TYPED_TEST_SUITE(DenseLinalg, Scalars);

TYPED_TEST(DenseLinalg, LuFactorsMultiplyBackWithPivots) {
  using S = TypeParam;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 5}, {7, 4}, {3, 6}}) {
    Dense<S> a = random_matrix<S>(m, n, 1), lu = a;
    const int64_t k = std::min(m, n);
    std::vector<int32_t> pivots(k);
    int32_t info = -1;
    lu_factor(lu.ref(), pivots.data(), 1, &info, true);
    EXPECT_EQ(info, 0);
    Dense<S> l(m, k), u(k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (i > j && j < k) l(i, j) = lu(i, j);
        if (i <= j && i < k) u(i, j) = lu(i, j);
      }
    for (int64_t j = 0; j < k; ++j) l(j, j) = from<S>(1, 0);
    Dense<S> pa = a;  // P^T A: the swaps applied to A's rows in order
    for (int64_t j = 0; j < k; ++j) {
      EXPECT_GE(pivots[j], j + 1);
      for (int64_t c = 0; c < n; ++c) swap_values(pa(j, c), pa(pivots[j] - 1, c));
    }
    Dense<S> prod = product(l, u);
    EXPECT_LT(max_difference(prod, pa), 1e-12) << m << "x" << n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) {  // partial pivoting by |re| + |im|: |l| <= sqrt(2)
        EXPECT_LE(std::sqrt(abs2(l(i, j))), std::sqrt(2.0) + 1e-12);
      }
  }
}

TYPED_TEST(DenseLinalg, LuReportsTheFirstZeroPivot) {
  using S = TypeParam;
  std::vector<int32_t> pivots(4);
  int32_t info = -1;
  Dense<S> exact(4, 4);  // exactly singular: column 1 is zero
  for (int64_t i = 0; i < 4; ++i) {
    exact(i, 0) = from<S>(i + 1.0, 0);
    exact(i, 2) = from<S>(1, i);
    exact(i, 3) = from<S>(2, 0);
  }
  lu_factor(exact.ref(), pivots.data(), 1, &info, true);
  EXPECT_EQ(info, 2);
  Dense<S> no_pivot = random_matrix<S>(3, 3, 3);
  lu_factor(no_pivot.ref(), pivots.data(), 1, &info, false);
  EXPECT_EQ(pivots[0], 1);
  EXPECT_EQ(pivots[1], 2);
  EXPECT_EQ(pivots[2], 3);
}

TYPED_TEST(DenseLinalg, TriangularSolvesEveryForm) {
  using S = TypeParam;
  const int64_t n = 6;
  Dense<S> t = random_matrix<S>(n, n, 4);
  for (int64_t i = 0; i < n; ++i) t(i, i) = t(i, i) + from<S>(3, 0);  // well conditioned
  for (bool upper : {false, true})
    for (bool unit : {false, true})
      for (bool conjugate : {false, true}) {
        Dense<S> tri(n, n);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const S tij = conjugate ? conj_of(t(i, j)) : t(i, j);
            if (i == j) tri(i, j) = unit ? from<S>(1, 0) : tij;
            else if ((i < j) == upper) tri(i, j) = tij;
          }
        Dense<S> x = random_matrix<S>(n, 1, 5);
        Dense<S> b = product(tri, x);
        triangular_solve(t.ref(), b.data.data(), 1, upper, unit, conjugate);
        EXPECT_LT(max_difference(b, x), 1e-12) << upper << unit << conjugate;
      }
}

TYPED_TEST(DenseLinalg, CholeskyOfAPositiveDefiniteMatrix) {
  using S = TypeParam;
  const int64_t n = 5;
  Dense<S> b = random_matrix<S>(n, n, 6);
  Dense<S> bh = adjoint(b);
  Dense<S> a = product(b, bh);
  for (int64_t i = 0; i < n; ++i) a(i, i) = a(i, i) + from<S>(1, 0);
  Dense<S> l = a;
  int32_t info = -1;
  cholesky_lower<S, double>(l.ref(), &info);
  EXPECT_EQ(info, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) l(i, j) = from<S>(0, 0);  // the upper triangle was left alone
  Dense<S> lh = adjoint(l);
  Dense<S> back = product(l, lh);
  EXPECT_LT(max_difference(back, a), 1e-12);
  // Not positive definite: the order of the first failing minor.
  Dense<S> bad = a;
  bad(2, 2) = from<S>(-1, 0);
  cholesky_lower<S, double>(bad.ref(), &info);
  EXPECT_EQ(info, 3);
}

TYPED_TEST(DenseLinalg, HouseholderQrAndItsReflectors) {
  using S = TypeParam;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{6, 4}, {4, 4}, {3, 5}}) {
    Dense<S> a = random_matrix<S>(m, n, 7), qr = a;
    const int64_t k = std::min(m, n);
    std::vector<S> tau(k);
    householder_qr<S, double>(qr.ref(), tau.data(), 1);
    Dense<S> q = identity<S>(m, m);
    apply_householder<S, double>(qr.ref(), tau.data(), 1, k, q.ref(), /*left=*/true, /*adjoint=*/false);
    expect_orthonormal_columns(q);
    Dense<S> r(m, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = i; j < n; ++j) r(i, j) = qr(i, j);
    for (int64_t i = 0; i < k; ++i) EXPECT_NEAR(imag_of(r(i, i)), 0.0, 1e-15);  // LAPACK: R's diagonal real
    Dense<S> back = product(q, r);
    EXPECT_LT(max_difference(back, a), 1e-12) << m << "x" << n;
    // Q^H (Q C) = C from the left, (C Q) Q^H = C from the right.
    Dense<S> c = random_matrix<S>(m, 3, 8), qc = c;
    apply_householder<S, double>(qr.ref(), tau.data(), 1, k, qc.ref(), true, false);
    Dense<S> qc_direct = product(q, c);
    EXPECT_LT(max_difference(qc, qc_direct), 1e-12);
    apply_householder<S, double>(qr.ref(), tau.data(), 1, k, qc.ref(), true, true);
    EXPECT_LT(max_difference(qc, c), 1e-12);
    Dense<S> d = random_matrix<S>(2, m, 9), dq = d;
    apply_householder<S, double>(qr.ref(), tau.data(), 1, k, dq.ref(), false, false);
    Dense<S> dq_direct = product(d, q);
    EXPECT_LT(max_difference(dq, dq_direct), 1e-12);
    apply_householder<S, double>(qr.ref(), tau.data(), 1, k, dq.ref(), false, true);
    EXPECT_LT(max_difference(dq, d), 1e-12);
  }
}

TYPED_TEST(DenseLinalg, HermitianEigenFromEitherTriangle) {
  using S = TypeParam;
  const int64_t n = 6;
  Dense<S> b = random_matrix<S>(n, n, 10);
  Dense<S> bh = adjoint(b);
  Dense<S> a(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) a(i, j) = b(i, j) + bh(i, j);
  for (bool upper : {false, true}) {
    Dense<S> work = a;
    // The triangle not read holds garbage.
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if ((i < j) != upper && i != j) work(i, j) = from<S>(99, -7);
    Dense<S> v(n, n);
    std::vector<double> w(n);
    int32_t info = -1;
    hermitian_eigen<S, double>(work.ref(), upper, w.data(), 1, v.ref(), true, &info);
    EXPECT_EQ(info, 0);
    for (int64_t i = 1; i < n; ++i) EXPECT_LE(w[i - 1], w[i]);
    expect_orthonormal_columns(v);
    Dense<S> av = product(a, v), vw = v;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) vw(i, j) = w[j] * v(i, j);
    EXPECT_LT(max_difference(av, vw), 1e-11);
  }
}

TYPED_TEST(DenseLinalg, SingularValuesThinFullAndRankDeficient) {
  using S = TypeParam;
  for (int64_t rank : {4, 2}) {
    const int64_t m = 7, n = 4;
    Dense<S> a = random_matrix<S>(m, n, 11);
    if (rank < n) {  // columns 2 and 3 copies of 0 and 1
      for (int64_t i = 0; i < m; ++i) a(i, 2) = a(i, 0), a(i, 3) = a(i, 1);
    }
    for (int64_t u_cols : {n, m}) {
      Dense<S> work = a, u(m, u_cols), v(n, n);
      std::vector<double> s(n);
      bool keep[16];
      int32_t info = -1;
      singular_values<S, double>(work.ref(), s.data(), 1, u.ref(), v.ref(), true, keep, &info);
      EXPECT_EQ(info, 0);
      for (int64_t i = 1; i < n; ++i) EXPECT_GE(s[i - 1], s[i]);
      if (rank < n) EXPECT_LT(s[n - 1], 1e-12 * s[0]);
      expect_orthonormal_columns(u);
      expect_orthonormal_columns(v);
      Dense<S> us(m, n);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) us(i, j) = s[j] * u(i, j);
      Dense<S> vh = adjoint(v);
      Dense<S> back = product(us, vh);
      EXPECT_LT(max_difference(back, a), 1e-12) << "rank " << rank << ", u columns " << u_cols;
    }
  }
}

TYPED_TEST(DenseLinalg, LdlFactorsAndSolvesWithBunchKaufmanPivots) {
  using S = TypeParam;
  const int64_t n = 6;
  for (bool hermitian : {false, true}) {
    for (int variant = 0; variant < 2; ++variant) {
      Dense<S> b = random_matrix<S>(n, n, 12 + variant);
      Dense<S> a(n, n);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const S other = hermitian ? conj_of(b(j, i)) : b(j, i);
          a(i, j) = b(i, j) + other;
        }
      if (variant == 1) {  // a zero diagonal: every pivot must be a 2x2 block or an interchange
        for (int64_t i = 0; i < n; ++i) a(i, i) = from<S>(0, 0);
      }
      Dense<S> ld = a;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j) ld(i, j) = from<S>(77, 3);  // the upper triangle is never read
      std::vector<int32_t> pivots(n);
      int32_t info = -1;
      ldl_factor_lower<S, double>(ld.ref(), pivots.data(), 1, &info, hermitian);
      EXPECT_EQ(info, 0);
      bool two_by_two = false;
      for (int64_t k = 0; k < n; ++k) two_by_two |= pivots[k] < 0;
      if (variant == 1) EXPECT_TRUE(two_by_two);
      Dense<S> x = random_matrix<S>(n, 1, 20), rhs = product(a, x);
      ldl_solve_lower<S, double>(ld.ref(), pivots.data(), 1, rhs.data.data(), 1, hermitian);
      EXPECT_LT(max_difference(rhs, x), 1e-10) << "hermitian " << hermitian << ", variant " << variant;
    }
  }
}

// float32 matrices are factored in float32 (linalg.cu's LDL_FACTOR): the same routine in W = float keeps its
// pivots and its factors agree with the float64 ones to float32's rounding.
TEST(DenseLinalgFloat32, LdlFactorsInFloat32AgreeWithFloat64) {
  const int64_t n = 6;
  Dense<double> b = random_matrix<double>(n, n, 31);
  Dense<double> a(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) a(i, j) = b(i, j) + b(j, i);
  std::vector<float> single(n * n);
  for (int64_t i = 0; i < n * n; ++i) single[i] = static_cast<float>(a.data[i]);
  Dense<double> wide = a;
  for (int64_t i = 0; i < n * n; ++i) wide.data[i] = single[i];  // the float32 matrix, exactly
  std::vector<int32_t> pivots64(n), pivots32(n);
  int32_t info64 = -1, info32 = -1;
  ldl_factor_lower<double, double>(wide.ref(), pivots64.data(), 1, &info64, false);
  ldl_factor_lower<float, float>(MatrixRef<float>{single.data(), n, n, 1, n}, pivots32.data(), 1, &info32, false);
  EXPECT_EQ(info32, 0);
  EXPECT_EQ(pivots32, pivots64);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j; i < n; ++i) EXPECT_NEAR(single[i + j * n], wide(i, j), 1e-4 * (1 + std::abs(wide(i, j))));
}

}  // namespace
}  // namespace hal_gpu::linalg
