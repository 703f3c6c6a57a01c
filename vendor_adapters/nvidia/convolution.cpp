// HAL_OP_CONVOLUTION and its two backward ops through cuDNN's convolution API (cudnnConvolutionForward,
// BackwardData, BackwardFilter), as torch.cuda runs them. What cuDNN is absent for, or declines, answers
// NOT_SUPPORTED with nothing queued, so the core falls back.
#include "convolution.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "adapter_state.h"
#include "cuda_status.h"
#include "cudnn_library.h"
#include "kernels/adapter_services.h"
#include "kernels/library_handle.h"

namespace hal_nvidia {
namespace {

using hal_gpu::LibraryHandle;

constexpr int kMaxConvDims = 5;  // [N, C, D, H, W]

// The problem as cuDNN takes it: 4 or 5 dims (a 1-D convolution gains a spatial dim of size 1 in front, as
// torch.cuda does), int32 sizes and strides.
struct ConvProblem {
  int ndim = 0;
  int dtype = 0;       // cudnnDataType_t
  bool tf32 = false;   // f32 may use tensor cores
  int groups = 1;
  int w_format = kCudnnNchw;
  int x[kMaxConvDims], x_strides[kMaxConvDims];   // the convolution's input  [N, C, S...]
  int y[kMaxConvDims], y_strides[kMaxConvDims];   // the convolution's output [N, O, Q...]
  int w[kMaxConvDims];                            // the filter [O, C/groups, K...]
  int stride[kMaxConvDims - 2], pad[kMaxConvDims - 2], dilation[kMaxConvDims - 2];
};

std::optional<int> cudnn_type(hal_dtype_t t) {
  if (t.lanes != 1) return std::nullopt;
  if (t.code == HAL_DTYPE_FLOAT && t.bits == 32) return kCudnnFloat;
  if (t.code == HAL_DTYPE_FLOAT && t.bits == 16) return kCudnnHalf;
  if (t.code == HAL_DTYPE_BFLOAT && t.bits == 16) return kCudnnBfloat16;
  if (t.code == HAL_DTYPE_FLOAT && t.bits == 64) return kCudnnDouble;
  return std::nullopt;
}

bool fits_int(int64_t v) { return v >= 0 && v <= std::numeric_limits<int32_t>::max(); }

// t's sizes and strides into cuDNN's int arrays, with the inserted dim of a 1-D convolution.
bool geometry(const hal_tensor_t& t, int ndim, int* sizes, int* strides) {
  const bool lifted = t.ndim == 3;
  int64_t span = 1;  // elements the tensor covers, as a check against int32 offsets
  for (int i = 0, j = 0; i < ndim; ++i) {
    int64_t size, stride;
    if (lifted && i == 2) {
      size = 1;
      stride = t.shape[2] * t.strides[2];
    } else {
      size = t.shape[j];
      stride = t.strides[j];
      ++j;
    }
    if (!fits_int(size) || !fits_int(stride) || size == 0) return false;
    sizes[i] = static_cast<int>(size);
    strides[i] = static_cast<int>(stride);
    span += (size - 1) * stride;
  }
  return fits_int(span);
}

// Whether sizes/strides are dense in NCHW order (nhwc false) or NHWC order (C fastest, then the spatial dims
// from last to first, then N); dims of size 1 may have any stride.
bool dense_in(const int* sizes, const int* strides, int ndim, bool nhwc) {
  int order[kMaxConvDims], n = 0;
  if (nhwc) order[n++] = 1;
  for (int d = ndim - 1; d > 1; --d) order[n++] = d;
  if (!nhwc) order[n++] = 1;
  order[n++] = 0;
  int64_t expected = 1;
  for (int k = 0; k < n; ++k) {
    const int d = order[k];
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// Gives dims of size 1 the stride they would have in a dense tensor of the layout (as torch.cuda's
// fixSizeOneDimStride): cuDNN picks its fast kernels for packed layouts, and a size-1 dim's stride is
// arbitrary in PyTorch.
void fix_size_one_strides(const int* sizes, int* strides, int ndim, bool nhwc) {
  int order[kMaxConvDims], n = 0;
  if (nhwc) order[n++] = 1;
  for (int d = ndim - 1; d > 1; --d) order[n++] = d;
  if (!nhwc) order[n++] = 1;
  order[n++] = 0;
  int64_t z = 1;
  for (int k = 0; k < n; ++k) {
    const int d = order[k];
    if (sizes[d] == 1) {
      if (fits_int(z)) strides[d] = static_cast<int>(z);
    } else {
      z = int64_t{sizes[d]} * strides[d];
    }
  }
}

// Reads the launch into a ConvProblem; false (NOT_SUPPORTED) for what the ABI or cuDNN's int32 API excludes.
bool parse(const hal_gpu::OpCall& call, ConvProblem* p, const hal_tensor_t** x, const hal_tensor_t** w,
           const hal_tensor_t** y) {
  if (call.num_inputs != 2 || call.num_outputs != 1) return false;
  switch (call.op) {
    case HAL_OP_CONVOLUTION: *x = &call.inputs[0]; *w = &call.inputs[1]; *y = &call.outputs[0]; break;
    case HAL_OP_CONVOLUTION_BACKWARD_INPUT: *y = &call.inputs[0]; *w = &call.inputs[1]; *x = &call.outputs[0]; break;
    case HAL_OP_CONVOLUTION_BACKWARD_WEIGHT: *x = &call.inputs[0]; *y = &call.inputs[1]; *w = &call.outputs[0]; break;
    default: return false;
  }
  const int nd = (*x)->ndim;
  if (nd < 3 || nd > 5 || (*w)->ndim != nd || (*y)->ndim != nd) return false;
  if (!(*x)->data || !(*w)->data || !(*y)->data) return false;
  const auto type = cudnn_type((*x)->dtype);
  for (const hal_tensor_t* t : {*w, *y}) {
    const auto other = cudnn_type(t->dtype);
    if (!type || !other || *other != *type) return false;
  }
  const int spatial = nd - 2;
  if (call.num_scalars != 2 + 3 * spatial) return false;
  p->dtype = *type;
  p->ndim = nd == 3 ? 4 : nd;
  p->groups = static_cast<int>(call.scalars[0].value.i);
  p->tf32 = call.scalars[1].value.b != 0;
  if (call.scalars[0].value.i < 1 || !fits_int(call.scalars[0].value.i)) return false;
  const int lift = nd == 3 ? 1 : 0;
  if (lift) {
    p->stride[0] = 1;
    p->pad[0] = 0;
    p->dilation[0] = 1;
  }
  for (int d = 0; d < spatial; ++d) {
    const int64_t s = call.scalars[2 + 3 * d].value.i, pad = call.scalars[3 + 3 * d].value.i,
                  dil = call.scalars[4 + 3 * d].value.i;
    if (s < 1 || dil < 1 || !fits_int(s) || !fits_int(pad) || !fits_int(dil)) return false;
    p->stride[d + lift] = static_cast<int>(s);
    p->pad[d + lift] = static_cast<int>(pad);
    p->dilation[d + lift] = static_cast<int>(dil);
  }
  int w_strides[kMaxConvDims];
  if (!geometry(**x, p->ndim, p->x, p->x_strides) || !geometry(**y, p->ndim, p->y, p->y_strides) ||
      !geometry(**w, p->ndim, p->w, w_strides)) {
    return false;
  }
  // The filter is packed in one of cuDNN's two formats; where both describe it (a 1x1 kernel, one input
  // channel), the input's layout decides, so that cuDNN sees one layout throughout.
  const bool w_first = dense_in(p->w, w_strides, p->ndim, false), w_last = dense_in(p->w, w_strides, p->ndim, true);
  if (!w_first && !w_last) return false;
  const bool x_last = dense_in(p->x, p->x_strides, p->ndim, true) && !dense_in(p->x, p->x_strides, p->ndim, false);
  const bool nhwc = w_last && (!w_first || x_last);
  p->w_format = nhwc ? kCudnnNhwc : kCudnnNchw;
  fix_size_one_strides(p->x, p->x_strides, p->ndim, nhwc);
  fix_size_one_strides(p->y, p->y_strides, p->ndim, nhwc);
  // The shapes agree with the ABI's formula (a mismatch would make cuDNN read or write out of bounds).
  if (p->x[0] != p->y[0] || p->w[0] != p->y[1] || static_cast<int64_t>(p->w[1]) * p->groups != p->x[1] ||
      p->w[0] % p->groups != 0) {
    return false;
  }
  for (int d = 0; d < p->ndim - 2; ++d) {
    const int64_t q = (int64_t{p->x[d + 2]} + 2 * int64_t{p->pad[d]} - int64_t{p->dilation[d]} * (p->w[d + 2] - 1) - 1);
    if (q < 0 || q / p->stride[d] + 1 != p->y[d + 2]) return false;
  }
  return true;
}

// The cuDNN descriptors of one problem, destroyed with it.
struct Descriptors {
  LibraryHandle<cudnnTensorStruct> x, y;
  LibraryHandle<cudnnFilterStruct> w;
  LibraryHandle<cudnnConvolutionStruct> conv;
};

// cuDNN's answer as a hal status: a configuration it declines (or calls invalid) is NOT_SUPPORTED, for the
// core's fallback; anything else is a device error naming the call.
hal_status_t cudnn_status(const CudnnApi& api, const char* what, int status) {
  if (status == kCudnnSuccess) return HAL_STATUS_SUCCESS;
  const bool declined = (status >= kCudnnBadParam && status < kCudnnBadParam + 1000) ||
                        (status >= kCudnnNotSupported && status < kCudnnNotSupported + 1000);
  return fail(declined ? HAL_STATUS_NOT_SUPPORTED : HAL_STATUS_DEVICE_ERROR, cudnn_error(api, what, status));
}

hal_status_t describe(const CudnnApi& api, const ConvProblem& p, Descriptors* d) {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  if (hal_status_t s = cudnn_status(api, "cudnnCreateTensorDescriptor", api.create_tensor(&x)); s) return s;
  d->x = LibraryHandle<cudnnTensorStruct>(x, {api.destroy_tensor});
  if (hal_status_t s = cudnn_status(api, "cudnnCreateTensorDescriptor", api.create_tensor(&y)); s) return s;
  d->y = LibraryHandle<cudnnTensorStruct>(y, {api.destroy_tensor});
  if (hal_status_t s = cudnn_status(api, "cudnnCreateFilterDescriptor", api.create_filter(&w)); s) return s;
  d->w = LibraryHandle<cudnnFilterStruct>(w, {api.destroy_filter});
  if (hal_status_t s = cudnn_status(api, "cudnnCreateConvolutionDescriptor", api.create_conv(&conv)); s) return s;
  d->conv = LibraryHandle<cudnnConvolutionStruct>(conv, {api.destroy_conv});
  // Half and bfloat16 accumulate in float, as torch.cuda's convolutions.
  const int compute = p.dtype == kCudnnDouble ? kCudnnDouble : kCudnnFloat;
  if (hal_status_t s = cudnn_status(api, "cudnnSetTensorNdDescriptor (input)",
                                    api.set_tensor_nd(x, p.dtype, p.ndim, p.x, p.x_strides)); s) return s;
  if (hal_status_t s = cudnn_status(api, "cudnnSetTensorNdDescriptor (output)",
                                    api.set_tensor_nd(y, p.dtype, p.ndim, p.y, p.y_strides)); s) return s;
  if (hal_status_t s = cudnn_status(api, "cudnnSetFilterNdDescriptor",
                                    api.set_filter_nd(w, p.dtype, p.w_format, p.ndim, p.w)); s) return s;
  if (hal_status_t s = cudnn_status(api, "cudnnSetConvolutionNdDescriptor",
                                    api.set_conv_nd(conv, p.ndim - 2, p.pad, p.stride, p.dilation,
                                                    kCudnnCrossCorrelation, compute)); s) return s;
  if (hal_status_t s = cudnn_status(api, "cudnnSetConvolutionGroupCount", api.set_conv_groups(conv, p.groups)); s) {
    return s;
  }
  // The math type the heuristics start from: tensor cores for 16-bit types and (when allowed) TF32, plain FMA
  // for f32 otherwise, as torch.cuda sets it.
  const int math = p.dtype == kCudnnHalf || p.dtype == kCudnnBfloat16 ? kCudnnTensorOpMath
                   : p.dtype == kCudnnFloat && !p.tf32            ? kCudnnFmaMath
                                                                   : kCudnnDefaultMath;
  return cudnn_status(api, "cudnnSetConvolutionMathType", api.set_conv_math(conv, math));
}

// The cache key: the op and every number of the problem.
std::vector<int64_t> key_of(hal_op_t op, const ConvProblem& p) {
  std::vector<int64_t> key = {op, p.ndim, p.dtype, p.tf32, p.groups, p.w_format};
  for (int i = 0; i < p.ndim; ++i) {
    key.insert(key.end(), {p.x[i], p.x_strides[i], p.y[i], p.y_strides[i], p.w[i]});
  }
  for (int i = 0; i < p.ndim - 2; ++i) key.insert(key.end(), {p.stride[i], p.pad[i], p.dilation[i]});
  return key;
}

// cuDNN's heuristic choices for the problem, best first, those that can run it (and, for f32 without TF32,
// use no tensor cores), each with its workspace size.
hal_status_t choose(const CudnnApi& api, cudnnHandle_t handle, hal_op_t op, const ConvProblem& p,
                    const Descriptors& d, std::vector<ConvAlgorithm>* out) {
  CudnnAlgoPerf perf[kCudnnMaxAlgos] = {};
  int returned = 0;
  int status;
  const char* what;
  switch (op) {
    case HAL_OP_CONVOLUTION:
      what = "cudnnGetConvolutionForwardAlgorithm_v7";
      status = api.forward_algorithms(handle, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), kCudnnMaxAlgos,
                                      &returned, perf);
      break;
    case HAL_OP_CONVOLUTION_BACKWARD_INPUT:
      what = "cudnnGetConvolutionBackwardDataAlgorithm_v7";
      status = api.backward_data_algorithms(handle, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), 6, &returned,
                                            perf);
      break;
    default:
      what = "cudnnGetConvolutionBackwardFilterAlgorithm_v7";
      status = api.backward_filter_algorithms(handle, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), 7, &returned,
                                              perf);
      break;
  }
  if (hal_status_t s = cudnn_status(api, what, status); s) return s;
  out->clear();
  for (int i = 0; i < returned && i < kCudnnMaxAlgos; ++i) {
    if (perf[i].status != kCudnnSuccess) continue;
    if (p.dtype == kCudnnFloat && !p.tf32 && perf[i].math_type == kCudnnTensorOpMath) continue;
    // The workspace as cuDNN sizes it for this algorithm in its math type (the heuristics' figure is an
    // estimate); an algorithm it cannot size is skipped.
    if (api.set_conv_math(d.conv.get(), perf[i].math_type) != kCudnnSuccess) continue;
    size_t bytes = 0;
    int sized;
    switch (op) {
      case HAL_OP_CONVOLUTION:
        sized = api.forward_workspace(handle, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), perf[i].algo, &bytes);
        break;
      case HAL_OP_CONVOLUTION_BACKWARD_INPUT:
        sized = api.backward_data_workspace(handle, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), perf[i].algo,
                                            &bytes);
        break;
      default:
        sized = api.backward_filter_workspace(handle, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), perf[i].algo,
                                              &bytes);
        break;
    }
    if (sized != kCudnnSuccess) continue;
    out->push_back({perf[i].algo, perf[i].math_type, bytes});
  }
  if (out->empty()) return fail(HAL_STATUS_NOT_SUPPORTED, std::string(what) + " offered no algorithm for this convolution");
  return HAL_STATUS_SUCCESS;
}

