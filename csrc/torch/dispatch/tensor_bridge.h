// Moving between hal tensors and the CPU tensors that ATen's CPU kernels take.
//
// Two ways, chosen by the device:
//  - host-accessible memory (host reference device, unified memory): cpu_alias() is a CPU tensor over the
//    very same bytes, no copy;
//  - any other device: download() copies the bytes a tensor covers to host memory, and upload() writes
//    values back, for any layout (sliced, transposed, expanded): the covering byte range of the storage is
//    moved, so strides and offsets survive.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/SmallVector.h>

namespace torch_hal {

bool is_hal(const at::Tensor& t);
bool is_host_accessible(c10::DeviceIndex device);

// Same sizes, both dense, and the same stride in every dimension of more than one element: the bytes of one can
// be copied as they are into the other. (The stride of a size-1 dimension is never used and may be anything.)
bool same_dense_layout(const at::Tensor& a, const at::Tensor& b);

// The address of the tensor's first element (its storage's bytes plus its offset), for copies of raw bytes.
char* first_element_byte(const at::Tensor& t);

// Waits for the work queued on the current stream of hal:device, so the CPU may touch its memory.
void wait_for_current_stream(c10::DeviceIndex device);

// A CPU tensor over the memory of a host-accessible hal tensor: same sizes, strides and offset.
// Its storage does not own the memory; keep the hal tensor alive while it is used. Aliases of tensors that share
// a hal storage share one CPU storage (on the calling thread), so ATen's CPU kernels find an output that partly
// overlaps an input, as they would for CPU tensors, instead of computing order-dependent values.
at::Tensor cpu_alias(const at::Tensor& hal_tensor);

// A CPU tensor with the values of any hal tensor, same sizes and strides (synchronous).
at::Tensor download(const at::Tensor& hal_tensor);
// Writes the values of `cpu_values` (broadcastable, any dtype) into `hal_destination` (synchronous). A
// destination whose elements share memory (an expanded tensor) is written element by element.
void upload(const at::Tensor& hal_destination, const at::Tensor& cpu_values);

// The host copies of one CPU-fallback call's hal arguments: tensors that share a hal storage become views of one
// host buffer, downloaded once, so the CPU kernel sees their overlap as it would see it between CPU tensors.
// note() every hal tensor first, then take each one's copy with copy_of().
class HostCopies {
 public:
  void note(const at::Tensor& hal_tensor);
  at::Tensor copy_of(const at::Tensor& hal_tensor);

 private:
  struct Range {
    const c10::StorageImpl* storage = nullptr;
    int64_t first = 0, last = 0;  // bytes of the storage that the noted tensors cover
    at::Tensor buffer;            // the host bytes, once downloaded
  };
  Range& range_of(const at::Tensor& hal_tensor);
  c10::SmallVector<Range, 4> ranges_;
};

// A hal tensor with the geometry (sizes, strides, offset, dtype) of `like` over `storage`.
at::Tensor hal_tensor_over(c10::Storage storage, const at::Tensor& like);

// A new hal tensor on `device` holding the values of the CPU tensor `cpu_values` (dense layouts kept).
at::Tensor new_hal_tensor_from(const at::Tensor& cpu_values, c10::DeviceIndex device);

}  // namespace torch_hal
