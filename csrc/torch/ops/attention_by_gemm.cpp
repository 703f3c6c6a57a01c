// Attention through GEMMs (attention_by_gemm.h), a chunk of (batch, head) pairs at a time:
//   forward:  scores = scale q k^T (GEMM), probs = ATTENTION_SOFTMAX(scores + bias, causal) in place,
//             out = probs v (GEMM);
//   backward: probs recomputed as above, dv = probs^T dout, dprobs = dout v^T (GEMMs),
//             dscores = probs (dprobs - rowsum(probs dprobs)) in place (SOFTMAX_BACKWARD; the row sum equals
//             rowsum(dout out), the delta of the flash backward), dq = scale dscores k, dk = scale dscores^T q.
// Dropout multiplies the probabilities by a keep-mask drawn chunk by chunk (redrawn in the backward from the
// same counters) and folds 1 / (1 - p) into the GEMMs' alpha.
// Saved probabilities: where one call's probabilities fit TORCH_HAL_ATTENTION_SAVED_MB (default 64) and the
// workspace limit, the forward writes them after the log-sum-exp in one allocation, and the backward finds
// them through the log-sum-exp it is handed (SavedProbabilities below) instead of recomputing them: one GEMM
// and one softmax less, 34 us of a layer's 190 us on the H100 for BERT's [8, 8, 256, 256] f32. The memory is
// the math path's (the probabilities live from forward to backward), bounded by the setting.
// Grouped-query heads: key and value are expanded to the query's heads (a copy the size of k and v), and
// dk, dv summed back over each group.
// The GEMMs read q, k, v and dout, and write out, dq, dk and dv, where they lie: as 4-D [nb, nh, rows, cols]
// products (HAL_OP_GEMM's 4-D form), whose heads may be slices of a fused QKV projection ([B, L, 3, H, D]
// viewed as [B, H, L, D]: no single batch stride). Making them dense instead cost 11 copies per layer, 0.43 ms
// of GPT-2's 13 ms compiled step on the H100. An adapter that declines 4-D products gets dense 3-D copies.
#include "ops/attention_by_gemm.h"

#include <ATen/ops/bmm.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/sum.h>
#include <ATen/record_function.h>
#include <c10/util/irange.h>

#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>
#include <c10/util/strides.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "dispatch/native_first.h"
#include "hal/environment.h"
#include "ops/attention_result.h"
#include "runtime/generator.h"
#include "runtime/hal_context.h"

namespace torch_hal::native {
namespace {

constexpr double kDefaultWorkspaceMiB = 256;
constexpr double kDefaultSavedMiB = 64;

void validate_attention_limits();

// Both limits are validated at import too (an import check of runtime/hal_context.h), after the op paths'
// switches (10) and TORCH_HAL_BLOCKING_WAIT (20).
const ImportCheck kValidateAttentionLimits(30, &validate_attention_limits);

}  // namespace

// Read at every call, so that a process (a test) can change it; validated at import too (kValidateAttentionLimits).
size_t attention_workspace_limit_bytes() {
  const double mib = call_core([] { return hal::env_decimal("TORCH_HAL_ATTENTION_WORKSPACE_MB", 1 << 20); })
                         .value_or(kDefaultWorkspaceMiB);
  return static_cast<size_t>(mib * 1024 * 1024);
}

size_t attention_saved_probabilities_limit_bytes() {
  const double mib = call_core([] { return hal::env_decimal("TORCH_HAL_ATTENTION_SAVED_MB", 1 << 20); })
                         .value_or(kDefaultSavedMiB);
  return static_cast<size_t>(mib * 1024 * 1024);
}

namespace {

void validate_attention_limits() {
  attention_workspace_limit_bytes();
  attention_saved_probabilities_limit_bytes();
}

}  // namespace

namespace {

// The probabilities a forward saved for its backward, found again through the log-sum-exp it returned.
// The forward allocates [log-sum-exp | padding | probabilities] as one storage and returns the log-sum-exp
// as a view of its front; the probabilities live exactly as long as that storage, which autograd (or a
// compiled graph) keeps from forward to backward. A record names the storage weakly (it does not keep it
// alive, and its address cannot be reused while the record exists) and the operands the probabilities were
// computed from, so that a backward handed anything else recomputes them.
class SavedProbabilities {
 public:
  struct Record {
    c10::weak_intrusive_ptr<c10::StorageImpl> storage;
    const void *q, *k, *v, *bias;
    std::vector<int64_t> shape;  // [B, H, L, S]
    at::ScalarType dtype;
    double scale;
    bool causal;
    int64_t offset;  // in elements of dtype
  };

