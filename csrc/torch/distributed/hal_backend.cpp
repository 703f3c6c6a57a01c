#include "distributed/hal_backend.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "dispatch/native_launch.h"
#include "distributed/hal_work.h"
#include "runtime/hal_context.h"

namespace torch_hal::distributed {
namespace {

using Role = HostStaging::Role;

std::shared_ptr<HostStaging> new_staging() { return std::make_shared<HostStaging>(); }

}  // namespace

HalBackend::HalBackend(c10::intrusive_ptr<c10d::Store> store, int rank, int size,
                       c10::intrusive_ptr<c10d::Backend> gloo, std::chrono::milliseconds timeout)
    : c10d::Backend(rank, size),
      store_(store),
      gloo_(std::move(gloo)),
      adapter_(c10::make_intrusive<c10d::PrefixStore>("torch_hal/adapter/", store), rank, size, timeout) {
  TORCH_CHECK(gloo_, "torch_hal's process group backend needs a gloo backend for its host path");
}

std::string HalBackend::engine_of(int device_index) {
  if (AdapterEngine::serves(device_index)) return AdapterEngine::engine_name(device_index);
  return device(checked_device_index(device_index)).host_accessible()
             ? "gloo (zero-copy on host-accessible memory)"
             : "gloo (staged through CPU copies)";
}

c10d::ReduceOp HalBackend::host_reduce_op(const c10d::ReduceOp& op, HostStaging& staging,
                                          std::vector<at::Tensor>& inputs, bool inputs_are_outputs) const {
  if (op == c10d::ReduceOp::AVG) {
    staging.divide_outputs_by(size_);
    return c10d::ReduceOp(c10d::ReduceOp::SUM);
  }
  if (op == c10d::ReduceOp::PREMUL_SUM) {
    auto* factor = dynamic_cast<c10d::NCCLPreMulSumSupplement*>(op.supplement_.get());
    TORCH_CHECK(factor, "ReduceOp.PREMUL_SUM came without its factor");
    for (auto& t : inputs) {
      if (factor->tensor_factor.defined()) {
        const auto f = factor->tensor_factor.to(at::kCPU);
        t = inputs_are_outputs ? t.mul_(f) : t.mul(f);
      } else {
        t = inputs_are_outputs ? t.mul_(factor->double_factor) : t.mul(factor->double_factor);
      }
    }
    return c10d::ReduceOp(c10d::ReduceOp::SUM);
  }
  return op;
}

bool HalBackend::on_adapter(const std::vector<at::Tensor>& tensors) {
  if (tensors.empty() || tensors[0].device().type() != kHal) return false;
  const int index = tensors[0].device().index();
  for (const auto& t : tensors) {
    if (t.device() != tensors[0].device() || !t.is_contiguous() || !native::hal_dtype_of(t.scalar_type())) {
      return false;
    }
  }
  auto found = adapter_serves_.find(index);
  if (found == adapter_serves_.end()) found = adapter_serves_.emplace(index, AdapterEngine::serves(index)).first;
  return found->second;
}

std::optional<hal_reduce_op_t> HalBackend::adapter_reduce_op(const c10d::ReduceOp& op, at::Tensor& scaled,
                                                             bool in_place) const {
  switch (op.op_) {
    case c10d::ReduceOp::SUM: return HAL_REDUCE_SUM;
    case c10d::ReduceOp::PRODUCT: return HAL_REDUCE_PROD;
    case c10d::ReduceOp::MIN: return HAL_REDUCE_MIN;
    case c10d::ReduceOp::MAX: return HAL_REDUCE_MAX;
    case c10d::ReduceOp::AVG: return HAL_REDUCE_AVG;
    case c10d::ReduceOp::PREMUL_SUM: {
      auto* factor = dynamic_cast<c10d::NCCLPreMulSumSupplement*>(op.supplement_.get());
      TORCH_CHECK(factor, "ReduceOp.PREMUL_SUM came without its factor");
      // On the caller's stream, which the communication stream waits for.
      if (factor->tensor_factor.defined()) {
        const auto f = factor->tensor_factor.to(scaled.device());
        scaled = in_place ? scaled.mul_(f) : scaled.mul(f);
      } else {
        scaled = in_place ? scaled.mul_(factor->double_factor) : scaled.mul(factor->double_factor);
      }
      return HAL_REDUCE_SUM;
    }
    default: return std::nullopt;
  }
}

c10::intrusive_ptr<c10d::Work> HalBackend::wrap(c10::intrusive_ptr<c10d::Work> engine_work,
                                                std::shared_ptr<HostStaging> staging, c10d::OpType type) const {
  return c10::make_intrusive<HalWork>(std::move(engine_work), std::move(staging), type, nullptr);
}

c10::intrusive_ptr<c10d::Work> HalBackend::broadcast(std::vector<at::Tensor>& tensors,
                                                     const c10d::BroadcastOptions& opts) {
  if (tensors.size() == 1 && on_adapter(tensors)) {
    at::Tensor t = tensors[0];
    const hal_dtype_t dtype = *native::hal_dtype_of(t.scalar_type());
    const int root = static_cast<int>(opts.rootRank);
    return adapter_.run(tensors, tensors, c10d::OpType::BROADCAST, [=](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().broadcast(c.handle(), t.data_ptr(), t.data_ptr(), t.numel(), dtype, root, s), "broadcast");
    });
  }
  auto staging = new_staging();
  auto host = staging->host(tensors, rank_ == opts.rootRank ? Role::In : Role::InOut);
  staging->results = tensors;
  return wrap(gloo_->broadcast(host, opts), staging, c10d::OpType::BROADCAST);
}

