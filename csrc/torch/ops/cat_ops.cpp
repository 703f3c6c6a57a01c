// cat as one strided copy (the adapter's COPY kernel, which also converts dtypes) per input into its slice
// of the output: no kernel of its own. Result dtype, shape, memory format, the skipping of legacy empty
// 1-D inputs and the error messages follow ATen's.
#include <ATen/WrapDimUtils.h>
#include <ATen/native/TypeProperties.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/view_as_real.h>
#include <torch/library.h>

#include "dispatch/native_first.h"

namespace torch_hal::native {
namespace {

// Legacy behaviour kept by ATen: a 1-D tensor of size 0 joins any cat and contributes nothing.
bool skipped(const at::Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// Complex inputs are copied as their (real, imaginary) views (the ABI has no complex dtype): all of the
// result's dtype, without conjugate or negative bits (which the other paths apply).
bool complex_inputs_done(const std::vector<std::reference_wrapper<const at::Tensor>>& tensors, at::ScalarType dtype) {
  if (dtype != at::kComplexFloat && dtype != at::kComplexDouble) return false;
  for (const at::Tensor& t : tensors) {
    if (!skipped(t) && (t.scalar_type() != dtype || t.is_conj() || t.is_neg())) return false;
  }
  return true;
}

std::optional<at::Tensor> cat(const at::ITensorListRef& tensor_list, int64_t dim) {
  const auto tensors = tensor_list.materialize();
  TORCH_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  const at::ScalarType dtype = at::native::result_type(tensor_list);
  const bool complex = at::isComplexType(dtype);
  if (complex ? !complex_inputs_done(tensors, dtype) : !hal_dtype_of(dtype).has_value()) return std::nullopt;

  const at::Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i].get();
    TORCH_CHECK(t.dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    if (!ref && !skipped(t)) ref = &t;
  }
  const at::TensorOptions options = tensors[0].get().options().dtype(dtype);
  if (!ref) return at::empty({0}, options);  // only legacy empty inputs
  const int64_t wrapped = at::maybe_wrap_dim(dim, ref->dim());  // wrapped on the first non-skipped input

  auto sizes = ref->sizes().vec();
  int64_t cat_size = 0;
  // The output keeps the inputs' memory format when they all share one (channels-last stays so).
  std::optional<at::MemoryFormat> format;
  bool same_format = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i].get();
    if (skipped(t)) continue;
    TORCH_CHECK(t.dim() == ref->dim(), "Tensors must have same number of dimensions: got ", ref->dim(), " and ",
                t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == wrapped) continue;
      TORCH_CHECK(t.size(d) == ref->size(d), "Sizes of tensors must match except in dimension ", wrapped,
                  ". Expected size ", ref->size(d), " but got size ", t.size(d), " for tensor number ", i,
                  " in the list.");
    }
    cat_size += t.size(wrapped);
    const at::MemoryFormat f = t.suggest_memory_format();
    if (!format) format = f;
    else if (*format != f) same_format = false;
  }
  sizes[wrapped] = cat_size;
  at::Tensor out = at::empty(sizes, options.memory_format(same_format ? *format : at::MemoryFormat::Contiguous));

  // Each input's slice of the output described by address and geometry: a narrow() view per input would
  // cost three dispatched view ops (narrow, slice, as_strided) that the copy does not need.
  char* const base = static_cast<char*>(out.data_ptr());
  const int64_t step = out.stride(wrapped) * out.element_size();  // bytes per index along `wrapped`
  int64_t offset = 0;
  for (const auto& ref_wrapper : tensors) {
    const at::Tensor& t = ref_wrapper.get();
    if (skipped(t)) continue;
    const int64_t size = t.size(wrapped);
    if (t.numel() > 0) {
      sizes[wrapped] = size;
      KernelArgs args;
      // KernelArgs reads an input's sizes and strides at the launch: the real view must live until then.
      const at::Tensor pairs = complex ? at::view_as_real(t) : at::Tensor();
      if (complex) {  // [..., 2] real views: a trailing pair of stride 1, the other strides doubled
        std::vector<int64_t> pair_sizes(sizes), pair_strides;
        pair_sizes.push_back(2);
        for (int64_t st : out.strides()) pair_strides.push_back(st * 2);
        pair_strides.push_back(1);
        args.input(pairs)
            .raw_output(base + offset * step, c10::toRealValueType(dtype), pair_sizes, pair_strides);
      } else {
        args.input(t).raw_output(base + offset * step, dtype, sizes, out.strides());
      }
      if (!launch(out.device().index(), HAL_OP_COPY, args)) return std::nullopt;
    }
    offset += size;
  }
  return out;
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) { HAL_NATIVE(m, cat, "cat", launches(HAL_OP_COPY), cat); }

}  // namespace
}  // namespace torch_hal::native