hal_status_t run(const CudnnApi& api, cudnnHandle_t handle, hal_op_t op, const Descriptors& d,
                 const ConvAlgorithm& a, void* workspace, const hal_tensor_t& x, const hal_tensor_t& w,
                 const hal_tensor_t& y, bool f64) {
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.f, zero_f = 0.f;
  const void* alpha = f64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = f64 ? static_cast<const void*>(&zero_d) : &zero_f;
  auto at = [](const hal_tensor_t& t) { return static_cast<char*>(t.data) + t.byte_offset; };
  if (hal_status_t s = cudnn_status(api, "cudnnSetConvolutionMathType", api.set_conv_math(d.conv.get(), a.math_type)); s) {
    return s;
  }
  switch (op) {
    case HAL_OP_CONVOLUTION:
      return cudnn_status(api, "cudnnConvolutionForward",
                          api.forward(handle, alpha, d.x.get(), at(x), d.w.get(), at(w), d.conv.get(), a.algo,
                                      workspace, a.workspace_bytes, beta, d.y.get(), at(y)));
    case HAL_OP_CONVOLUTION_BACKWARD_INPUT:
      return cudnn_status(api, "cudnnConvolutionBackwardData",
                          api.backward_data(handle, alpha, d.w.get(), at(w), d.y.get(), at(y), d.conv.get(), a.algo,
                                            workspace, a.workspace_bytes, beta, d.x.get(), at(x)));
    default:
      return cudnn_status(api, "cudnnConvolutionBackwardFilter",
                          api.backward_filter(handle, alpha, d.x.get(), at(x), d.y.get(), at(y), d.conv.get(),
                                              a.algo, workspace, a.workspace_bytes, beta, d.w.get(), at(w)));
  }
}

}  // namespace

