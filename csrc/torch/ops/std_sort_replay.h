// The order in which libstdc++'s std::sort leaves equal elements, for a device that has only whole-tensor ops.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace torch_hal::native {

// Replays std::sort (introsort: median-of-three pivot moved to the front, unguarded Hoare partition, insertion
// sort of the parts of 16 or fewer) on every row of `keys` at once and returns, per row, the original positions
// in the order std::sort leaves them. `keys` [rows, n] are integers (long) whose order is the comparator's (equal
// keys: elements the comparator finds equivalent), e.g. dense ranks. nullopt where some row would exhaust the
// introsort's depth limit, where std::sort turns to heapsort, which is not replayed.
std::optional<at::Tensor> std_sort_order(const at::Tensor& keys);

}  // namespace torch_hal::native