  void remember(Record record) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(records_, [](const Record& r) { return r.storage.expired(); });
    records_.push_back(std::move(record));
  }

  // The probabilities [B, H, L, S] saved with `lse`, if they were computed from these operands.
  at::Tensor find(const at::Tensor& lse, const AttentionOperands& a) {
    if (!lse.defined() || !lse.has_storage()) return at::Tensor();  // a caller of the op itself may pass none
    const c10::StorageImpl* storage = lse.storage().unsafeGetStorageImpl();
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Record& r : records_) {
      const auto alive = r.storage.lock();
      if (alive.get() != storage || !matches(r, a)) continue;
      at::Tensor probs = at::empty({0}, a.q.options());
      probs.set_(lse.storage(), r.offset, r.shape, c10::contiguous_strides(r.shape));
      return probs;
    }
    return at::Tensor();
  }

 private:
  static bool matches(const Record& r, const AttentionOperands& a) {
    const void* bias = a.bias.defined() ? a.bias.data_ptr() : nullptr;
    return r.q == a.q.data_ptr() && r.k == a.k.data_ptr() && r.v == a.v.data_ptr() && r.bias == bias &&
           r.dtype == a.q.scalar_type() && r.scale == a.scale && r.causal == a.causal &&
           r.shape == std::vector<int64_t>{a.q.size(0), a.q.size(1), a.q.size(2), a.k.size(2)};
  }

  std::mutex mutex_;
  std::vector<Record> records_;  // a few: one per attention layer between its forward and backward
};

SavedProbabilities& saved_probabilities() {
  static auto* saved = new SavedProbabilities();  // leaked: outlives every tensor, as the allocator does
  return *saved;
}

// The log-sum-exp [B, H, L] (f32) and, where `save`, the probabilities [B, H, L, S] in the same storage.
std::pair<at::Tensor, at::Tensor> lse_and_saved_probabilities(const AttentionOperands& a, bool save) {
  const int64_t B = a.q.size(0), H = a.q.size(1), L = a.q.size(2), S = a.k.size(2);
  const at::TensorOptions f32 = a.q.options().dtype(at::kFloat);
  if (!save) return {at::empty({B, H, L}, f32), at::Tensor()};
  constexpr int64_t kAlignment = 256;
  const int64_t lse_bytes = (B * H * L * 4 + kAlignment - 1) / kAlignment * kAlignment;
  const int64_t probs_bytes = B * H * L * S * a.q.element_size();
  const at::Tensor storage = at::empty({lse_bytes + probs_bytes}, a.q.options().dtype(at::kByte));
  const at::Tensor lse = at::empty({0}, f32).set_(storage.storage(), 0, {B, H, L}, {H * L, L, 1});
  const std::vector<int64_t> shape{B, H, L, S};
  const int64_t offset = lse_bytes / a.q.element_size();
  const at::Tensor probs = at::empty({0}, a.q.options()).set_(storage.storage(), offset, shape,
                                                               c10::contiguous_strides(shape));
  saved_probabilities().remember({storage.storage().getWeakStorageImpl(), a.q.data_ptr(), a.k.data_ptr(),
                                  a.v.data_ptr(), a.bias.defined() ? a.bias.data_ptr() : nullptr, shape,
                                  a.q.scalar_type(), a.scale, a.causal, offset});
  return {lse, probs};
}

bool adapter_has_attention_softmax(c10::DeviceIndex index) {
  if (!has_native_kernels(index)) return false;
  const hal::Device& dev = device(index);
  const hal_adapter_t& table = dev.table();
  return table.op_supported != nullptr &&
         table.op_supported(dev.local_index, HAL_OP_ATTENTION_SOFTMAX, nullptr, 0) == HAL_STATUS_SUCCESS;
}

// A run of (batch, head) pairs whose score matrices share the workspace: whole batches [b, b + nb) with
// every head, or heads [h, h + nh) of one batch, so that its slice of a contiguous [B, H, ...] tensor (the
// mask, the log-sum-exp) is contiguous too.
struct Chunk {
  int64_t b, nb, h, nh;
  int64_t pairs() const { return nb * nh; }
  // The chunk's slice of t; t itself for a chunk of every pair (the usual case: two narrow() calls per
  // operand cost host time that a launch-bound step shows).
  at::Tensor of(const at::Tensor& t) const {
    if (b == 0 && h == 0 && nb == t.size(0) && nh == t.size(1)) return t;
    return t.narrow(0, b, nb).narrow(1, h, nh);
  }
};