hal_status_t launch_convolution(const hal_gpu::OpCall& call) {
  ConvProblem p;
  const hal_tensor_t *x = nullptr, *w = nullptr, *y = nullptr;
  if (!parse(call, &p, &x, &w, &y)) {
    return fail(HAL_STATUS_NOT_SUPPORTED, "the NVIDIA adapter's convolution does not take these tensors (op " +
                                              std::to_string(call.op) + ")");
  }
  std::string why;
  const CudnnApi* api = cudnn(&why);
  if (!api) return fail(HAL_STATUS_NOT_SUPPORTED, why);
  CudnnContext& context = device_state(call.device).cudnn;
  auto lock = context.lock();
  cudnnHandle_t handle = nullptr;
  if (hal_status_t s = context.handle(*api, call.device, call.stream, &handle); s) return s;
  Descriptors d;
  if (hal_status_t s = describe(*api, p, &d); s) return s;
  std::vector<int64_t> key = key_of(call.op, p);
  const std::vector<ConvAlgorithm>* algorithms = context.algorithms(key);
  if (!algorithms) {
    std::vector<ConvAlgorithm> chosen;
    if (hal_status_t s = choose(*api, handle, call.op, p, d, &chosen); s) return s;
    context.remember(key, std::move(chosen));
    algorithms = context.algorithms(key);
  }
  // The best algorithm whose workspace can be had now (a later one may need less).
  for (const ConvAlgorithm& a : *algorithms) {
    hal_gpu::StreamScratch workspace(call.device, call.stream, a.workspace_bytes);
    if (!workspace.ok()) continue;
    return run(*api, handle, call.op, d, a, workspace.as<void>(), *x, *w, *y, p.dtype == kCudnnDouble);
  }
  return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "convolution: no device memory for the workspace of any of cuDNN's "
                                               "algorithms for this problem");
}

}  // namespace hal_nvidia