c10::intrusive_ptr<c10d::Work> HalBackend::allreduce(std::vector<at::Tensor>& tensors,
                                                     const c10d::AllreduceOptions& opts) {
  if (tensors.size() == 1 && on_adapter(tensors)) {
    at::Tensor t = tensors[0];
    if (const auto op = adapter_reduce_op(opts.reduceOp, t, /*in_place=*/true)) {
      const hal_dtype_t dtype = *native::hal_dtype_of(t.scalar_type());
      const hal_reduce_op_t reduce_op = *op;
      return adapter_.run(tensors, tensors, c10d::OpType::ALLREDUCE, [=](hal::Communicator& c, hal_stream_t s) {
        c.check(c.ops().all_reduce(c.handle(), t.data_ptr(), t.data_ptr(), t.numel(), dtype, reduce_op, s),
                "all_reduce");
      });
    }
  }
  auto staging = new_staging();
  auto host = staging->host(tensors, Role::InOut);
  auto host_opts = opts;
  host_opts.reduceOp = host_reduce_op(opts.reduceOp, *staging, host, /*inputs_are_outputs=*/true);
  staging->results = tensors;
  return wrap(gloo_->allreduce(host, host_opts), staging, c10d::OpType::ALLREDUCE);
}

c10::intrusive_ptr<c10d::Work> HalBackend::allreduce_coalesced(std::vector<at::Tensor>& tensors,
                                                               const c10d::AllreduceCoalescedOptions& opts) {
  auto staging = new_staging();
  auto host = staging->host(tensors, Role::InOut);
  auto host_opts = opts;
  host_opts.reduceOp = host_reduce_op(opts.reduceOp, *staging, host, /*inputs_are_outputs=*/true);
  staging->results = tensors;
  return wrap(gloo_->allreduce_coalesced(host, host_opts), staging, c10d::OpType::ALLREDUCE_COALESCED);
}

