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

struct CudnnApi {
  size_t (*get_version)();                                       // cudnnGetVersion
  const char* (*error_string)(int status);                      // cudnnGetErrorString
  int (*create)(cudnnHandle_t* handle);                          // cudnnCreate
  int (*destroy)(cudnnHandle_t handle);                          // cudnnDestroy
  int (*set_stream)(cudnnHandle_t handle, cudaStream_t stream);  // cudnnSetStream
  int (*create_tensor)(cudnnTensorDescriptor_t* desc);           // cudnnCreateTensorDescriptor
  int (*destroy_tensor)(cudnnTensorDescriptor_t desc);           // cudnnDestroyTensorDescriptor
  int (*set_tensor_nd)(cudnnTensorDescriptor_t desc, int type, int nb_dims, const int dims[],
                       const int strides[]);                     // cudnnSetTensorNdDescriptor
  int (*create_filter)(cudnnFilterDescriptor_t* desc);           // cudnnCreateFilterDescriptor
  int (*destroy_filter)(cudnnFilterDescriptor_t desc);           // cudnnDestroyFilterDescriptor
  int (*set_filter_nd)(cudnnFilterDescriptor_t desc, int type, int format, int nb_dims,
                       const int dims[]);                        // cudnnSetFilterNdDescriptor
  int (*create_conv)(cudnnConvolutionDescriptor_t* desc);        // cudnnCreateConvolutionDescriptor
  int (*destroy_conv)(cudnnConvolutionDescriptor_t desc);        // cudnnDestroyConvolutionDescriptor
  int (*set_conv_nd)(cudnnConvolutionDescriptor_t desc, int spatial_dims, const int pad[], const int stride[],
                     const int dilation[], int mode, int compute_type);  // cudnnSetConvolutionNdDescriptor
  int (*set_conv_groups)(cudnnConvolutionDescriptor_t desc, int groups);  // cudnnSetConvolutionGroupCount
  int (*set_conv_math)(cudnnConvolutionDescriptor_t desc, int math_type);  // cudnnSetConvolutionMathType
  int (*forward_algorithms)(cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                            cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t y, int requested, int* returned,
                            CudnnAlgoPerf* perf);  // cudnnGetConvolutionForwardAlgorithm_v7
  int (*backward_data_algorithms)(cudnnHandle_t, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
                                  cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t dx, int requested,
                                  int* returned, CudnnAlgoPerf* perf);  // cudnnGetConvolutionBackwardDataAlgorithm_v7
  int (*backward_filter_algorithms)(cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
                                    cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t dw, int requested,
                                    int* returned,
                                    CudnnAlgoPerf* perf);  // cudnnGetConvolutionBackwardFilterAlgorithm_v7
  int (*forward_workspace)(cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                           cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t y, int algo,
                           size_t* bytes);  // cudnnGetConvolutionForwardWorkspaceSize
  int (*backward_data_workspace)(cudnnHandle_t, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
                                 cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t dx, int algo,
                                 size_t* bytes);  // cudnnGetConvolutionBackwardDataWorkspaceSize
  int (*backward_filter_workspace)(cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
                                   cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t dw, int algo,
                                   size_t* bytes);  // cudnnGetConvolutionBackwardFilterWorkspaceSize
  int (*forward)(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t x_desc, const void* x,
                 cudnnFilterDescriptor_t w_desc, const void* w, cudnnConvolutionDescriptor_t, int algo,
                 void* workspace, size_t workspace_bytes, const void* beta, cudnnTensorDescriptor_t y_desc,
                 void* y);  // cudnnConvolutionForward
  int (*backward_data)(cudnnHandle_t, const void* alpha, cudnnFilterDescriptor_t w_desc, const void* w,
                       cudnnTensorDescriptor_t dy_desc, const void* dy, cudnnConvolutionDescriptor_t, int algo,
                       void* workspace, size_t workspace_bytes, const void* beta, cudnnTensorDescriptor_t dx_desc,
                       void* dx);  // cudnnConvolutionBackwardData
  int (*backward_filter)(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t x_desc, const void* x,
                         cudnnTensorDescriptor_t dy_desc, const void* dy, cudnnConvolutionDescriptor_t, int algo,
                         void* workspace, size_t workspace_bytes, const void* beta,
                         cudnnFilterDescriptor_t dw_desc, void* dw);  // cudnnConvolutionBackwardFilter
  // The graph (backend) API: descriptors set by attribute, finalized, and an execution plan run with a
  // variant pack of data pointers (convolution_plan.cpp).
  int (*backend_create)(int type, cudnnBackendDescriptor_t* desc);  // cudnnBackendCreateDescriptor
  int (*backend_destroy)(cudnnBackendDescriptor_t desc);            // cudnnBackendDestroyDescriptor
  int (*backend_finalize)(cudnnBackendDescriptor_t desc);           // cudnnBackendFinalize
  int (*backend_set)(cudnnBackendDescriptor_t desc, int name, int type, int64_t count,
                     const void* elements);  // cudnnBackendSetAttribute
  int (*backend_get)(cudnnBackendDescriptor_t desc, int name, int type, int64_t requested, int64_t* count,
                     void* elements);  // cudnnBackendGetAttribute
  int (*backend_execute)(cudnnHandle_t, cudnnBackendDescriptor_t plan,
                         cudnnBackendDescriptor_t variant_pack);  // cudnnBackendExecute
};

// The loaded library, or nullptr with `why` saying what was tried and how to fix it. Thread-safe; searched
// once per process.
const CudnnApi* cudnn(std::string* why);

// "cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM ..." in the library's own words.
inline std::string cudnn_error(const CudnnApi& api, const char* what, int status) {
  return std::string(what) + ": " + api.error_string(status) + " (cuDNN status " + std::to_string(status) + ")";
}

}  // namespace hal_nvidia
