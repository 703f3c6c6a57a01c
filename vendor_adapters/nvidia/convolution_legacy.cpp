// The legacy route (cudnnConvolutionForward, BackwardData, BackwardFilter with algorithms from
// cudnnGet*Algorithm_v7), for what the graph API's plans decline. cuDNN 9 serves these calls through its graph
// backend and pays for it on the host (130-180 us a call on the H100, against 40 us for torch.cuda's whole
// conv2d), so it is the second route, not the first.
#include "convolution_legacy.h"

#include <string>
#include <vector>

#include "adapter_state.h"
#include "cuda_status.h"
#include "kernels/adapter_services.h"
#include "kernels/library_handle.h"

namespace hal_nvidia {
namespace {

using hal_gpu::LibraryHandle;

// The cuDNN descriptors of one problem, destroyed with it.
struct Descriptors {
  LibraryHandle<cudnnTensorStruct> x, y;
  LibraryHandle<cudnnFilterStruct> w;
  LibraryHandle<cudnnConvolutionStruct> conv;
};

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
  auto at = [](const hal_tensor_t& t) { return tensor_address(t); };
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

hal_status_t run_legacy_convolution(const CudnnApi& api, cudnnHandle_t handle, CudnnContext& context,
                                    const hal_gpu::OpCall& call, const ConvProblem& p, const ConvTensors& t,
                                    const std::vector<int64_t>& key) {
  Descriptors d;
  if (hal_status_t s = describe(api, p, &d); s) return s;
  const std::vector<ConvAlgorithm>* algorithms = context.algorithms(key);
  if (!algorithms) {
    std::vector<ConvAlgorithm> chosen;
    if (hal_status_t s = choose(api, handle, call.op, p, d, &chosen); s) return s;
    context.remember(key, std::move(chosen));
    algorithms = context.algorithms(key);
  }
  // The best algorithm whose workspace can be had now (a later one may need less).
  for (const ConvAlgorithm& a : *algorithms) {
    hal_gpu::StreamScratch workspace(call.device, call.stream, a.workspace_bytes);
    if (!workspace.ok()) continue;
    return run(api, handle, call.op, d, a, workspace.as<void>(), *t.x, *t.w, *t.y, p.f64());
  }
  return fail(HAL_STATUS_OUT_OF_DEVICE_MEMORY, "convolution: no device memory for the workspace of any of cuDNN's "
                                               "algorithms for this problem");
}

}  // namespace hal_nvidia
