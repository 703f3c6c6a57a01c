#include "convolution_plan.h"

#include <string>

#include "cuda_status.h"
#include "cudnn_graph_types.h"

namespace hal_nvidia {
namespace {

// The unique ids that tie a plan's tensors to the data pointers of a variant pack.
constexpr int64_t kUidX = 'x', kUidW = 'w', kUidY = 'y';

// Descriptor building: each step records the first failure and skips the rest, so that a plan is written
// as the list of attributes it has.
class Builder {
 public:
  explicit Builder(const CudnnApi& api) : api_(api) {}

  BackendDescriptor make(int type) {
    cudnnBackendDescriptor_t made = nullptr;
    if (ok()) check("cudnnBackendCreateDescriptor", api_.backend_create(type, &made));
    return BackendDescriptor(made, {api_.backend_destroy});
  }
  void set(const BackendDescriptor& d, int name, int type, int64_t count, const void* elements) {
    if (ok()) check("cudnnBackendSetAttribute", api_.backend_set(d.get(), name, type, count, elements));
  }
  void set_int64(const BackendDescriptor& d, int name, int64_t value) { set(d, name, kCudnnTypeInt64, 1, &value); }
  void set_int64s(const BackendDescriptor& d, int name, const int* values, int count) {
    int64_t wide[kMaxConvDims];
    for (int i = 0; i < count; ++i) wide[i] = values[i];
    set(d, name, kCudnnTypeInt64, count, wide);
  }
  void set_descriptor(const BackendDescriptor& d, int name, const BackendDescriptor& value) {
    cudnnBackendDescriptor_t raw = value.get();
    set(d, name, kCudnnTypeBackendDescriptor, 1, &raw);
  }
  void finalize(const BackendDescriptor& d, const char* what) {
    if (ok()) check(what, api_.backend_finalize(d.get()));
  }

  bool ok() const { return status_ == kCudnnSuccess; }
  hal_status_t result() const { return ok() ? HAL_STATUS_SUCCESS : cudnn_status(api_, what_.c_str(), status_); }

 private:
  void check(const char* what, int status) {
    if (status != kCudnnSuccess) {
      status_ = status;
      what_ = what;
    }
  }

