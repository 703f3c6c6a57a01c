// The kernel files of ops 1210..1299 (adapter.h): tril/triu, running sums and products, the multi-tensor
// norm, GradScaler's two ops, sort and topk, fused attention and the softmax of attention through GEMMs. launch_training_ops (training_ops.cpp) is their one entry point
// in the op routing (op_families.h); it hands each op to its file's launcher. Plain C++, like op_call.h.
#pragma once

#include "kernels/op_call.h"

namespace hal_gpu {

hal_status_t launch_triangular(const OpCall& call);         // TRIL, TRIU (triangular.cu)
hal_status_t launch_scan(const OpCall& call);               // CUMSUM, CUMPROD (scan.cu)
hal_status_t launch_multi_tensor_norm(const OpCall& call);  // FOREACH_NORM, AMP_UNSCALE (multi_tensor_norm.cu)
hal_status_t launch_amp_update_scale(const OpCall& call);   // AMP_UPDATE_SCALE (amp_scale.cu)
hal_status_t launch_sort(const OpCall& call);               // SORT, TOPK (sort.cu)
hal_status_t launch_attention(const OpCall& call);          // ATTENTION, ATTENTION_BACKWARD (attention.cu)
hal_status_t launch_attention_softmax(const OpCall& call);  // ATTENTION_SOFTMAX (attention_softmax.cu)

}  // namespace hal_gpu
