// StreamGate: holds a stream of the host adapter at a known point until the test opens it, so that a
// test can look at work that is provably still pending (query returning NOT_READY, a wait that must
// hold, stream-ordered reuse) without relying on how long any work takes.
//
// Why not an event: stream_wait_event waits for the record made before the call (CUDA semantics), and
// every record sits on some stream that drains by itself, so events alone can never hold a stream for
// as long as the test needs. The root of the gate is therefore host memory, used through the adapter
// ABI as any caller would: the gate enqueues a 1-byte host-to-device copy whose source page has no
// access rights. The stream's worker faults on it, and the SIGSEGV handler below parks that thread on
// a semaphore; open() makes the page readable, then posts the semaphore; the handler returns and the
// faulting load runs again, now successfully. Nothing in the adapter knows about tests.
//
//   hal_test::StreamGate gate(0, stream);   // everything enqueued on `stream` after this waits
//   ... enqueue work, check what must hold while it is pending ...
//   gate.open();                            // also done by the destructor
//
// A fault anywhere else is a real crash: the handler restores the previous disposition and returns, so
// the fault repeats under it.
#pragma once

#include <gtest/gtest.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <thread>
#include <cstdlib>
#include <mutex>

#include "hal/device_registry.h"
#include "hal/event.h"
#include "hal/streams.h"

namespace hal_test {

namespace gate_detail {

constexpr int kSlots = 64;

struct Slot {
  std::atomic<char*> page{nullptr};  // published after `open` is initialized
  sem_t open;
};

inline Slot* slots() {
  static Slot s[kSlots];
  return s;
}

inline size_t& page_size() {
  static size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

inline struct sigaction& previous_action() {
  static struct sigaction action {};
  return action;
}

inline void on_fault(int /*sig*/, siginfo_t* info, void* /*context*/) {
  const int saved_errno = errno;
  const char* addr = static_cast<const char*>(info->si_addr);
  const size_t size = page_size();
  for (int i = 0; i < kSlots; ++i) {
    const char* page = slots()[i].page.load(std::memory_order_acquire);
    if (page && addr >= page && addr < page + size) {
      while (sem_wait(&slots()[i].open) != 0 && errno == EINTR) {
      }
      errno = saved_errno;
      return;  // open() made the page readable first: the load is retried and succeeds
    }
  }
  sigaction(SIGSEGV, &previous_action(), nullptr);
  errno = saved_errno;
}

inline void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_size();
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSEGV, &action, &previous_action()) != 0) std::abort();
  });
}

inline std::mutex& slot_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace gate_detail

class StreamGate {
 public:
  StreamGate(int device, hal::StreamId stream) : device_(device) {
    using namespace gate_detail;
    install_handler();
    const hal::Device& d = hal::DeviceRegistry::instance().device(device);
    void* page = mmap(nullptr, page_size(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) std::abort();
    page_ = static_cast<char*>(page);
    {
      std::lock_guard<std::mutex> lock(slot_mutex());
      for (int i = 0; i < kSlots && !slot_; ++i) {
        if (!slots()[i].page.load(std::memory_order_relaxed)) slot_ = &slots()[i];
      }
      if (!slot_) std::abort();  // more than kSlots gates alive at once
      sem_init(&slot_->open, 0, 0);
      slot_->page.store(page_, std::memory_order_release);
    }
    if (d.table().malloc_device(d.local_index, 64, &dst_) != HAL_STATUS_SUCCESS) std::abort();
    if (d.table().memcpy_async(d.local_index, dst_, page_, 1, HAL_COPY_HOST_TO_DEVICE,
                               hal::native_stream(device, stream)) != HAL_STATUS_SUCCESS) {
      std::abort();
    }
    passed_.record(device, stream);  // completes once the gated copy has run
  }

  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;

  // Lets the stream go on. Idempotent; callable from any thread.
  void open() {
    if (opened_.exchange(true)) return;
    if (mprotect(page_, gate_detail::page_size(), PROT_READ) != 0) std::abort();
    sem_post(&slot_->open);
  }

  // True once the stream went past the gate (never before open()).
  bool passed() const { return passed_.query(); }

  ~StreamGate() {
    open();
    try {
      passed_.synchronize();  // the worker no longer touches the page, the slot or dst_
    } catch (...) {
      std::abort();
    }
    const hal::Device& d = hal::DeviceRegistry::instance().device(device_);
    d.table().free_device(d.local_index, dst_);
    {
      std::lock_guard<std::mutex> lock(gate_detail::slot_mutex());
      slot_->page.store(nullptr, std::memory_order_release);
      sem_destroy(&slot_->open);
    }
    munmap(page_, gate_detail::page_size());
  }

 private:
  int device_;
  char* page_ = nullptr;
  gate_detail::Slot* slot_ = nullptr;
  void* dst_ = nullptr;
  hal::Event passed_;
  std::atomic<bool> opened_{false};
};

// For work that must stay blocked behind a closed gate: true when `done` stays false for the whole
// `window`. Correct code always passes (whatever the load: the work cannot finish); the window only
// gives wrong code, whose work would finish on its own, the time to show it.
inline bool stays_pending(const std::function<bool()>& done,
                          std::chrono::milliseconds window = std::chrono::milliseconds(50)) {
  const auto until = std::chrono::steady_clock::now() + window;
  do {
    if (done()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  } while (std::chrono::steady_clock::now() < until);
  return !done();
}

}  // namespace hal_test