  const CudnnApi& api_;
  int status_ = kCudnnSuccess;
  std::string what_;
};

BackendDescriptor tensor(Builder& b, const ConvProblem& p, int64_t uid, const int* sizes, const int* strides,
                         int alignment) {
  BackendDescriptor t = b.make(kCudnnTensorDescriptor);
  b.set(t, kCudnnTensorDataType, kCudnnTypeDataType, 1, &p.dtype);
  b.set_int64s(t, kCudnnTensorDimensions, sizes, p.ndim);
  b.set_int64s(t, kCudnnTensorStrides, strides, p.ndim);
  b.set_int64(t, kCudnnTensorUniqueId, uid);
  b.set_int64(t, kCudnnTensorByteAlignment, alignment);
  b.finalize(t, "cudnnBackendFinalize (tensor)");
  return t;
}

BackendDescriptor convolution(Builder& b, const ConvProblem& p) {
  BackendDescriptor c = b.make(kCudnnConvolutionDescriptor);
  // Half and bfloat16 accumulate in float, as torch.cuda's convolutions.
  const int compute = p.f64() ? kCudnnDouble : kCudnnFloat;
  const int mode = kCudnnCrossCorrelation;
  b.set(c, kCudnnConvCompType, kCudnnTypeDataType, 1, &compute);
  b.set(c, kCudnnConvMode, kCudnnTypeConvolutionMode, 1, &mode);
  b.set_int64(c, kCudnnConvSpatialDims, p.ndim - 2);
  b.set_int64s(c, kCudnnConvDilations, p.dilation, p.ndim - 2);
  b.set_int64s(c, kCudnnConvFilterStrides, p.stride, p.ndim - 2);
  b.set_int64s(c, kCudnnConvPrePaddings, p.pad, p.ndim - 2);
  b.set_int64s(c, kCudnnConvPostPaddings, p.pad, p.ndim - 2);
  b.finalize(c, "cudnnBackendFinalize (convolution)");
  return c;
}

// The operation of the op: its descriptor type and the attribute names of alpha, beta, the convolution and
// its x, w, y tensors (the backward ops call two of them dx/dw and dy).
struct OperationAttributes {
  int type, alpha, beta, conv, x, w, y;
};

OperationAttributes attributes_of(hal_op_t op) {
  switch (op) {
    case HAL_OP_CONVOLUTION:
      return {kCudnnConvolutionForwardOpDescriptor, kCudnnForwardAlpha, kCudnnForwardBeta, kCudnnForwardConv,
              kCudnnForwardX, kCudnnForwardW, kCudnnForwardY};
    case HAL_OP_CONVOLUTION_BACKWARD_INPUT:
      return {kCudnnConvolutionBackwardDataOpDescriptor, kCudnnBackwardDataAlpha, kCudnnBackwardDataBeta,
              kCudnnBackwardDataConv, kCudnnBackwardDataDx, kCudnnBackwardDataW, kCudnnBackwardDataDy};
    default:
      return {kCudnnConvolutionBackwardFilterOpDescriptor, kCudnnBackwardFilterAlpha, kCudnnBackwardFilterBeta,
              kCudnnBackwardFilterConv, kCudnnBackwardFilterX, kCudnnBackwardFilterDw, kCudnnBackwardFilterDy};
  }
}

// Whether an engine config computes as the problem allows: f32 without TF32 takes no tensor-core engine and
// none that converts its inputs down (torch.cuda filters the same notes).
bool allowed(const CudnnApi& api, const ConvProblem& p, const BackendDescriptor& config) {
  if (p.dtype != kCudnnFloat || p.tf32) return true;
  cudnnBackendDescriptor_t engine = nullptr;
  if (api.backend_create(kCudnnEngineDescriptor, &engine) != kCudnnSuccess) return false;
  BackendDescriptor owned(engine, {api.backend_destroy});
  int64_t count = 0;
  if (api.backend_get(config.get(), kCudnnEngineConfigEngine, kCudnnTypeBackendDescriptor, 1, &count, &engine) !=
      kCudnnSuccess) {
    return false;
  }
  int notes[kCudnnNoteTypeCount] = {};
  if (api.backend_get(engine, kCudnnEngineNumericalNote, kCudnnTypeNumericalNote, kCudnnNoteTypeCount, &count, notes) !=
      kCudnnSuccess) {
    return false;
  }
  for (int64_t i = 0; i < count && i < kCudnnNoteTypeCount; ++i) {
    if (notes[i] == kCudnnNoteTensorCore || notes[i] == kCudnnNoteDownConvertInputs) return false;
  }
  return true;
}

// The engine configs cuDNN's heuristics (of `mode`) rank for the graph, best first.
std::vector<BackendDescriptor> engine_configs(const CudnnApi& api, Builder& b, const BackendDescriptor& graph,
                                              int mode) {
  BackendDescriptor heuristics = b.make(kCudnnEngineHeuristicsDescriptor);
  b.set_descriptor(heuristics, kCudnnHeuristicsOperationGraph, graph);
  b.set(heuristics, kCudnnHeuristicsMode, kCudnnTypeHeuristicsMode, 1, &mode);
  b.finalize(heuristics, "cudnnBackendFinalize (engine heuristics)");
  std::vector<BackendDescriptor> configs;
  if (!b.ok()) return configs;
  int64_t available = 0;
  if (api.backend_get(heuristics.get(), kCudnnHeuristicsResults, kCudnnTypeBackendDescriptor, 0, &available,
                      nullptr) != kCudnnSuccess) {
    return configs;
  }
  constexpr int64_t kMostConfigs = 16;  // enough: the first that builds is taken
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int64_t i = 0; i < available && i < kMostConfigs; ++i) {
    cudnnBackendDescriptor_t made = nullptr;
    if (api.backend_create(kCudnnEngineConfigDescriptor, &made) != kCudnnSuccess) break;
    configs.emplace_back(made, hal_gpu::DestroyWith<CudnnBackendStruct>{api.backend_destroy});
    raw.push_back(made);
  }
  int64_t returned = 0;
  if (raw.empty() || api.backend_get(heuristics.get(), kCudnnHeuristicsResults, kCudnnTypeBackendDescriptor,
                                     static_cast<int64_t>(raw.size()), &returned, raw.data()) != kCudnnSuccess) {
    configs.clear();
    return configs;
  }
  configs.resize(static_cast<size_t>(returned < static_cast<int64_t>(configs.size()) ? returned : configs.size()));
  return configs;
}

}  // namespace

