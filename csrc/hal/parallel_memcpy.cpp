#include "parallel_memcpy.h"

#include "hal/environment.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace hal {
namespace {

// Below this a copy is not worth waking other threads for.
constexpr size_t kMinPieceBytes = size_t{1} << 20;


// Workers wait for one job at a time: a batch of equal pieces of one copy. Callers serialize on
// call_mutex_ (the staging ring copies one chunk at a time anyway).
class CopyPool {
 public:
  explicit CopyPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~CopyPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  void copy(char* dst, const char* src, size_t nbytes, int pieces) {
    std::lock_guard<std::mutex> call_lock(call_mutex_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      dst_ = dst;
      src_ = src;
      nbytes_ = nbytes;
      pieces_ = pieces;
      next_piece_ = 0;
      pieces_done_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    run_pieces();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pieces_done_ == pieces_; });
  }

 private:
  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      run_pieces();
    }
  }

  // Takes pieces until none is left; the last one done wakes the caller.
  void run_pieces() {
    for (;;) {
      int piece;
      char* dst;
      const char* src;
      size_t nbytes;
      int pieces;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (next_piece_ >= pieces_) return;
        piece = next_piece_++;
        dst = dst_;
        src = src_;
        nbytes = nbytes_;
        pieces = pieces_;
      }
      const size_t per = (nbytes + pieces - 1) / pieces;
      const size_t begin = std::min(nbytes, per * piece);
      const size_t len = std::min(per, nbytes - begin);
      std::memcpy(dst + begin, src + begin, len);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (++pieces_done_ == pieces_) done_.notify_all();
      }
    }
  }

  std::mutex call_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  uint64_t generation_ = 0;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  size_t nbytes_ = 0;
  int pieces_ = 0, next_piece_ = 0, pieces_done_ = 0;
};

CopyPool& pool() {
  // Never destroyed: copies may run from other static destructors at exit.
  static CopyPool* p = new CopyPool(copy_thread_count());
  return *p;
}

}  // namespace

int copy_thread_count() {
  if (auto n = env_integer("TORCH_HAL_COPY_THREADS", 1, 64)) return static_cast<int>(*n);
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(hw / 2, 1, 8);
}

void parallel_memcpy(void* dst, const void* src, size_t nbytes) {
  const int max_pieces = static_cast<int>(std::min<size_t>(nbytes / kMinPieceBytes, 64));
  if (max_pieces < 2) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  CopyPool& p = pool();
  const int pieces = std::min(max_pieces, p.threads());
  if (pieces < 2) {
    std::memcpy(dst, src, nbytes);
    return;
  }
  p.copy(static_cast<char*>(dst), static_cast<const char*>(src), nbytes, pieces);
}

}  // namespace hal
