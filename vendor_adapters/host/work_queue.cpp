#include "work_queue.h"

namespace host_adapter {

WorkQueue::~WorkQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void WorkQueue::enqueue(std::function<void()> task) { push(std::move(task), false); }

void WorkQueue::enqueue_marker(std::function<void()> marker) { push(std::move(marker), true); }

void WorkQueue::push(std::function<void()> fn, bool marker) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (marker && tasks_.empty() && !busy_) {
      // Everything before it has run: the marker completes now, on the caller's thread, as an event recorded
      // on an idle CUDA stream completes at once. Timings then hold no wake-up of the worker thread, which
      // matters to a profiler timing CPU kernels that run in place between two such events.
      fn();
      return;
    }
    // The worker first: were the task queued before a thread creation that throws, it would never
    // run, and synchronize() would wait for it forever. Either step may throw; neither leaves a task
    // behind that nobody runs.
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    tasks_.push_back(Task{std::move(fn), marker});
  }
  work_cv_.notify_one();
}

void WorkQueue::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stop_ and drained: queued work always runs before the thread ends
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    if (task.marker) {
      task.fn();  // under the lock, see enqueue_marker()
      if (tasks_.empty()) idle_cv_.notify_all();
      continue;
    }
    busy_ = true;
    lock.unlock();
    task.fn();
    lock.lock();
    busy_ = false;
    if (tasks_.empty()) idle_cv_.notify_all();
  }
}

void WorkQueue::synchronize() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [this] { return tasks_.empty() && !busy_; });
}

bool WorkQueue::idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return tasks_.empty() && !busy_;
}

uint64_t EventState::next_generation() {
  std::lock_guard<std::mutex> lock(mutex_);
  return ++recorded_;
}

void EventState::complete(uint64_t generation) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Re-recorded on another stream, a later generation may complete first; the latest record rules.
    if (generation <= completed_) return;
    completed_ = generation;
    completed_at_ = std::chrono::steady_clock::now();
  }
  cv_.notify_all();
}

void EventState::wait_for(uint64_t generation) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return completed_ >= generation; });
}

uint64_t EventState::recorded() {
  std::lock_guard<std::mutex> lock(mutex_);
  return recorded_;
}

bool EventState::is_complete() {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_ >= recorded_;
}

bool EventState::completion_time(std::chrono::steady_clock::time_point* when) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (recorded_ == 0 || completed_ < recorded_) return false;
  *when = completed_at_;
  return true;
}

}  // namespace host_adapter