hal_status_t make_convolution_plan(const CudnnApi& api, cudnnHandle_t handle, hal_op_t op, const ConvProblem& p,
                                   std::unique_ptr<ConvPlan>* out) {
  auto made = std::make_unique<ConvPlan>();
  Builder b(api);
  BackendDescriptor x = tensor(b, p, kUidX, p.x, p.x_strides, p.alignment[0]);
  BackendDescriptor w = tensor(b, p, kUidW, p.w, p.w_strides, p.alignment[1]);
  BackendDescriptor y = tensor(b, p, kUidY, p.y, p.y_strides, p.alignment[2]);
  BackendDescriptor conv = convolution(b, p);
  const OperationAttributes names = attributes_of(op);
  BackendDescriptor operation = b.make(names.type);
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.f, zero_f = 0.f;
  const int scalar_type = p.f64() ? kCudnnTypeDouble : kCudnnTypeFloat;
  b.set(operation, names.alpha, scalar_type, 1, p.f64() ? static_cast<const void*>(&one_d) : &one_f);
  b.set(operation, names.beta, scalar_type, 1, p.f64() ? static_cast<const void*>(&zero_d) : &zero_f);
  b.set_descriptor(operation, names.conv, conv);
  b.set_descriptor(operation, names.x, x);
  b.set_descriptor(operation, names.w, w);
  b.set_descriptor(operation, names.y, y);
  b.finalize(operation, "cudnnBackendFinalize (convolution operation)");
  BackendDescriptor graph = b.make(kCudnnOperationGraphDescriptor);
  b.set_descriptor(graph, kCudnnGraphOps, operation);
  b.set(graph, kCudnnGraphHandle, kCudnnTypeHandle, 1, &handle);
  b.finalize(graph, "cudnnBackendFinalize (operation graph)");
  if (!b.ok()) return b.result();

  // The instant heuristics first (what torch.cuda asks by default), then cuDNN's fallback list.
  int offered = 0, passed_over = 0;
  std::string last_failure = "none";
  for (int mode : {kCudnnHeuristicsInstant, kCudnnHeuristicsFallback}) {
    Builder heuristics(api);
    for (BackendDescriptor& config : engine_configs(api, heuristics, graph, mode)) {
      ++offered;
      if (!allowed(api, p, config)) {
        ++passed_over;
        continue;
      }
      Builder attempt(api);
      BackendDescriptor plan = attempt.make(kCudnnExecutionPlanDescriptor);
      attempt.set(plan, kCudnnPlanHandle, kCudnnTypeHandle, 1, &handle);
      attempt.set_descriptor(plan, kCudnnPlanEngineConfig, config);
      attempt.finalize(plan, "cudnnBackendFinalize (execution plan)");
      int64_t count = 0;
      if (!attempt.ok() || api.backend_get(plan.get(), kCudnnPlanWorkspaceSize, kCudnnTypeInt64, 1, &count,
                                           &made->workspace_bytes) != kCudnnSuccess) {
        if (!attempt.ok()) {
          attempt.result();  // records cuDNN's message
          last_failure = last_error();
        }
        continue;  // this engine cannot run the problem; the next may
      }
      made->plan = std::move(plan);
      for (BackendDescriptor* part : {&x, &w, &y, &conv, &operation, &graph, &config}) {
        made->parts.push_back(std::move(*part));
      }
      *out = std::move(made);
      return HAL_STATUS_SUCCESS;
    }
  }
  return fail(HAL_STATUS_NOT_SUPPORTED, "cuDNN's graph API built no execution plan for this convolution: its "
                                        "heuristics offered " + std::to_string(offered) + " engine configs, " +
                                        std::to_string(passed_over) + " passed over for TF32; last failure: " +
                                        last_failure);
}

hal_status_t run_convolution_plan(const CudnnApi& api, cudnnHandle_t handle, const ConvPlan& plan,
                                  const ConvTensors& t, void* workspace) {
  Builder b(api);
  BackendDescriptor pack = b.make(kCudnnVariantPackDescriptor);
  const int64_t uids[3] = {kUidX, kUidW, kUidY};
  void* pointers[3] = {tensor_address(*t.x), tensor_address(*t.w), tensor_address(*t.y)};
  b.set(pack, kCudnnVariantPackUniqueIds, kCudnnTypeInt64, 3, uids);
  b.set(pack, kCudnnVariantPackDataPointers, kCudnnTypeVoidPtr, 3, pointers);
  b.set(pack, kCudnnVariantPackWorkspace, kCudnnTypeVoidPtr, 1, &workspace);
  b.finalize(pack, "cudnnBackendFinalize (variant pack)");
  if (!b.ok()) return b.result();
  return cudnn_status(api, "cudnnBackendExecute", api.backend_execute(handle, plan.plan.get(), pack.get()));
}

}  // namespace hal_nvidia
