// Native ops on AMD GPUs (ops.cpp): the kernel library's families on the op's stream; GEMM's family is gemm.cpp
// (rocBLAS, hipBLASLt).
#pragma once

#include <cstdint>

#include "abi_entries.h"
#include "torch_hal/adapter.h"

namespace hal_amd {

HAL_ABI_OP_ENTRIES;

}  // namespace hal_amd
