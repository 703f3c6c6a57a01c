// How the hal tensors of one collective reach an engine that reads and writes CPU memory (gloo).
// Host-accessible devices (the host reference device, unified memory) are seen through CPU views of the
// very same memory: no copy. Other devices are staged: inputs copied to CPU tensors before the collective,
// outputs copied back once it completed.
#pragma once

#include <ATen/ATen.h>

#include <set>
#include <utility>
#include <vector>

namespace torch_hal::distributed {

class HostStaging {
 public:
  enum class Role { In, Out, InOut };

  // The CPU tensor the engine should use in place of `t` (a hal tensor; a CPU tensor is returned as is). Waits for the work already queued
  // on the device's current stream, so the engine sees the values the caller's stream order promised.
  at::Tensor host(const at::Tensor& t, Role role);
  std::vector<at::Tensor> host(const std::vector<at::Tensor>& ts, Role role);
  std::vector<std::vector<at::Tensor>> host(const std::vector<std::vector<at::Tensor>>& lists, Role role);

  // ReduceOp.AVG: engines without it sum, then finish() divides the outputs by `divisor`.
  void divide_outputs_by(int64_t divisor) { divisor_ = divisor; }

  // Called once the engine completed: divides where asked, copies staged outputs back to the hal tensors.
  void finish();

  // The hal tensors a Work's future yields (the outputs, or the in-place tensors).
  std::vector<at::Tensor> results;

 private:
  void wait_for_current_stream(const at::Tensor& t);

  std::vector<at::Tensor> keep_alive_;                      // hal tensors the engine uses, until it is done
  std::vector<std::pair<at::Tensor, at::Tensor>> outputs_;  // (hal, host) of each output
  std::set<int> waited_devices_;
  int64_t divisor_ = 0;
};

}  // namespace torch_hal::distributed
