// The NVIDIA adapter's GEMM planning (vendor_adapters/nvidia/gemm_plan.cpp), which is pure C++: how the
// ABI's row-major problem maps onto cuBLAS's column-major call, and which problems take cuBLASLt's bias
// epilogue. A wrong decision there computes a wrong result silently on the GPU, so it is pinned down here,
// on every machine.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/gemm_plan.h"

namespace hal_gpu {
namespace {

constexpr hal_dtype_t kF32{HAL_DTYPE_FLOAT, 32, 1};
constexpr hal_dtype_t kF16{HAL_DTYPE_FLOAT, 16, 1};
constexpr hal_dtype_t kBF16{HAL_DTYPE_BFLOAT, 16, 1};
constexpr hal_dtype_t kF64{HAL_DTYPE_FLOAT, 64, 1};

// A tensor view over its own storage (large enough for any view below): shape and strides in elements.
struct View {
  std::vector<double> storage = std::vector<double>(4096);
  std::vector<int64_t> shape, strides;
  hal_tensor_t t{};

  View(std::vector<int64_t> shape_, std::vector<int64_t> strides_, hal_dtype_t dtype) : shape(shape_), strides(strides_) {
    t.data = storage.data();
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = strides.data();
  }
  View(const View&) = delete;
  View& operator=(const View&) = delete;
  const void* first_element() const { return storage.data(); }
};

hal_scalar_t real(double v) {
  hal_scalar_t s{};
  s.kind = 0;
  s.value.f = v;
  return s;
}

// out = alpha * a @ b + beta * c through plan_gemm. Owns the inputs array the plan points into (GemmPlan::c).
struct Planner {
  hal_tensor_t inputs[3]{};
  GemmPlan p;

  hal_status_t run(const View& a, const View& b, const hal_tensor_t& c, const View& out, double alpha, double beta) {
    inputs[0] = a.t;
    inputs[1] = b.t;
    inputs[2] = c;
    const hal_scalar_t scalars[2] = {real(alpha), real(beta)};
    std::string why;
    return plan_gemm(HAL_OP_GEMM, inputs, 3, &out.t, 1, scalars, 2, &p, &why);
  }
  const hal_tensor_t* c_input() const { return &inputs[2]; }
};

// nn.Linear's addmm: x [M, K] @ weight.t() (weight [N, K], so b is column-major) + bias [N] expanded to
// [M, N] (strides [0, 1]).
struct Linear {
  View x, b, bias, out;
  Linear(int64_t M, int64_t K, int64_t N, hal_dtype_t dtype = kF32)
      : x({M, K}, {K, 1}, dtype), b({K, N}, {1, K}, dtype), bias({M, N}, {0, 1}, dtype), out({M, N}, {N, 1}, dtype) {}
};

TEST(GemmPlan, LinearBiasTakesTheEpilogueWithTheBiasAlongCublasRows) {
  Linear l(4, 8, 6);
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  // Row-major out[4, 6] is the column-major out^T (6 x 4) = b^T x^T: cuBLAS's rows are out's columns, so the
  // bias (one value per column of out) has one value per row of cuBLAS's D, as EPILOGUE_BIAS adds it.
  EXPECT_EQ(g.p.bias, l.bias.first_element());
  EXPECT_EQ(g.p.m, 6);
  EXPECT_EQ(g.p.n, 4);
  EXPECT_EQ(g.p.k, 8);
  EXPECT_EQ(g.p.first.data, l.b.first_element());
  EXPECT_TRUE(g.p.first.transpose);  // weight.t() is column-major: stored K x N with ld K
  EXPECT_EQ(g.p.first.ld, 8);
  EXPECT_EQ(g.p.second.data, l.x.first_element());
  EXPECT_FALSE(g.p.second.transpose);
  EXPECT_EQ(g.p.second.ld, 8);
  EXPECT_EQ(g.p.ld_out, 6);
  EXPECT_EQ(g.p.c, g.c_input());  // the two-kernel fallback still has c
  EXPECT_FALSE(g.p.c_is_out);
}

TEST(GemmPlan, BiasEpilogueForEveryReducedFloatTypeAndAnyAlpha) {
  for (const hal_dtype_t dtype : {kF32, kF16, kBF16}) {
    Linear l(5, 3, 7, dtype);
    Planner g;
    ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, -2.5, 1.0), HAL_STATUS_SUCCESS);
    EXPECT_EQ(g.p.bias, l.bias.first_element());
    EXPECT_EQ(g.p.alpha, -2.5);
  }
}

TEST(GemmPlan, BiasEpilogueHonoursTheBiasOffset) {
  Linear l(4, 8, 6);
  l.bias.t.byte_offset = 3 * sizeof(float);  // a bias that starts inside its storage
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.bias, static_cast<const char*>(l.bias.first_element()) + 3 * sizeof(float));
}

