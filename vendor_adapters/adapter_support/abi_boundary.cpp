#include "abi_boundary.h"

namespace hal_abi_boundary {

std::string& thread_error() {
  thread_local std::string message;
  return message;
}

}  // namespace hal_abi_boundary