c10::intrusive_ptr<c10d::Work> HalBackend::reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts) {
  if (tensors.size() == 1 && on_adapter(tensors)) {
    at::Tensor t = tensors[0];
    at::Tensor send = t;
    if (const auto op = adapter_reduce_op(opts.reduceOp, send, /*in_place=*/false)) {
      const hal_dtype_t dtype = *native::hal_dtype_of(t.scalar_type());
      const hal_reduce_op_t reduce_op = *op;
      const int root = static_cast<int>(opts.rootRank);
      return adapter_.run({t, send}, tensors, c10d::OpType::REDUCE, [=](hal::Communicator& c, hal_stream_t s) {
        c.check(c.ops().reduce(c.handle(), send.data_ptr(), t.data_ptr(), t.numel(), dtype, reduce_op, root, s),
                "reduce");
      });
    }
  }
  auto staging = new_staging();
  const bool root = rank_ == opts.rootRank;
  auto host = staging->host(tensors, root ? Role::InOut : Role::In);
  // gloo uses a non-root rank's tensor as scratch; NCCL leaves it as it was, and so do we.
  if (!root) {
    for (auto& h : host) h = h.clone();
  }
  auto host_opts = opts;
  // Off the root the tensor is only read (as NCCL leaves it): a PREMUL_SUM scales a copy there.
  host_opts.reduceOp = host_reduce_op(opts.reduceOp, *staging, host, /*inputs_are_outputs=*/root);
  staging->results = tensors;
  return wrap(gloo_->reduce(host, host_opts), staging, c10d::OpType::REDUCE);
}

c10::intrusive_ptr<c10d::Work> HalBackend::allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                                     std::vector<at::Tensor>& inputs,
                                                     const c10d::AllgatherOptions& opts) {
  if (inputs.size() == 1 && outputs.size() == 1 && on_adapter({inputs[0]})) {
    // Gathered into one buffer, then copied to the list on the communication stream.
    at::Tensor in = inputs[0];
    at::Tensor flat = at::empty({size_ * in.numel()}, in.options());
    std::vector<at::Tensor> outs = outputs[0];
    const hal_dtype_t dtype = *native::hal_dtype_of(in.scalar_type());
    std::vector<at::Tensor> used = outs;
    used.push_back(in);
    used.push_back(flat);
    return adapter_.run(used, outs, c10d::OpType::ALLGATHER, [=](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().all_gather(c.handle(), in.data_ptr(), flat.data_ptr(), in.numel(), dtype, s), "all_gather");
      for (size_t r = 0; r < outs.size(); ++r) {
        outs[r].copy_(flat.narrow(0, static_cast<int64_t>(r) * in.numel(), in.numel()).view_as(outs[r]));
      }
    });
  }
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  for (const auto& l : outputs) staging->results.insert(staging->results.end(), l.begin(), l.end());
  return wrap(gloo_->allgather(host_out, host_in, opts), staging, c10d::OpType::ALLGATHER);
}

c10::intrusive_ptr<c10d::Work> HalBackend::_allgather_base(at::Tensor& output, at::Tensor& input,
                                                           const c10d::AllgatherOptions& opts) {
  if (on_adapter({output, input}) && output.scalar_type() == input.scalar_type()) {
    at::Tensor in = input, out = output;
    const hal_dtype_t dtype = *native::hal_dtype_of(in.scalar_type());
    return adapter_.run({in, out}, {out}, c10d::OpType::_ALLGATHER_BASE, [=](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().all_gather(c.handle(), in.data_ptr(), out.data_ptr(), in.numel(), dtype, s), "all_gather");
    });
  }
  auto staging = new_staging();
  auto host_in = staging->host(input, Role::In);
  auto host_out = staging->host(output, Role::Out);
  staging->results = {output};
  return wrap(gloo_->_allgather_base(host_out, host_in, opts), staging, c10d::OpType::_ALLGATHER_BASE);
}

c10::intrusive_ptr<c10d::Work> HalBackend::allgather_coalesced(std::vector<std::vector<at::Tensor>>& outputs,
                                                               std::vector<at::Tensor>& inputs,
                                                               const c10d::AllgatherOptions& opts) {
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  for (const auto& l : outputs) staging->results.insert(staging->results.end(), l.begin(), l.end());
  return wrap(gloo_->allgather_coalesced(host_out, host_in, opts), staging, c10d::OpType::ALLGATHER_COALESCED);
}

c10::intrusive_ptr<c10d::Work> HalBackend::allgather_into_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                           std::vector<at::Tensor>& inputs,
                                                                           const c10d::AllgatherOptions& opts) {
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  staging->results = outputs;
  return wrap(gloo_->allgather_into_tensor_coalesced(host_out, host_in, opts), staging,
              c10d::OpType::COALESCED);
}

