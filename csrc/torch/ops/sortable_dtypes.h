// The dtypes the sort-based compositions (mode_ops.cpp, unique_ops.cpp, order_statistic_ops.cpp) take: the real
// types and bool, as the CPU kernels they stand in for, but uint16/uint32/uint64, for which sort and index_select
// have no kernels (those keep ATen's route).
#pragma once

#include <c10/core/ScalarType.h>

namespace torch_hal::native {

inline bool sortable_on_device(at::ScalarType t) {
  switch (t) {
    case at::kBool: case at::kByte: case at::kChar: case at::kShort: case at::kInt: case at::kLong:
    case at::kFloat: case at::kDouble: case at::kHalf: case at::kBFloat16:
      return true;
    default:
      return false;
  }
}

}  // namespace torch_hal::native
