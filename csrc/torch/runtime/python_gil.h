// The GIL around the core's locks. A Python backend (csrc/torch/python_backend) runs its allocate_memory
// under the core allocator's lock, taking the GIL; a thread that held the GIL while waiting for that lock
// (freeing a tensor, allocating one) would deadlock with it. So the glue enters the allocator, and every other
// core call that may wait for its locks, without the GIL: GilReleasedAroundCoreLock.
//
// The runtime owns this (the allocator needs it); the Python backend's registration (python/python_backends.cpp)
// tells it that one exists (note_python_backend_registered), so that nothing here depends on the adapter.
#pragma once

#include <Python.h>

#include "adapter_support/python_interpreter.h"

namespace torch_hal {

// True once any Python backend has been registered.
bool python_backends_registered();
// Called by the Python backend's registration, before the core may call the new backend.
void note_python_backend_registered();

// Lets go of the GIL for its scope when this thread holds it and a Python backend exists.
class GilReleasedAroundCoreLock {
 public:
  GilReleasedAroundCoreLock();
  ~GilReleasedAroundCoreLock();
  GilReleasedAroundCoreLock(const GilReleasedAroundCoreLock&) = delete;
  GilReleasedAroundCoreLock& operator=(const GilReleasedAroundCoreLock&) = delete;

 private:
  PyThreadState* saved_ = nullptr;
};

}  // namespace torch_hal