c10::intrusive_ptr<c10d::Work> HalBackend::gather(std::vector<std::vector<at::Tensor>>& outputs,
                                                  std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts) {
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  for (const auto& l : outputs) staging->results.insert(staging->results.end(), l.begin(), l.end());
  return wrap(gloo_->gather(host_out, host_in, opts), staging, c10d::OpType::GATHER);
}

c10::intrusive_ptr<c10d::Work> HalBackend::scatter(std::vector<at::Tensor>& outputs,
                                                   std::vector<std::vector<at::Tensor>>& inputs,
                                                   const c10d::ScatterOptions& opts) {
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  staging->results = outputs;
  return wrap(gloo_->scatter(host_out, host_in, opts), staging, c10d::OpType::SCATTER);
}

c10::intrusive_ptr<c10d::Work> HalBackend::reduce_scatter(std::vector<at::Tensor>& outputs,
                                                          std::vector<std::vector<at::Tensor>>& inputs,
                                                          const c10d::ReduceScatterOptions& opts) {
  if (outputs.size() == 1 && inputs.size() == 1 && on_adapter({outputs[0]}) && on_adapter(inputs[0])) {
    at::Tensor flat = at::cat(inputs[0]).reshape({-1});  // on the caller's stream
    return _reduce_scatter_base(outputs[0], flat, opts);
  }
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  auto host_opts = opts;
  for (auto& l : host_in) host_opts.reduceOp = host_reduce_op(opts.reduceOp, *staging, l, false);
  staging->results = outputs;
  return wrap(gloo_->reduce_scatter(host_out, host_in, host_opts), staging, c10d::OpType::REDUCE_SCATTER);
}

c10::intrusive_ptr<c10d::Work> HalBackend::_reduce_scatter_base(at::Tensor& output, at::Tensor& input,
                                                                const c10d::ReduceScatterOptions& opts) {
  if (on_adapter({output, input}) && output.scalar_type() == input.scalar_type()) {
    at::Tensor in = input, out = output;
    if (const auto op = adapter_reduce_op(opts.reduceOp, in, /*in_place=*/false)) {
      const hal_dtype_t dtype = *native::hal_dtype_of(in.scalar_type());
      const hal_reduce_op_t reduce_op = *op;
      return adapter_.run({in, out}, {out}, c10d::OpType::_REDUCE_SCATTER_BASE,
                          [=](hal::Communicator& c, hal_stream_t s) {
                            c.check(c.ops().reduce_scatter(c.handle(), in.data_ptr(), out.data_ptr(), out.numel(),
                                                           dtype, reduce_op, s),
                                    "reduce_scatter");
                          });
    }
  }
  auto staging = new_staging();
  std::vector<at::Tensor> host_in = {staging->host(input, Role::In)};
  auto host_out = staging->host(output, Role::Out);
  auto host_opts = opts;
  host_opts.reduceOp = host_reduce_op(opts.reduceOp, *staging, host_in, false);
  staging->results = {output};
  return wrap(gloo_->_reduce_scatter_base(host_out, host_in[0], host_opts), staging,
              c10d::OpType::_REDUCE_SCATTER_BASE);
}

c10::intrusive_ptr<c10d::Work> HalBackend::reduce_scatter_tensor_coalesced(std::vector<at::Tensor>& outputs,
                                                                           std::vector<at::Tensor>& inputs,
                                                                           const c10d::ReduceScatterOptions& opts) {
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  auto host_opts = opts;
  host_opts.reduceOp = host_reduce_op(opts.reduceOp, *staging, host_in, false);
  staging->results = outputs;
  return wrap(gloo_->reduce_scatter_tensor_coalesced(host_out, host_in, host_opts), staging,
              c10d::OpType::COALESCED);
}

