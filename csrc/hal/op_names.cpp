#include "hal/op_names.h"

#include <algorithm>
#include <cctype>
#include <iterator>

namespace hal {
namespace {

struct OpName {
  hal_op_t op;
  const char* id_name;  // "HAL_OP_ADD"
  const char* family;   // "elementwise"
};

// Every op of adapter_ops.def, in its order.
constexpr OpName kOpNames[] = {
#define HAL_OP(NAME, id, family) OpName{HAL_OP_##NAME, "HAL_OP_" #NAME, #family},
#include "torch_hal/adapter_ops.def"
};

constexpr bool ids_are_unique() {
  for (size_t i = 0; i < std::size(kOpNames); ++i) {
    for (size_t j = i + 1; j < std::size(kOpNames); ++j) {
      if (kOpNames[i].op == kOpNames[j].op) return false;
    }
  }
  return true;
}
static_assert(ids_are_unique(), "adapter_ops.def: two ops have the same id");

const OpName* find(hal_op_t op) {
  const auto it = std::find_if(std::begin(kOpNames), std::end(kOpNames), [op](const OpName& n) { return n.op == op; });
  return it != std::end(kOpNames) ? it : nullptr;
}

}  // namespace

std::string op_id_name(hal_op_t op) {
  const OpName* name = find(op);
  return name ? std::string(name->id_name) : "HAL_OP_" + std::to_string(op);
}

std::string op_name(hal_op_t op) {
  const OpName* name = find(op);
  if (!name) return "op " + std::to_string(op);
  std::string lower(name->id_name + sizeof("HAL_OP_") - 1);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

std::string op_family_name(hal_op_t op) {
  const OpName* name = find(op);
  return name ? std::string(name->family) : std::string();
}

}  // namespace hal
