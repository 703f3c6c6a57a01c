// The host adapter's execution model: a stream is an in-order queue of tasks served by one worker
// thread, and an event is a pair of generation counters (recorded / completed) with a completion time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace host_adapter {

class WorkQueue {
 public:
  WorkQueue() = default;
  ~WorkQueue();  // lets queued work finish, then joins the worker (RAII for the thread)
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Runs `task` after everything enqueued before it. Starts the worker on first use, so that streams
  // nobody uses cost no thread.
  void enqueue(std::function<void()> task);
  // A short, non-blocking task (an event's completion stamp) that runs under the queue's lock: when it
  // is the last task, whoever sees it done also sees the queue idle (event sync, then stream query). On an
  // idle queue it runs at once, on the caller's thread.
  void enqueue_marker(std::function<void()> marker);
  void synchronize();  // returns when the queue is empty and nothing is running
  bool idle();

 private:
  void push(std::function<void()> fn, bool marker);
  void run();

  std::mutex mutex_;
  std::condition_variable work_cv_;  // worker: a task arrived or stop
  std::condition_variable idle_cv_;  // synchronize(): the queue drained
  struct Task {
    std::function<void()> fn;
    bool marker;
  };
  std::deque<Task> tasks_;
  bool busy_ = false;
  bool stop_ = false;
  std::thread worker_;
};

// Shared by the event handle and by queued markers/waits, so that destroying an event with work
// still queued is safe (as cudaEventDestroy is).
class EventState {
 public:
  explicit EventState(bool timing) : timing_(timing) {}

  bool timing() const { return timing_; }
  uint64_t next_generation();                  // called by event_record
  void complete(uint64_t generation);          // the marker reached the head of its stream
  void wait_for(uint64_t generation);          // blocks until `generation` completed
  uint64_t recorded();                         // latest generation recorded (0: never)
  bool is_complete();                          // the latest record completed (or never recorded)
  bool completion_time(std::chrono::steady_clock::time_point* when);  // false unless recorded and complete

 private:
  const bool timing_;
  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t recorded_ = 0;
  uint64_t completed_ = 0;
  std::chrono::steady_clock::time_point completed_at_{};
};

}  // namespace host_adapter