c10::intrusive_ptr<c10d::Work> HalBackend::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                         std::vector<int64_t>& output_split_sizes,
                                                         std::vector<int64_t>& input_split_sizes,
                                                         const c10d::AllToAllOptions& opts) {
  if (on_adapter({output, input}) && output.scalar_type() == input.scalar_type() && output.dim() > 0 &&
      input.dim() > 0) {
    // Sends and receives to every peer in one group, as torch.cuda's NCCL backend does.
    at::Tensor in = input, out = output;
    const int64_t in_row = input.size(0) ? input.numel() / input.size(0) : 0;
    const int64_t out_row = output.size(0) ? output.numel() / output.size(0) : 0;
    auto counts = [&](const std::vector<int64_t>& splits, const at::Tensor& t, int64_t row) {
      std::vector<int64_t> c(size_);
      for (int p = 0; p < size_; ++p) c[p] = (splits.empty() ? t.size(0) / size_ : splits[p]) * row;
      return c;
    };
    const auto send_counts = counts(input_split_sizes, in, in_row);
    const auto recv_counts = counts(output_split_sizes, out, out_row);
    const hal_dtype_t dtype = *native::hal_dtype_of(in.scalar_type());
    const size_t element = in.element_size();
    return adapter_.run({in, out}, {out}, c10d::OpType::ALLTOALL_BASE, [=](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().group_start(), "group_start");
      int64_t send_offset = 0, recv_offset = 0;
      for (int p = 0; p < static_cast<int>(send_counts.size()); ++p) {
        c.check(c.ops().send(c.handle(), static_cast<char*>(in.data_ptr()) + send_offset * element, send_counts[p],
                             dtype, p, s),
                "send");
        c.check(c.ops().recv(c.handle(), static_cast<char*>(out.data_ptr()) + recv_offset * element, recv_counts[p],
                             dtype, p, s),
                "recv");
        send_offset += send_counts[p];
        recv_offset += recv_counts[p];
      }
      c.check(c.ops().group_end(), "group_end");
    });
  }
  auto staging = new_staging();
  auto host_in = staging->host(input, Role::In);
  auto host_out = staging->host(output, Role::Out);
  staging->results = {output};
  return wrap(gloo_->alltoall_base(host_out, host_in, output_split_sizes, input_split_sizes, opts), staging,
              c10d::OpType::ALLTOALL_BASE);
}

c10::intrusive_ptr<c10d::Work> HalBackend::alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,
                                                    const c10d::AllToAllOptions& opts) {
  std::vector<at::Tensor> all = outputs;
  all.insert(all.end(), inputs.begin(), inputs.end());
  if (static_cast<int>(inputs.size()) == size_ && static_cast<int>(outputs.size()) == size_ && on_adapter(all)) {
    // One send and one receive per peer, in one group.
    std::vector<at::Tensor> ins = inputs, outs = outputs;
    return adapter_.run(all, outs, c10d::OpType::ALLTOALL, [ins, outs](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().group_start(), "group_start");
      for (size_t p = 0; p < ins.size(); ++p) {
        const int peer = static_cast<int>(p);
        c.check(c.ops().send(c.handle(), ins[p].data_ptr(), ins[p].numel(), *native::hal_dtype_of(ins[p].scalar_type()),
                             peer, s),
                "send");
        c.check(c.ops().recv(c.handle(), outs[p].data_ptr(), outs[p].numel(),
                             *native::hal_dtype_of(outs[p].scalar_type()), peer, s),
                "recv");
      }
      c.check(c.ops().group_end(), "group_end");
    });
  }
  auto staging = new_staging();
  auto host_in = staging->host(inputs, Role::In);
  auto host_out = staging->host(outputs, Role::Out);
  staging->results = outputs;
  return wrap(gloo_->alltoall(host_out, host_in, opts), staging, c10d::OpType::ALLTOALL);
}

c10::intrusive_ptr<c10d::Work> HalBackend::send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) {
  if (tensors.size() == 1 && on_adapter(tensors)) {
    at::Tensor t = tensors[0];
    const hal_dtype_t dtype = *native::hal_dtype_of(t.scalar_type());
    return coalesce_or_run(tensors, c10d::OpType::SEND, [=](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().send(c.handle(), t.data_ptr(), t.numel(), dtype, dst_rank, s), "send");
    });
  }
  auto staging = new_staging();
  auto host = staging->host(tensors, Role::In);
  staging->results = tensors;
  auto work = wrap(gloo_->send(host, dst_rank, tag), staging, c10d::OpType::SEND);
  if (coalescing_) coalesced_host_works_.push_back(work);
  return work;
}

