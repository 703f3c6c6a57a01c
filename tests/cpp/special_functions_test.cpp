// The special functions of the GPU kernel library (kernels/bessel_functions.cuh, gaussian_functions.cuh,
// incomplete_gamma.cuh, orthogonal_polynomials.cuh) compiled as plain C++ and checked by identities that tie
// each function to others or to the math library, across every branch (series, asymptotic expansions,
// integrals) and at the switch points between them: a wrong sign, term or coefficient breaks an identity.
// The same source runs on NVIDIA and AMD GPUs (compared there with mpmath: tests/gpu/test_native_special_functions.py);
// here CI checks its math without a GPU.
#define HAL_GPU_HOST_ONLY 1
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/bessel_functions.cuh"
#include "kernels/gaussian_functions.cuh"
#include "kernels/incomplete_gamma.cuh"
#include "kernels/orthogonal_polynomials.cuh"

namespace hal_gpu::special {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = HUGE_VAL;

// Points from lo to hi, the switch points of the methods among them.
std::vector<double> span(double lo, double hi, int n = 400) {
  std::vector<double> xs;
  for (int i = 0; i <= n; ++i) xs.push_back(lo + (hi - lo) * i / n);
  for (double edge : {1.0, 2.0, 8.0, 12.0, 15.0, 20.0, -8.0, -12.0, -15.0}) {
    for (double d : {-1e-9, 0.0, 1e-9}) {
      if (edge + d > lo && edge + d < hi) xs.push_back(edge + d);
    }
  }
  return xs;
}

void expect_relative(double actual, double expected, double rtol, double x) {
  EXPECT_NEAR(actual, expected, rtol * std::fabs(expected)) << "at x = " << x;
}

TEST(BesselFunctions, WronskianOfJAndY) {  // J1 Y0 - J0 Y1 = 2 / (pi x)
  for (double x : span(0.05, 60)) {
    const double w = bessel_j(x, 1) * bessel_y(x, 0) - bessel_j(x, 0) * bessel_y(x, 1);
    expect_relative(w, 2.0 / (kPi * x), 1e-11, x);
  }
}

TEST(BesselFunctions, WronskianOfIAndK) {  // I0 K1 + I1 K0 = 1 / x, in the scaled forms
  for (double x : span(0.01, 700)) {
    const double w = bessel_i(x, 0, true) * bessel_k(x, 1, true) + bessel_i(x, 1, true) * bessel_k(x, 0, true);
    expect_relative(w, 1.0 / x, 1e-13, x);
    expect_relative(bessel_k(x, 0, false), bessel_k(x, 0, true) * std::exp(-x), 1e-14, x);
  }
}

TEST(BesselFunctions, ParityAndZeros) {
  for (double x : span(0.1, 40)) {
    EXPECT_EQ(bessel_j(-x, 0), bessel_j(x, 0));
    EXPECT_EQ(bessel_j(-x, 1), -bessel_j(x, 1));
    EXPECT_EQ(bessel_i(-x, 1, false), -bessel_i(x, 1, false));
  }
  // The first zeros of J0 and Y0 (DLMF table 10.21.1), on both sides of the series / asymptotic switch.
  for (double zero : {2.404825557695773, 5.520078110286311, 14.930917708487786}) {
    EXPECT_NEAR(bessel_j(zero, 0), 0.0, 1e-13) << zero;
  }
  for (double zero : {0.893576966279167, 3.957678419314858, 13.36109747387276}) {
    EXPECT_NEAR(bessel_y(zero, 0), 0.0, 1e-13) << zero;
  }
  EXPECT_TRUE(std::isnan(bessel_y(-1.0, 0)));
  EXPECT_EQ(bessel_y(0.0, 1), -kInf);
  EXPECT_EQ(bessel_k(0.0, 0, false), kInf);
  EXPECT_EQ(bessel_i(-kInf, 1, true), 0.0);
}

TEST(AiryFunction, ZerosAndContinuity) {
  // The zeros of Ai (DLMF table 9.9.1), on the series side and beyond -8 (asymptotic side).
  for (double zero : {-2.338107410459767, -4.087949444130971, -5.520559828095551, -9.022650853340981}) {
    EXPECT_NEAR(airy_ai(zero), 0.0, 1e-9) << zero;
  }
  EXPECT_NEAR(airy_ai(0.0), 0.355028053887817239, 1e-16);
  for (double edge : {1.0, -8.0}) {  // the methods agree where they meet
    expect_relative(airy_ai(edge + 1e-12), airy_ai(edge - 1e-12), 1e-9, edge);
  }
  // Ai'' = x Ai by central differences: error h^2 Ai''''/12 = h^2 (x^2 Ai + 2 Ai') / 12, with |Ai|, |Ai'| < 1.5.
  for (double x : span(-7.5, 12, 80)) {
    const double h = 1e-3, a = airy_ai(x);
    const double second = (airy_ai(x + h) - 2 * a + airy_ai(x - h)) / (h * h);
    EXPECT_NEAR(second, x * a, 2e-7 * (1 + x * x)) << "at x = " << x;
  }
}

TEST(GaussianFunctions, InversesAndScaledForms) {
  for (double x : span(-4, 4)) {  // y's rounding moves x by ulp(y) / erf'(x): up to 1e-9 at |x| = 4
    expect_relative(erfinv(std::erf(x)), x, 2e-9 + 1e-15 / (std::fabs(x) + 1e-300), x);
  }
  for (double x : span(-37, 5)) {  // above 5, p's rounding near 1 moves x by more than 1e-10
    const double p = std::erfc(-x / std::sqrt(2.0)) / 2;
    if (p < 1.0) {
      EXPECT_NEAR(ndtri(p), x, 1e-10 * std::fabs(x) + 1e-12) << x;
    }
    EXPECT_NEAR(log_ndtr(x), std::log(p), 1e-14 * std::fabs(std::log(p)) + 1e-16) << x;
  }
  EXPECT_NEAR(log_ndtr(-100.0), -5005.5242086942, 1e-9);  // log(erfcx(t) / 2) - t^2 past erfc's underflow
  for (double x : span(-5, 26)) expect_relative(erfcx(x) * std::exp(-x * x), std::erfc(x), 1e-13, x);
  expect_relative(erfcx(1e4), 1.0 / (1e4 * std::sqrt(kPi)) * (1 - 0.5e-8), 1e-15, 1e4);
  EXPECT_EQ(erfinv(1.0), kInf);
  EXPECT_TRUE(std::isnan(erfinv(1.5)));
  EXPECT_EQ(ndtri(0.0), -kInf);
}

TEST(IncompleteGamma, ClosedFormsAndRecurrence) {
  for (double x : span(0.01, 80)) {
    expect_relative(regularized_gamma(1.0, x, false), -std::expm1(-x), 1e-13, x);
    expect_relative(regularized_gamma(0.5, x, false), std::erf(std::sqrt(x)), 1e-13, x);
    for (double a : {0.3, 2.5, 7.0, 30.0}) {
      const double p = regularized_gamma(a, x, false), q = regularized_gamma(a, x, true);
      EXPECT_NEAR(p + q, 1.0, 1e-14) << a << " " << x;
      // P(a + 1, x) = P(a, x) - x^a e^-x / Gamma(a + 1)
      const double step = std::exp(a * std::log(x) - x - std::lgamma(a + 1));
      EXPECT_NEAR(regularized_gamma(a + 1, x, false), p - step, 1e-12) << a << " " << x;
    }
  }
  EXPECT_TRUE(std::isnan(regularized_gamma(-1.0, 1.0, false)));
  EXPECT_EQ(regularized_gamma(0.0, 1.0, false), 1.0);
  EXPECT_EQ(regularized_gamma(2.0, kInf, true), 0.0);
}

TEST(OrthogonalPolynomials, ClosedFormsAndConventions) {
  for (double theta = 0.05; theta < 3.1; theta += 0.05) {
    const double x = std::cos(theta);
    for (int n : {0, 1, 2, 5, 8, 9, 30}) {
      EXPECT_NEAR(orthogonal_polynomial(Polynomial::ChebyshevT, false, x, double(n), 128), std::cos(n * theta), 1e-12);
      EXPECT_NEAR(orthogonal_polynomial(Polynomial::ChebyshevU, false, x, double(n), 128) * std::sin(theta),
                  std::sin((n + 1) * theta), 1e-12);
      EXPECT_NEAR(orthogonal_polynomial(Polynomial::ChebyshevT, true, (x + 1) / 2, double(n), 128),
                  std::cos(n * theta), 1e-11);
    }
  }
  for (double x : span(-3, 3, 60)) {
    const auto p = [x](Polynomial kind, double n) { return orthogonal_polynomial(kind, false, x, n, 128); };
    EXPECT_NEAR(p(Polynomial::ChebyshevT, 3), 4 * x * x * x - 3 * x, 1e-12);
    EXPECT_NEAR(p(Polynomial::ChebyshevV, 2), 4 * x * x - 2 * x - 1, 1e-12);
    EXPECT_NEAR(p(Polynomial::ChebyshevW, 2), 4 * x * x + 2 * x - 1, 1e-12);
    EXPECT_NEAR(p(Polynomial::HermiteH, 3), 8 * x * x * x - 12 * x, 1e-11);
    EXPECT_NEAR(p(Polynomial::HermiteHe, 3.9), x * x * x - 3 * x, 1e-12);  // the degree truncates toward zero
    EXPECT_NEAR(p(Polynomial::LaguerreL, 2), (x * x - 4 * x + 2) / 2, 1e-12);
    EXPECT_NEAR(p(Polynomial::LegendreP, 3), (5 * x * x * x - 3 * x) / 2, 1e-12);
    EXPECT_EQ(p(Polynomial::LegendreP, -1), 0.0);
    EXPECT_EQ(p(Polynomial::ChebyshevT, std::nan("")), 0.0);
  }
  EXPECT_EQ(orthogonal_polynomial(Polynomial::ChebyshevV, false, -1.0, 4.0, 128), 9.0);  // (-1)^n (2n + 1)
  EXPECT_EQ(orthogonal_polynomial(Polynomial::ChebyshevU, false, -1.0, 3.0, 128), -4.0);  // (-1)^n (n + 1)
  EXPECT_TRUE(std::isnan(orthogonal_polynomial(Polynomial::HermiteH, false, 0.5, 129.0, 128)));
  EXPECT_FALSE(std::isnan(orthogonal_polynomial(Polynomial::HermiteH, false, 0.5, 129.0, 512)));
}

TEST(SphericalBessel, TaylorMeetsQuotient) {
  const double below = 0.5 - 1e-12;  // the last point of the Taylor branch
  expect_relative(spherical_bessel_j0(below), std::sin(below) / below, 1e-14, below);
  EXPECT_EQ(spherical_bessel_j0(0.0), 1.0);
  EXPECT_EQ(spherical_bessel_j0(kInf), 0.0);
}

}  // namespace
}  // namespace hal_gpu::special
