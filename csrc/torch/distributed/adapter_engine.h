// Collectives through an adapter's own library (NCCL on NVIDIA GPUs, RCCL on AMD ones): one communicator per
// process group and device, created at the group's first collective on that device from a unique id that
// rank 0 puts in the group's store. Operations run on a communication stream of the device that first waits
// for the caller's current stream (stream order, as torch.cuda's NCCL backend); their tensors are recorded
// on that stream so the caching allocator does not reuse them early. Work.wait() makes the caller's current
// stream wait for the operation, without blocking the host (torch.cuda's NCCL semantics). A watchdog thread
// checks every pending operation: an asynchronous error (a peer died) or the group's timeout aborts the
// communicator and ends the process with the error, since work queued after the collective would read what it
// never wrote. With TORCH_HAL_BLOCKING_WAIT=1, wait() blocks the host instead, and the error is raised there
// and by every later operation of the group (as TORCH_NCCL_BLOCKING_WAIT does for torch.cuda).
#pragma once

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hal/collectives.h"
#include "hal/event.h"
#include "hal/streams.h"

namespace torch_hal::distributed {

class AdapterEngine {
 public:
  AdapterEngine(c10::intrusive_ptr<c10d::Store> store, int rank, int size, std::chrono::milliseconds timeout);
  ~AdapterEngine();

  // True when hal:index's adapter has collectives (and their library is present).
  static bool serves(int device_index, std::string* why = nullptr);
  static std::string engine_name(int device_index);

  using Launch = std::function<void(hal::Communicator& comm, hal_stream_t stream)>;
  // Runs `launch` on the communication stream of `tensors`' device (all on one hal device) and returns its
  // Work, whose future yields `results`.
  c10::intrusive_ptr<c10d::Work> run(const std::vector<at::Tensor>& tensors, const std::vector<at::Tensor>& results,
                                     c10d::OpType type, const Launch& launch);

  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }
  void abort();

  // What a pending operation shares with the watchdog.
  struct Pending {
    std::shared_ptr<hal::Communicator> comm;
    int device = -1;             // hal index
    bool blocking_wait = false;  // TORCH_HAL_BLOCKING_WAIT
    std::string what;            // the operation, for messages ("ALLREDUCE")
    std::unique_ptr<hal::Event> done;
    std::chrono::steady_clock::time_point start;
    std::mutex mutex;
    std::condition_variable changed;
    bool finished = false;
    std::string error;  // set by the watchdog
  };

 private:
  struct DeviceComm {
    std::shared_ptr<hal::Communicator> comm;
    hal::StreamId stream = 0;
  };
  DeviceComm& device_comm(int device_index);
  void watch();
  [[noreturn]] static void end_process(const std::string& error);
  void throw_if_failed() const;

  c10::intrusive_ptr<c10d::Store> store_;
  int rank_, size_;
  std::chrono::milliseconds timeout_;
  const bool blocking_wait_;
  std::map<int, DeviceComm> comms_;  // by hal index; used from the calling thread only

  mutable std::mutex mutex_;         // guards pending_, error_, stop_
  std::condition_variable wake_;
  std::vector<std::shared_ptr<Pending>> pending_;
  std::string error_;                // the first asynchronous error or timeout: every later call raises it
  bool stop_ = false;
  std::thread watchdog_;
};

}  // namespace torch_hal::distributed
