// repeat_interleave.Tensor (repeats [n] -> [0]*repeats[0] + [1]*repeats[1] + ...), which x.repeat_interleave(r, dim)
// builds on before its index_select, from native pieces: no search, no per-element loop.
//
// ends = cumsum(repeats) says where each run ends, which is where the next one begins. marks[j] counts the runs that
// end at position j (accumulating INDEX_PUT of ones at ends[0..n-2]; runs of length 0 end where the previous one
// does, hence the accumulation); the output at j is the number of runs ended at or before j: cumsum(marks). Runs that
// end at or past the total land in a dropped extra slot or are skipped. The total needs one synchronization unless
// output_size is given, as on CUDA. Negative repeats are not detected (the CPU raises, CUDA asserts).
#include <ATen/ops/cumsum.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <optional>

#include "dispatch/native_first.h"
#include "ops/indexing_launch.h"

namespace torch_hal::native {
namespace {

std::optional<at::Tensor> repeat_interleave(const at::Tensor& repeats, std::optional<c10::SymInt> output_size) {
  // 0-dim repeats and other dtypes: ATen's path and its errors.
  if (repeats.dim() != 1 || !is_index_type(repeats)) return std::nullopt;
  const int64_t n = repeats.size(0);
  const auto long_options = repeats.options().dtype(at::kLong);
  const at::Tensor ends = at::cumsum(repeats, 0, at::kLong);
  const int64_t total = output_size.has_value() ? output_size->guard_int(__FILE__, __LINE__)
                        : n == 0                ? 0
                                                : ends.select(0, n - 1).item<int64_t>();
  if (n == 0 && total != 0) return std::nullopt;  // ATen's error for an output_size it cannot fill
  if (total == 0) return at::empty({0}, repeats.options());
  at::Tensor marks = at::zeros({total + 1}, long_options);
  if (n > 1 && !put_rows(marks, ends.slice(0, 0, n - 1), at::ones({1}, long_options).expand({n - 1}), true)) {
    return std::nullopt;
  }
  return at::cumsum(marks.slice(0, 0, total), 0, repeats.scalar_type());
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, repeat_interleave_Tensor, "repeat_interleave.Tensor", launches(HAL_OP_INDEX_PUT), repeat_interleave);
}

}  // namespace
}  // namespace torch_hal::native
