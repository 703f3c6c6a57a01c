// The kernel families of ops 900..999 (adapter.h): batch norm, group and RMS norm, pooling, upsampling.
// launch_norm_pool (norm_pool.cpp) is their one entry point in the op routing (op_families.h); it hands
// each op to its file's launcher. Plain C++, like op_call.h.
#pragma once

#include "kernels/op_call.h"

namespace hal_gpu {

hal_status_t launch_batch_norm(const OpCall& call);  // BATCH_NORM, BATCH_NORM_BACKWARD (batch_norm.cu)
hal_status_t launch_group_norm(const OpCall& call);  // GROUP_NORM.., RMS_NORM.. (group_norm.cu)
hal_status_t launch_pooling(const OpCall& call);     // MAX_POOL2D.., AVG_POOL2D.., ADAPTIVE_*_POOL2D.. (pooling.cu)
hal_status_t launch_upsample(const OpCall& call);    // UPSAMPLE_NEAREST2D.., UPSAMPLE_BILINEAR2D.. (upsample.cu)

}  // namespace hal_gpu