// A matrix operand the GEMMs can read as it lies: unit stride along one of its last two dims.
at::Tensor blas_readable(const at::Tensor& t) {
  return (t.stride(-1) == 1 || t.stride(-2) == 1 || t.size(-1) <= 1 || t.size(-2) <= 1) ? t : t.contiguous();
}

// out = alpha * a @ b over [nb, nh, rows, cols] operands of any batch strides: one 4-D HAL_OP_GEMM, or, on an
// adapter that declines 4-D products, 3-D products of dense copies.
void product(const at::Tensor& out, const at::Tensor& a, const at::Tensor& b, double alpha) {
  RECORD_FUNCTION("torch_hal::attention_gemm", std::vector<c10::IValue>());  // the route, in profiles
  KernelArgs args;
  args.input(a).input(b).absent_input().output(out).scalar(alpha).scalar(0.0);
  if (launch(out.device().index(), HAL_OP_GEMM, args)) return;
  const auto flat = [](const at::Tensor& t) { return t.contiguous().view({-1, t.size(2), t.size(3)}); };
  const at::Tensor result = at::bmm(flat(a), flat(b));
  out.copy_(alpha == 1.0 ? result.view(out.sizes()) : result.view(out.sizes()).mul_(alpha));
}

std::vector<Chunk> plan_chunks(int64_t B, int64_t H, size_t bytes_per_pair, size_t limit) {
  const auto pairs_that_fit = static_cast<int64_t>(limit / std::max<size_t>(bytes_per_pair, 1));
  std::vector<Chunk> chunks;
  if (pairs_that_fit >= B * H) {
    chunks.push_back({0, B, 0, H});
  } else if (pairs_that_fit >= H) {
    const int64_t nb = pairs_that_fit / H;
    for (int64_t b = 0; b < B; b += nb) chunks.push_back({b, std::min(nb, B - b), 0, H});
  } else {
    const int64_t nh = std::max<int64_t>(pairs_that_fit, 1);
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t h = 0; h < H; h += nh) chunks.push_back({b, 1, h, std::min(nh, H - h)});
    }
  }
  return chunks;
}

// The mask's element 0 of a chunk: chunks are contiguous runs of (batch, head) pairs.
int64_t first_element(const Chunk& c, int64_t H, int64_t L, int64_t S) { return (c.b * H + c.h) * L * S; }

int64_t largest_chunk(const std::vector<Chunk>& chunks) {
  int64_t most = 0;
  for (const Chunk& c : chunks) most = std::max(most, c.pairs());
  return most;
}

// k or v [B, Hk, S, D] as [B, Hq, S, D]: query head h reads key head h / (Hq / Hk).
at::Tensor per_query_head(const at::Tensor& t, int64_t Hq) {
  const int64_t B = t.size(0), Hk = t.size(1), S = t.size(2), D = t.size(3);
  if (Hk == Hq) return blas_readable(t);
  // reshape is a view where it can be (one key head: stride 0 across the query heads); the GEMMs need it dense.
  return t.unsqueeze(2).expand({B, Hk, Hq / Hk, S, D}).reshape({B, Hq, S, D}).contiguous();
}

// The GEMMs write the results in any layout (product()): the result itself is written.
bool any_layout(const at::Tensor&) { return true; }

void check_launched(bool launched, const at::Tensor& q, const char* what) {
  TORCH_CHECK(launched, "torch_hal: the ", what, " kernel of attention on ", q.device(),
              " declined its arguments (this is a bug in torch_hal; please report it). Meanwhile set "
              "TORCH_HAL_ATTENTION_WORKSPACE_MB=0 to use the tiled attention kernels.");
}

// probs (and lse) = ATTENTION_SOFTMAX(scores + bias), in place over `scores` [nb, nh, L, S].
void softmax_in_place(const at::Tensor& scores, const at::Tensor& bias, const at::Tensor& lse, bool causal) {
  KernelArgs args;
  args.input(scores);
  if (bias.defined()) args.input(bias);
  else args.absent_input();
  args.output(scores).output(lse).scalar(causal);
  check_launched(launch(scores.device().index(), HAL_OP_ATTENTION_SOFTMAX, args), scores, "softmax");
}