TEST(GemmPlan, SingleRowOutputTakesTheEpilogueWhateverTheRowStride) {
  // M == 1: c's row stride is never used, so an unexpanded [1, N] c is a bias vector too.
  View x({1, 8}, {8, 1}, kF32), b({8, 6}, {6, 1}, kF32), c({1, 6}, {6, 1}, kF32), out({1, 6}, {6, 1}, kF32);
  Planner g;
  ASSERT_EQ(g.run(x, b, c.t, out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.bias, c.first_element());
  EXPECT_EQ(g.p.m, 6);
  EXPECT_EQ(g.p.n, 1);
  EXPECT_FALSE(g.p.first.transpose);  // b row-major: the column-major N x K matrix b^T as stored
}

TEST(GemmPlan, BetaOtherThanOneKeepsTheTwoKernelPath) {
  for (const double beta : {0.5, -1.0, 2.0}) {
    Linear l(4, 8, 6);
    Planner g;
    ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, beta), HAL_STATUS_SUCCESS);
    EXPECT_EQ(g.p.bias, nullptr) << "beta " << beta;
    EXPECT_EQ(g.p.c, g.c_input());
  }
  Linear l(4, 8, 6);
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 0.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.bias, nullptr);
  EXPECT_EQ(g.p.c, nullptr);  // beta 0 ignores c entirely
}

TEST(GemmPlan, CThatIsNotARowBroadcastVectorKeepsTheTwoKernelPath) {
  Linear l(4, 8, 6);
  Planner g;
  View full({4, 6}, {6, 1}, kF32);        // an ordinary c
  View scalar({4, 6}, {0, 0}, kF32);      // a 0-d or [1] self expanded: one value everywhere
  View column({4, 6}, {1, 0}, kF32);      // broadcast over columns, not rows
  View strided({4, 6}, {0, 2}, kF32);     // a 1-D bias with stride 2: not packed
  for (const View* c : {&full, &scalar, &column, &strided}) {
    ASSERT_EQ(g.run(l.x, l.b, c->t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
    EXPECT_EQ(g.p.bias, nullptr);
    EXPECT_EQ(g.p.c, g.c_input());
  }
}

TEST(GemmPlan, NonContiguousOutputKeepsTheTwoKernelPath) {
  Linear l(4, 8, 6);
  Planner g;
  View padded({4, 6}, {9, 1}, kF32);       // row-major, leading dimension 9 > N
  View column_major({4, 6}, {1, 4}, kF32);  // out.t() of a contiguous [6, 4]: cuBLAS's m would be M
  for (const View* out : {&padded, &column_major}) {
    ASSERT_EQ(g.run(l.x, l.b, l.bias.t, *out, 1.0, 1.0), HAL_STATUS_SUCCESS);
    EXPECT_EQ(g.p.bias, nullptr);
  }
}

TEST(GemmPlan, SingleColumnOrSingleInnerDimensionKeepsTheTwoKernelPath) {
  // cuBLASLt's heuristic rejects a b with one row or one column (ATen avoids these too).
  using Shape = std::tuple<int64_t, int64_t, int64_t>;
  for (const auto& [M, K, N] : {Shape{4, 8, 1}, Shape{4, 1, 6}}) {
    Linear l(M, K, N);
    Planner g;
    ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
    EXPECT_EQ(g.p.bias, nullptr) << M << "x" << K << "x" << N;
  }
}

TEST(GemmPlan, EmptyInnerDimensionNeedsNoGemm) {
  Linear l(4, 0, 6);
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.k, 0);
  EXPECT_EQ(g.p.bias, nullptr);
  EXPECT_EQ(g.p.c, g.c_input());  // out = c, written without cuBLAS
}

TEST(GemmPlan, EmptyMatricesMayHaveNoMemory) {
  // The glue passes a tensor without elements with data NULL (it may have no storage at all).
  Linear l(4, 0, 6);
  l.x.t.data = nullptr;
  l.b.t.data = nullptr;
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.k, 0);
  EXPECT_EQ(g.p.c, g.c_input());
  // A matrix with elements still needs its memory.
  Linear m(4, 3, 6);
  m.x.t.data = nullptr;
  EXPECT_EQ(g.run(m.x, m.b, m.bias.t, m.out, 1.0, 1.0), HAL_STATUS_NOT_SUPPORTED);
}

TEST(GemmPlan, DoubleKeepsTheCublasPath) {
  Linear l(4, 8, 6, kF64);
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.bias.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.bias, nullptr);
}