c10::intrusive_ptr<c10d::Work> HalBackend::recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) {
  if (tensors.size() == 1 && on_adapter(tensors)) {
    at::Tensor t = tensors[0];
    const hal_dtype_t dtype = *native::hal_dtype_of(t.scalar_type());
    return coalesce_or_run(tensors, c10d::OpType::RECV, [=](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().recv(c.handle(), t.data_ptr(), t.numel(), dtype, src_rank, s), "recv");
    });
  }
  auto staging = new_staging();
  auto host = staging->host(tensors, Role::Out);
  staging->results = tensors;
  auto work = wrap(gloo_->recv(host, src_rank, tag), staging, c10d::OpType::RECV);
  if (coalescing_) coalesced_host_works_.push_back(work);
  return work;
}

c10::intrusive_ptr<c10d::Work> HalBackend::recvAnysource(std::vector<at::Tensor>& tensors, int tag) {
  auto staging = new_staging();
  auto host = staging->host(tensors, Role::Out);
  staging->results = tensors;
  return wrap(gloo_->recvAnysource(host, tag), staging, c10d::OpType::RECVANYSOURCE);
}

namespace {

// A Work that is already complete: what an operation recorded for a group launch returns (the group's Work,
// from endCoalescing, is the one to wait for, as with torch.cuda's NCCL backend).
class RecordedWork : public c10d::Work {
 public:
  explicit RecordedWork(c10d::OpType type) : c10d::Work(-1, type) { finish(); }
};

// The Work of a group of host-path operations: waits for each.
class HostGroupWork : public c10d::Work {
 public:
  explicit HostGroupWork(std::vector<c10::intrusive_ptr<c10d::Work>> works)
      : c10d::Work(-1, c10d::OpType::COALESCED), works_(std::move(works)) {}
  bool isCompleted() override {
    for (auto& w : works_) {
      if (!w->isCompleted()) return false;
    }
    return true;
  }
  bool wait(std::chrono::milliseconds timeout) override {
    for (auto& w : works_) w->wait(timeout);
    return true;
  }

 private:
  std::vector<c10::intrusive_ptr<c10d::Work>> works_;
};

}  // namespace

c10::intrusive_ptr<c10d::Work> HalBackend::coalesce_or_run(const std::vector<at::Tensor>& tensors, c10d::OpType type,
                                                           AdapterEngine::Launch launch) {
  if (!coalescing_) return adapter_.run(tensors, tensors, type, launch);
  coalesced_tensors_.insert(coalesced_tensors_.end(), tensors.begin(), tensors.end());
  coalesced_launches_.push_back(std::move(launch));
  return c10::make_intrusive<RecordedWork>(type);
}

void HalBackend::startCoalescing() {
  TORCH_CHECK(!coalescing_, "torch_hal: startCoalescing while already coalescing");
  coalescing_ = true;
  coalesced_tensors_.clear();
  coalesced_launches_.clear();
  coalesced_host_works_.clear();
}

c10::intrusive_ptr<c10d::Work> HalBackend::endCoalescing() {
  TORCH_CHECK(coalescing_, "torch_hal: endCoalescing without startCoalescing");
  coalescing_ = false;
  auto host_works = std::move(coalesced_host_works_);
  auto launches = std::move(coalesced_launches_);
  auto tensors = std::move(coalesced_tensors_);
  if (!launches.empty()) {
    TORCH_CHECK(host_works.empty(), "torch_hal: one batch of point-to-point operations mixes devices with and "
                                    "without adapter collectives; keep each batch on one device");
    return adapter_.run(tensors, tensors, c10d::OpType::COALESCED, [launches](hal::Communicator& c, hal_stream_t s) {
      c.check(c.ops().group_start(), "group_start");
      for (const auto& launch : launches) launch(c, s);
      c.check(c.ops().group_end(), "group_end");
    });
  }
  return c10::make_intrusive<HostGroupWork>(std::move(host_works));
}

c10::intrusive_ptr<c10d::Work> HalBackend::barrier(const c10d::BarrierOptions& opts) {
  return wrap(gloo_->barrier(opts), new_staging(), c10d::OpType::BARRIER);
}

}  // namespace torch_hal::distributed