// dprobs becomes dscores = probs (dprobs - rowsum(probs dprobs)), in place; both [nb, nh, L, S], dense.
void softmax_backward_in_place(const at::Tensor& dprobs, const at::Tensor& probs) {
  KernelArgs args;
  args.input(dprobs).input(probs).output(dprobs).scalar(static_cast<int64_t>(dprobs.dim() - 1));
  check_launched(launch(dprobs.device().index(), HAL_OP_SOFTMAX_BACKWARD, args), dprobs, "softmax backward");
}

// `mask` [pairs, L, S] = Bernoulli(1 - p) draws (1 keeps, 0 drops) at counters offset + first + i.
void draw_keep_mask(const at::Tensor& mask, double dropout_p, const DropoutDraws& draws, int64_t first) {
  KernelArgs args;
  args.scalar_input(1.0 - dropout_p, at::kDouble)
      .output(mask)
      .scalar(static_cast<int64_t>(draws.seed))
      .scalar(static_cast<int64_t>(draws.offset + static_cast<uint64_t>(first)));
  check_launched(launch(mask.device().index(), HAL_OP_BERNOULLI, args), mask, "dropout mask");
}

// The workspace for `count` score matrices of each pair of the largest chunk.
std::vector<at::Tensor> score_buffers(int count, const std::vector<Chunk>& chunks, int64_t L, int64_t S,
                                      const at::TensorOptions& options) {
  const at::Tensor workspace = at::empty({count, largest_chunk(chunks) * L * S}, options);
  std::vector<at::Tensor> buffers;
  for (const int i : c10::irange(count)) buffers.push_back(workspace[i]);
  return buffers;
}

at::Tensor scores_of(const at::Tensor& buffer, const Chunk& c, int64_t L, int64_t S) {
  return buffer.narrow(0, 0, c.pairs() * L * S).view({c.nb, c.nh, L, S});
}

}  // namespace

bool gemm_attention_applies(const at::Tensor& q, int64_t keys, int matrices) {
  const size_t per_pair = static_cast<size_t>(q.size(2) * keys) * q.element_size() * matrices;
  const size_t limit = attention_workspace_limit_bytes();
  return limit > 0 && per_pair <= limit && adapter_has_attention_softmax(q.device().index());
}

