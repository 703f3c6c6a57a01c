// The enum values of cuDNN's graph (backend) API that the adapter's convolution plans use, declared here as
// cudnn_library.h declares the legacy ones: the adapter builds without cuDNN's headers. Checked against
// cuDNN 9.28's cudnn_graph.h (nvidia-cudnn-cu12 9.28.0.42); they are part of cuDNN 9's ABI.
#pragma once

#include <cstdint>

namespace hal_nvidia {

// cudnnBackendDescriptorType_t
enum CudnnDescriptorType : int {
  kCudnnConvolutionDescriptor = 1,
  kCudnnEngineDescriptor = 2,
  kCudnnEngineConfigDescriptor = 3,
  kCudnnEngineHeuristicsDescriptor = 4,
  kCudnnExecutionPlanDescriptor = 5,
  kCudnnConvolutionForwardOpDescriptor = 10,
  kCudnnConvolutionBackwardFilterOpDescriptor = 11,
  kCudnnConvolutionBackwardDataOpDescriptor = 12,
  kCudnnOperationGraphDescriptor = 15,
  kCudnnVariantPackDescriptor = 16,
  kCudnnTensorDescriptor = 17,
};

// cudnnBackendAttributeType_t
enum CudnnAttributeType : int {
  kCudnnTypeHandle = 0,
  kCudnnTypeDataType = 1,
  kCudnnTypeInt64 = 3,
  kCudnnTypeFloat = 4,
  kCudnnTypeDouble = 5,
  kCudnnTypeVoidPtr = 6,
  kCudnnTypeConvolutionMode = 7,
  kCudnnTypeHeuristicsMode = 8,
  kCudnnTypeNumericalNote = 11,
  kCudnnTypeBackendDescriptor = 15,
};

// cudnnBackendAttributeName_t
enum CudnnAttribute : int {
  kCudnnConvCompType = 100,
  kCudnnConvMode = 101,
  kCudnnConvDilations = 102,
  kCudnnConvFilterStrides = 103,
  kCudnnConvPostPaddings = 104,
  kCudnnConvPrePaddings = 105,
  kCudnnConvSpatialDims = 106,
  kCudnnHeuristicsMode = 200,
  kCudnnHeuristicsOperationGraph = 201,
  kCudnnHeuristicsResults = 202,
  kCudnnEngineConfigEngine = 300,
  kCudnnPlanHandle = 400,
  kCudnnPlanEngineConfig = 401,
  kCudnnPlanWorkspaceSize = 402,
  kCudnnForwardAlpha = 700,
  kCudnnForwardBeta = 701,
  kCudnnForwardConv = 702,
  kCudnnForwardW = 703,
  kCudnnForwardX = 704,
  kCudnnForwardY = 705,
  kCudnnBackwardDataAlpha = 706,
  kCudnnBackwardDataBeta = 707,
  kCudnnBackwardDataConv = 708,
  kCudnnBackwardDataW = 709,
  kCudnnBackwardDataDx = 710,
  kCudnnBackwardDataDy = 711,
  kCudnnBackwardFilterAlpha = 712,
  kCudnnBackwardFilterBeta = 713,
  kCudnnBackwardFilterConv = 714,
  kCudnnBackwardFilterDw = 715,
  kCudnnBackwardFilterX = 716,
  kCudnnBackwardFilterDy = 717,
  kCudnnGraphHandle = 800,
  kCudnnGraphOps = 801,
  kCudnnTensorByteAlignment = 900,
  kCudnnTensorDataType = 901,
  kCudnnTensorDimensions = 902,
  kCudnnTensorStrides = 903,
  kCudnnTensorUniqueId = 906,
  kCudnnVariantPackUniqueIds = 1000,
  kCudnnVariantPackDataPointers = 1001,
  kCudnnVariantPackWorkspace = 1003,
  kCudnnEngineNumericalNote = 1303,
};

// cudnnBackendHeurMode_t
enum CudnnHeuristicsMode : int { kCudnnHeuristicsInstant = 0, kCudnnHeuristicsFallback = 2 };

// cudnnBackendNumericalNote_t: what an engine does to the numbers.
enum CudnnNumericalNote : int {
  kCudnnNoteTensorCore = 0,
  kCudnnNoteDownConvertInputs = 1,
  kCudnnNoteReducedPrecisionReduction = 2,
  kCudnnNoteTypeCount = 10,
};

}  // namespace hal_nvidia
