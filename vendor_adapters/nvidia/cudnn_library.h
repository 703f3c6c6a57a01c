// cuDNN, loaded with dlopen at first use (cuda_library_search.h), as cuBLAS is: the adapter builds without
// cuDNN's headers and loads on machines without cuDNN (convolutions then answer NOT_SUPPORTED and the core
// falls back). Only the entry points and enum values of the legacy convolution API and of the graph API's
// descriptor calls are declared here (the graph API's enums: cudnn_graph_types.h), checked against cuDNN 9.28's
// headers (cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h of nvidia-cudnn-cu12
// 9.28.0.42); these values are part of cuDNN's ABI and the same in every cuDNN 9.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "../adapter_support/loaded_library.h"

namespace hal_nvidia {

struct cudnnContext;
using cudnnHandle_t = cudnnContext*;
struct cudnnTensorStruct;
struct cudnnFilterStruct;
struct cudnnConvolutionStruct;
struct CudnnBackendStruct;  // what a cudnnBackendDescriptor_t points to

// cudnnStatus_t (cuDNN 9 numbers its errors in thousands; only these matter to the adapter)
enum CudnnStatus : int { kCudnnSuccess = 0, kCudnnBadParam = 2000, kCudnnNotSupported = 3000 };
// cudnnDataType_t
enum CudnnDataType : int { kCudnnFloat = 0, kCudnnDouble = 1, kCudnnHalf = 2, kCudnnBfloat16 = 9 };
// cudnnTensorFormat_t (for filters: the layout of [K, C, spatial...])
enum CudnnTensorFormat : int { kCudnnNchw = 0, kCudnnNhwc = 1 };
// cudnnConvolutionMode_t: PyTorch's convolutions are cross-correlations.
enum CudnnConvolutionMode : int { kCudnnCrossCorrelation = 1 };
// cudnnMathType_t
enum CudnnMathType : int { kCudnnDefaultMath = 0, kCudnnTensorOpMath = 1, kCudnnFmaMath = 3 };

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: the three share this layout.
struct CudnnAlgoPerf {
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};
// The largest of CUDNN_CONVOLUTION_{FWD,BWD_DATA,BWD_FILTER}_ALGO_COUNT (8, 6, 7).
constexpr int kCudnnMaxAlgos = 8;

using cudnnTensorDescriptor_t = cudnnTensorStruct*;
using cudnnFilterDescriptor_t = cudnnFilterStruct*;
using cudnnConvolutionDescriptor_t = cudnnConvolutionStruct*;
using cudnnBackendDescriptor_t = CudnnBackendStruct*;

// The legacy API's three directions take the same calls, over the descriptors (In, Other, Out) of each:
// (x, w, y) forward, (w, dy, dx) backward data, (x, dy, dw) backward filter.
template <class In, class Other, class Out>
struct CudnnConvolutionCalls {
  // cudnnGetConvolution*Algorithm_v7: the algorithms, fastest first.
  using Algorithms = int(cudnnHandle_t, In, Other, cudnnConvolutionDescriptor_t, Out, int requested, int* returned,
                         CudnnAlgoPerf* perf);
  // cudnnGetConvolution*WorkspaceSize: the scratch bytes `algo` needs.
  using Workspace = int(cudnnHandle_t, In, Other, cudnnConvolutionDescriptor_t, Out, int algo, size_t* bytes);
  // cudnnConvolution{Forward,BackwardData,BackwardFilter}: out = alpha op(in, other) + beta out.
  using Run = int(cudnnHandle_t, const void* alpha, In, const void* in, Other, const void* other,
                  cudnnConvolutionDescriptor_t, int algo, void* workspace, size_t workspace_bytes, const void* beta,
                  Out, void* out);
};
using CudnnForward = CudnnConvolutionCalls<cudnnTensorDescriptor_t, cudnnFilterDescriptor_t, cudnnTensorDescriptor_t>;
using CudnnBackwardData =
    CudnnConvolutionCalls<cudnnFilterDescriptor_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t>;
using CudnnBackwardFilter =
    CudnnConvolutionCalls<cudnnTensorDescriptor_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t>;

// The entry points: X(member, function type, symbol).
#define HAL_CUDNN_ENTRY_POINTS(X)                                                                                 \
  X(get_version, size_t(), "cudnnGetVersion")                                                                     \
  X(error_string, const char*(int status), "cudnnGetErrorString")                                                 \
  X(create, int(cudnnHandle_t* handle), "cudnnCreate")                                                            \
  X(destroy, int(cudnnHandle_t handle), "cudnnDestroy")                                                           \
  X(set_stream, int(cudnnHandle_t handle, cudaStream_t stream), "cudnnSetStream")                                 \
  X(create_tensor, int(cudnnTensorDescriptor_t* desc), "cudnnCreateTensorDescriptor")                             \
  X(destroy_tensor, int(cudnnTensorDescriptor_t desc), "cudnnDestroyTensorDescriptor")                            \
  X(set_tensor_nd,                                                                                                \
    int(cudnnTensorDescriptor_t desc, int type, int nb_dims, const int dims[], const int strides[]),              \
    "cudnnSetTensorNdDescriptor")                                                                                 \
  X(create_filter, int(cudnnFilterDescriptor_t* desc), "cudnnCreateFilterDescriptor")                             \
  X(destroy_filter, int(cudnnFilterDescriptor_t desc), "cudnnDestroyFilterDescriptor")                            \
  X(set_filter_nd,                                                                                                \
    int(cudnnFilterDescriptor_t desc, int type, int format, int nb_dims, const int dims[]),                       \
    "cudnnSetFilterNdDescriptor")                                                                                 \
  X(create_conv, int(cudnnConvolutionDescriptor_t* desc), "cudnnCreateConvolutionDescriptor")                     \
  X(destroy_conv, int(cudnnConvolutionDescriptor_t desc), "cudnnDestroyConvolutionDescriptor")                    \
  X(set_conv_nd,                                                                                                  \
    int(cudnnConvolutionDescriptor_t desc, int spatial_dims, const int pad[], const int stride[],                 \
        const int dilation[], int mode, int compute_type),                                                        \
    "cudnnSetConvolutionNdDescriptor")                                                                            \
  X(set_conv_groups, int(cudnnConvolutionDescriptor_t desc, int groups), "cudnnSetConvolutionGroupCount")         \
  X(set_conv_math, int(cudnnConvolutionDescriptor_t desc, int math_type), "cudnnSetConvolutionMathType")          \
  X(forward_algorithms, CudnnForward::Algorithms, "cudnnGetConvolutionForwardAlgorithm_v7")                       \
  X(backward_data_algorithms, CudnnBackwardData::Algorithms, "cudnnGetConvolutionBackwardDataAlgorithm_v7")       \
  X(backward_filter_algorithms, CudnnBackwardFilter::Algorithms, "cudnnGetConvolutionBackwardFilterAlgorithm_v7") \
  X(forward_workspace, CudnnForward::Workspace, "cudnnGetConvolutionForwardWorkspaceSize")                        \
  X(backward_data_workspace, CudnnBackwardData::Workspace, "cudnnGetConvolutionBackwardDataWorkspaceSize")        \
  X(backward_filter_workspace, CudnnBackwardFilter::Workspace, "cudnnGetConvolutionBackwardFilterWorkspaceSize")  \
  X(forward, CudnnForward::Run, "cudnnConvolutionForward")                                                        \
  X(backward_data, CudnnBackwardData::Run, "cudnnConvolutionBackwardData")                                        \
  X(backward_filter, CudnnBackwardFilter::Run, "cudnnConvolutionBackwardFilter")                                  \
  /* The graph (backend) API: descriptors set by attribute, finalized, and an execution plan run with a           \
     variant pack of data pointers (convolution_plan.cpp). */                                                     \
  X(backend_create, int(int type, cudnnBackendDescriptor_t* desc), "cudnnBackendCreateDescriptor")                \
  X(backend_destroy, int(cudnnBackendDescriptor_t desc), "cudnnBackendDestroyDescriptor")                         \
  X(backend_finalize, int(cudnnBackendDescriptor_t desc), "cudnnBackendFinalize")                                 \
  X(backend_set,                                                                                                  \
    int(cudnnBackendDescriptor_t desc, int name, int type, int64_t count, const void* elements),                  \
    "cudnnBackendSetAttribute")                                                                                   \
  X(backend_get,                                                                                                  \
    int(cudnnBackendDescriptor_t desc, int name, int type, int64_t requested, int64_t* count, void* elements),    \
    "cudnnBackendGetAttribute")                                                                                   \
  X(backend_execute,                                                                                              \
    int(cudnnHandle_t, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t variant_pack),                     \
    "cudnnBackendExecute")

struct CudnnApi {
  HAL_ENTRY_POINT_TABLE(HAL_CUDNN_ENTRY_POINTS)
};

// The loaded library, or nullptr with `why` saying what was tried and how to fix it. Thread-safe; searched
// once per process.
const CudnnApi* cudnn(std::string* why);

// "cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM ..." in the library's own words.
inline std::string cudnn_error(const CudnnApi& api, const char* what, int status) {
  return std::string(what) + ": " + api.error_string(status) + " (cuDNN status " + std::to_string(status) + ")";
}

}  // namespace hal_nvidia