std::tuple<at::Tensor, at::Tensor, DropoutDraws> gemm_attention_forward(const AttentionOperands& a) {
  const int64_t B = a.q.size(0), H = a.q.size(1), L = a.q.size(2), S = a.k.size(2);
  const at::Tensor q = blas_readable(a.q), k = per_query_head(a.k, H), v = per_query_head(a.v, H);
  AttentionResult out(a.q, any_layout);
  const bool dropout = a.dropout_p > 0;
  DropoutDraws draws;
  if (dropout) {
    const auto [seed, offset] =
        philox_seed_and_advance(std::nullopt, a.q.device().index(), static_cast<uint64_t>(B * H * L * S));
    draws = {seed, offset};
  }
  const size_t probs_bytes = static_cast<size_t>(B * H * L * S) * q.element_size();
  // Saved, the probabilities are the forward's whole workspace, kept: they fit both limits.
  const bool save = probs_bytes <= std::min(attention_saved_probabilities_limit_bytes(),
                                            attention_workspace_limit_bytes());
  auto [lse, saved] = lse_and_saved_probabilities(a, save);
  // Saved probabilities take the place of the scores' buffer; the workspace then holds dropout's mask alone
  // (they fit the limit, so the mask does too, and the plan is one chunk).
  const int matrices = score_matrices(false, a.dropout_p) - (save ? 1 : 0);
  const auto chunks = plan_chunks(B, H, static_cast<size_t>(L * S) * q.element_size() * matrices,
                                  attention_workspace_limit_bytes());
  const std::vector<at::Tensor> buffers = score_buffers(matrices, chunks, L, S, q.options());
  for (const Chunk& c : chunks) {
    const at::Tensor scores = save ? c.of(saved) : scores_of(buffers[0], c, L, S);
    product(scores, c.of(q), c.of(k).transpose(2, 3), a.scale);
    softmax_in_place(scores, a.bias.defined() ? c.of(a.bias) : at::Tensor(), c.of(lse), a.causal);
    if (dropout) {
      // The dropped probabilities in the mask's buffer: the scores' buffer keeps them undropped, as the
      // backward (saved or recomputed) needs them.
      const at::Tensor dropped = scores_of(buffers[save ? 0 : 1], c, L, S);
      draw_keep_mask(dropped, a.dropout_p, draws, first_element(c, H, L, S));
      dropped.mul_(scores);
      product(c.of(out.written), dropped, c.of(v), 1.0 / (1.0 - a.dropout_p));
    } else {
      product(c.of(out.written), scores, c.of(v), 1.0);
    }
  }
  out.finish();
  return {out.result, lse, draws};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> gemm_attention_backward(const AttentionOperands& a,
                                                                       const at::Tensor& grad_out,
                                                                       const at::Tensor& logsumexp,
                                                                       const DropoutDraws& draws) {
  const int64_t B = a.q.size(0), H = a.q.size(1), L = a.q.size(2), S = a.k.size(2), D = a.q.size(3);
  const int64_t Hk = a.k.size(1);
  const at::Tensor q = blas_readable(a.q), k = per_query_head(a.k, H), v = per_query_head(a.v, H);
  const at::Tensor dout = blas_readable(grad_out);
  AttentionResult dq(a.q, any_layout), dk(a.k, any_layout), dv(a.v, any_layout);
  // Grouped heads: the gradients per query head first, summed over each group at the end.
  const bool grouped = Hk != H;
  const at::Tensor dk_heads = grouped ? at::empty({B, H, S, D}, k.options()) : dk.written;
  const at::Tensor dv_heads = grouped ? at::empty({B, H, S, D}, v.options()) : dv.written;
  const bool dropout = a.dropout_p > 0;
  const double kept = 1.0 / (1.0 - a.dropout_p);  // dropout's scaling of what it keeps (1 without dropout)
  // The forward's probabilities where it saved them (and was handed these operands): the workspace then
  // holds the scores' gradient (and dropout's mask) only, and is never written over the saved ones, which a
  // second backward (retain_graph) reads again. The chunks are planned for the workspace alone: with dropout
  // it holds two matrices a pair, which may not fit the limit in one chunk even where the saved ones did.
  const at::Tensor saved = saved_probabilities().find(logsumexp, a);
  const int matrices = score_matrices(true, a.dropout_p) - (saved.defined() ? 1 : 0);
  const auto chunks = plan_chunks(B, H, static_cast<size_t>(L * S) * q.element_size() * matrices,
                                  attention_workspace_limit_bytes());
  const std::vector<at::Tensor> buffers = score_buffers(matrices, chunks, L, S, q.options());
  const int first_free = saved.defined() ? 0 : 1;  // buffers[0] holds the recomputed probabilities
  const at::Tensor lse =
      saved.defined() ? at::Tensor() : at::empty({B, H, L}, q.options().dtype(at::kFloat));  // recomputed; unused
  for (const Chunk& c : chunks) {
    const at::Tensor q4 = c.of(q), k4 = c.of(k), v4 = c.of(v), do4 = c.of(dout);
    const at::Tensor dscores = scores_of(buffers[first_free], c, L, S);
    at::Tensor probs = saved.defined() ? c.of(saved) : at::Tensor();  // a chunk's slice of them is dense
    if (!saved.defined()) {
      probs = scores_of(buffers[0], c, L, S);
      product(probs, q4, k4.transpose(2, 3), a.scale);
      softmax_in_place(probs, a.bias.defined() ? c.of(a.bias) : at::Tensor(), c.of(lse), a.causal);
    }
    // dprobs = dout v^T, times the mask (1 / (1 - p) goes into dq's and dk's alpha); then the softmax's
    // backward needs the probabilities before dropout, and dv the ones after (in the mask's buffer).
    product(dscores, do4, v4.transpose(2, 3), 1.0);
    at::Tensor dropped = probs;
    if (dropout) {
      dropped = scores_of(buffers[first_free + 1], c, L, S);
      draw_keep_mask(dropped, a.dropout_p, draws, first_element(c, H, L, S));
      dscores.mul_(dropped);
      dropped.mul_(probs);
    }
    softmax_backward_in_place(dscores, probs);
    product(c.of(dv_heads), dropped.transpose(2, 3), do4, kept);
    product(c.of(dq.written), dscores, k4, a.scale * kept);
    product(c.of(dk_heads), dscores.transpose(2, 3), q4, a.scale * kept);
  }
  if (grouped) {
    at::sum_out(dk.written, dk_heads.view({B, Hk, H / Hk, S, D}), {2});
    at::sum_out(dv.written, dv_heads.view({B, Hk, H / Hk, S, D}), {2});
  }
  dq.finish();
  dk.finish();
  dv.finish();
  return {dq.result, dk.result, dv.result};
}

}  // namespace torch_hal::native
