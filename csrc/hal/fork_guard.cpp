#include "hal/fork_guard.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

#include "hal/error.h"

namespace hal {
namespace {

std::atomic<bool> g_used{false};
std::atomic<bool> g_bad_fork{false};

void mark_child() { g_bad_fork.store(true, std::memory_order_relaxed); }

}  // namespace

void throw_if_bad_fork() {
  if (g_bad_fork.load(std::memory_order_relaxed)) {
    throw Error(ErrorCode::BadFork,
                "hal cannot be used in a process forked after its parent used a hal device: the child has none "
                "of the parent's device threads and contexts. To use hal with multiprocessing, use the 'spawn' "
                "(or 'forkserver') start method: torch.multiprocessing.set_start_method('spawn'), or "
                "multiprocessing.get_context('spawn'); DataLoader(..., multiprocessing_context='spawn').");
  }
}

void check_fork_safety() {
  throw_if_bad_fork();
  if (!g_used.load(std::memory_order_relaxed)) {
    static std::once_flag armed;
    std::call_once(armed, [] { pthread_atfork(nullptr, nullptr, &mark_child); });
    g_used.store(true, std::memory_order_relaxed);
  }
}

bool in_bad_fork() { return g_bad_fork.load(std::memory_order_relaxed); }

bool device_used() { return g_used.load(std::memory_order_relaxed); }

}  // namespace hal
