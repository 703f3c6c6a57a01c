#include "runtime/python_gil.h"

#include <atomic>

namespace torch_hal {
namespace {

std::atomic<bool> g_any_registered{false};

}  // namespace

bool python_backends_registered() { return g_any_registered.load(std::memory_order_relaxed); }
void note_python_backend_registered() { g_any_registered.store(true); }

GilReleasedAroundCoreLock::GilReleasedAroundCoreLock() {
  if (python_backends_registered() && python_is_usable() && PyGILState_Check()) {
    saved_ = PyEval_SaveThread();
  }
}

GilReleasedAroundCoreLock::~GilReleasedAroundCoreLock() {
  if (saved_) PyEval_RestoreThread(saved_);
}

}  // namespace torch_hal
