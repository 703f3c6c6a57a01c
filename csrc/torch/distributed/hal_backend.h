// torch.distributed's backend for hal tensors ("hal" in init_process_group; the default for hal devices).
// Each collective goes to one engine, chosen per device:
//  - gloo on the hal memory itself where the CPU can address it (zero-copy CPU views);
//  - the adapter's own collectives (NCCL, RCCL: adapter.h's hal_collectives_t) where it has them;
//  - gloo on staged CPU copies elsewhere (devices whose adapter has no collectives), and for what the
//    adapter path does not take (non-contiguous tensors, bitwise reductions, lists of several tensors).
// The engine's Work is wrapped in a HalWork, which yields the hal tensors.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "distributed/adapter_engine.h"
#include "distributed/host_staging.h"

namespace torch_hal::distributed {

class HalBackend : public c10d::Backend {
 public:
  // `gloo` is the group's gloo backend over the same ranks (its own store prefix), created by the caller.
  HalBackend(c10::intrusive_ptr<c10d::Store> store, int rank, int size, c10::intrusive_ptr<c10d::Backend> gloo,
             std::chrono::milliseconds timeout);

  const std::string getBackendName() const override { return "hal"; }
  // The gloo backend of the host path (torch_hal/distributed.py gives it the group's CPU tensors).
  c10::intrusive_ptr<c10d::Backend> host_backend() const { return gloo_; }

  // "NCCL 2.x (...)", "gloo (zero-copy on host-accessible memory)" or "gloo (staged through CPU copies)".
  static std::string engine_of(int device_index);

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                      const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                 std::vector<at::Tensor>& inputs,
                                                                 const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_split_sizes,
                                               std::vector<int64_t>& input_split_sizes,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;

  // batch_isend_irecv: between the two, adapter-path sends and receives are collected and then launched
  // as one group (NCCL's ncclGroupStart/End), so a pair of ranks sending to each other cannot deadlock;
  // host-path operations start at once (gloo's are asynchronous) and the returned Work waits for all.
  bool supportsCoalescing() const override { return true; }
  void startCoalescing() override;
  c10::intrusive_ptr<c10d::Work> endCoalescing() override;
  void setTimeout(std::chrono::milliseconds timeout) override {
    gloo_->setTimeout(timeout);
    adapter_.set_timeout(timeout);
  }
  void abort() override {
    adapter_.abort();
    gloo_->abort();
  }
  void shutdown() override { gloo_->shutdown(); }

 private:
  // Gloo has no AVG and no PREMUL_SUM: both become SUM, the division happening in the staging's finish()
  // and the pre-multiplication on the staged inputs. `inputs` are the host tensors the engine will read.
  c10d::ReduceOp host_reduce_op(const c10d::ReduceOp& op, HostStaging& staging, std::vector<at::Tensor>& inputs,
                                bool inputs_are_outputs) const;

  c10::intrusive_ptr<c10d::Work> wrap(c10::intrusive_ptr<c10d::Work> engine_work,
                                      std::shared_ptr<HostStaging> staging, c10d::OpType type) const;

  // Whether `tensors` take the adapter path: one hal device whose adapter has collectives, contiguous
  // tensors of a dtype the ABI names.
  bool on_adapter(const std::vector<at::Tensor>& tensors);
  // The adapter's reduction for `op` (PREMUL_SUM scales `scaled` first: in place, or into a copy), or
  // nullopt where it has none (bitwise ops).
  std::optional<hal_reduce_op_t> adapter_reduce_op(const c10d::ReduceOp& op, at::Tensor& scaled, bool in_place) const;

  // Inside startCoalescing/endCoalescing: records an adapter-path operation for the group launch, or keeps a
  // host-path Work; returns the Work the caller gets.
  c10::intrusive_ptr<c10d::Work> coalesce_or_run(const std::vector<at::Tensor>& tensors, c10d::OpType type,
                                                 AdapterEngine::Launch launch);

  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::Backend> gloo_;
  bool coalescing_ = false;
  std::vector<at::Tensor> coalesced_tensors_;
  std::vector<AdapterEngine::Launch> coalesced_launches_;
  std::vector<c10::intrusive_ptr<c10d::Work>> coalesced_host_works_;
  AdapterEngine adapter_;
  std::map<int, bool> adapter_serves_;  // by hal index
};

}  // namespace torch_hal::distributed
