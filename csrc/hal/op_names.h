// Names of the operator ids of adapter_ops.def, for profiles, messages and the coverage table: a profile that
// says "matmul" is read at a glance, one that says "op 40" is looked up.
#pragma once

#include <string>

#include "torch_hal/adapter.h"

namespace hal {

// "add", "matmul", "foreach", ...; "op <id>" for an id this core does not know (an adapter built against
// a newer header).
std::string op_name(hal_op_t op);

// The id's spelling in adapter_ops.h ("HAL_OP_ADD"), for the coverage table; "HAL_OP_<id>" for an unknown id.
std::string op_id_name(hal_op_t op);

// The kernel family that runs the op ("elementwise", "reduction", ...); "" for an unknown id.
std::string op_family_name(hal_op_t op);

}  // namespace hal