TEST(GemmPlan, InPlaceAddmmKeepsTheCublasPath) {
  // addmm_: c is the output itself, which cuBLAS reads in place (beta 1): no copy, no epilogue needed.
  Linear l(4, 8, 6);
  Planner g;
  ASSERT_EQ(g.run(l.x, l.b, l.out.t, l.out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_TRUE(g.p.c_is_out);
  EXPECT_EQ(g.p.bias, nullptr);
}

TEST(GemmPlan, BatchedGemmKeepsTheCublasPath) {
  View a({2, 4, 8}, {32, 8, 1}, kF32), b({2, 8, 6}, {48, 6, 1}, kF32);
  View c({2, 4, 6}, {0, 0, 1}, kF32), out({2, 4, 6}, {24, 6, 1}, kF32);
  Planner g;
  ASSERT_EQ(g.run(a, b, c.t, out, 1.0, 1.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.batch, 2);
  EXPECT_EQ(g.p.bias, nullptr);
}

hal_tensor_t absent() {
  hal_tensor_t t{};
  t.ndim = -1;
  return t;
}

// 4-D operands [B1, B2, M, K] whose batch dims merge (contiguous): one batch stride, the strided-batched call.
TEST(GemmPlan, FourDimensionalDenseOperandsMergeIntoOneBatch) {
  View a({2, 3, 4, 8}, {96, 32, 8, 1}, kF32), b({2, 3, 8, 5}, {120, 40, 5, 1}, kF32);
  View out({2, 3, 4, 5}, {60, 20, 5, 1}, kF32);
  Planner g;
  ASSERT_EQ(g.run(a, b, absent(), out, 1.0, 0.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.batch, 6);
  EXPECT_EQ(g.p.group_size, 0);
  EXPECT_EQ(g.p.batch_stride_out, 20);
  EXPECT_EQ(g.p.first.batch_stride, 40);  // row-major out: cuBLAS's first operand is b
  EXPECT_EQ(g.p.second.batch_stride, 32);
}

// Attention's query [B, H, L, D] sliced out of a fused projection [B, L, 3, H, D]: strides (3 L H D, D, 3 H D, 1),
// whose batch dims do not merge: groups of H matrices, every operand addressed by its own two batch strides.
TEST(GemmPlan, FourDimensionalHeadSlicesTakeTheGroupedCall) {
  constexpr int64_t B = 2, H = 3, L = 4, D = 2;
  View q({B, H, L, D}, {3 * L * H * D, D, 3 * H * D, 1}, kF32);
  View k_t({B, H, D, L}, {3 * L * H * D, D, 1, 3 * H * D}, kF32);  // k transposed: column-major matrices
  View scores({B, H, L, L}, {H * L * L, L * L, L, 1}, kF32);
  Planner g;
  ASSERT_EQ(g.run(q, k_t, absent(), scores, 0.5, 0.0), HAL_STATUS_SUCCESS);
  EXPECT_EQ(g.p.batch, B * H);
  EXPECT_EQ(g.p.group_size, H);
  EXPECT_EQ(g.p.group_stride_out, H * L * L);
  EXPECT_EQ(g.p.batch_stride_out, L * L);
  // out^T = k_t^T q^T: cuBLAS's first operand is k_t (column-major, used as stored: op T against the
  // row-major output), its second q.
  EXPECT_EQ(g.p.first.group_stride, 3 * L * H * D);
  EXPECT_EQ(g.p.first.batch_stride, D);
  EXPECT_TRUE(g.p.first.transpose);
  EXPECT_EQ(g.p.first.ld, 3 * H * D);
  EXPECT_EQ(g.p.second.group_stride, 3 * L * H * D);
  EXPECT_EQ(g.p.second.batch_stride, D);
  EXPECT_EQ(g.p.second.ld, 3 * H * D);
}

TEST(GemmPlan, FourDimensionalOperandsMustShareTheirBatchDims) {
  View a({2, 3, 4, 8}, {96, 32, 8, 1}, kF32), b({3, 2, 8, 5}, {80, 40, 5, 1}, kF32);
  View b3({6, 8, 5}, {40, 5, 1}, kF32), out({2, 3, 4, 5}, {60, 20, 5, 1}, kF32);
  Planner g;
  EXPECT_EQ(g.run(a, b, absent(), out, 1.0, 0.0), HAL_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(g.run(a, b3, absent(), out, 1.0, 0.0), HAL_STATUS_INVALID_ARGUMENT);
}

TEST(GemmPlan, MatmulHasNoBias) {
  Linear l(4, 8, 6);
  const hal_tensor_t inputs[2] = {l.x.t, l.b.t};
  GemmPlan p;
  std::string why;
  ASSERT_EQ(plan_gemm(HAL_OP_MATMUL, inputs, 2, &l.out.t, 1, nullptr, 0, &p, &why), HAL_STATUS_SUCCESS);
  EXPECT_EQ(p.c, nullptr);
  EXPECT_EQ(p.bias, nullptr);
}

}  // namespace
}  // namespace hal_gpu
