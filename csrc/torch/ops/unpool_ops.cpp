// max_unpool2d and max_unpool3d (nn.MaxUnpool2d/3d: SegNet-style decoders) from native scatter: each value goes to
// the position its index names within its (batch, channel) plane of the output, zeros elsewhere. Indices out of
// the plane are skipped by the scatter kernel instead of raising (as elsewhere on GPUs: no synchronization).
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <vector>

#include "dispatch/native_first.h"
#include "ops/out_form.h"

namespace torch_hal::native {
namespace {

// The output of self's leading dims with the `spatial` sizes: values scattered along each flattened plane.
std::optional<at::Tensor> unpool(const at::Tensor& self, const at::Tensor& indices, c10::SymIntArrayRef output_size,
                                 int64_t spatial) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, "elements in indices should be type int64 but got: ",
              indices.scalar_type());
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              self.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  if (self.dim() != spatial + 1 && self.dim() != spatial + 2) return std::nullopt;
  if (static_cast<int64_t>(output_size.size()) != spatial || self.numel() == 0) return std::nullopt;
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end() - spatial);
  int64_t plane = 1;
  for (const c10::SymInt& s : output_size) {
    const auto size = s.maybe_as_int();
    if (!size || *size <= 0) return std::nullopt;
    sizes.push_back(*size);
    plane *= *size;
  }
  const int64_t planes = self.numel() / (self.size(-1) * (spatial > 1 ? self.size(-2) : 1) *
                                         (spatial > 2 ? self.size(-3) : 1));
  at::Tensor out = at::zeros(sizes, self.options());
  out.view({planes, plane}).scatter_(1, indices.reshape({planes, -1}), self.reshape({planes, -1}));
  return out;
}

std::optional<at::Tensor> native_max_unpool2d(const at::Tensor& self, const at::Tensor& indices,
                                              c10::SymIntArrayRef output_size) {
  return unpool(self, indices, output_size, 2);
}
bool native_max_unpool2d_out(const at::Tensor& self, const at::Tensor& indices, c10::SymIntArrayRef output_size,
                             at::Tensor& out) {
  return write_out(unpool(self, indices, output_size, 2), out);
}
std::optional<at::Tensor> native_max_unpool3d(const at::Tensor& self, const at::Tensor& indices,
                                              c10::SymIntArrayRef output_size, at::IntArrayRef stride,
                                              at::IntArrayRef padding) {
  // stride and padding only validate the call in ATen: their errors are ATen's.
  for (const int64_t s : stride) {
    if (s <= 0) return std::nullopt;
  }
  if (stride.size() != 3 || padding.size() != 3) return std::nullopt;
  return unpool(self, indices, output_size, 3);
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  HAL_NATIVE(m, max_unpool2d, "max_unpool2d", launches(), native_max_unpool2d);
  HAL_NATIVE(m, max_unpool2d_out, "max_unpool2d.out", launches(), native_max_unpool2d_out);
  HAL_NATIVE(m, max_unpool3d, "max_unpool3d", launches(), native_max_unpool3d);
}

}  // namespace
}  // namespace torch_hal::native
