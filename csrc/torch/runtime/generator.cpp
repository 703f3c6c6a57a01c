#include "runtime/generator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/ops/empty.h>
#include <c10/core/GeneratorImpl.h>

#include <cstring>
#include <deque>
#include <mutex>

#include "runtime/hal_context.h"

namespace torch_hal {
namespace {

class HalGenerator final : public c10::GeneratorImpl {
 public:
  HalGenerator(c10::DeviceIndex index, at::Generator cpu, uint64_t philox_offset = 0)
      : c10::GeneratorImpl(c10::Device(kHal, index), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
        cpu_(std::move(cpu)),
        philox_offset_(philox_offset) {}
  explicit HalGenerator(c10::DeviceIndex index)
      : HalGenerator(index, at::make_generator<at::CPUGeneratorImpl>(c10::default_rng_seed_val)) {}

  // A new seed restarts the native kernels' counters, so manual_seed reproduces their numbers too.
  void set_current_seed(uint64_t seed) override {
    cpu_.set_current_seed(seed);
    philox_offset_ = 0;
  }
  uint64_t current_seed() const override { return cpu_.current_seed(); }
  uint64_t seed() override {
    philox_offset_ = 0;
    return cpu_.seed();
  }
  // The offset is the native kernels' Philox counter (as CUDA's generator's is); the CPU generator has none.
  void set_offset(uint64_t offset) override { philox_offset_ = offset; }
  uint64_t get_offset() const override { return philox_offset_; }

  // The CPU generator's state followed by the 8 bytes of the Philox offset, so get_rng_state /
  // set_rng_state restore both kinds of draws. A state without the 8 bytes (saved before they existed)
  // restores the CPU part and counts from offset 0.
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    const at::Tensor cpu_state(cpu_.unsafeGetGeneratorImpl()->get_state());
    const int64_t cpu_bytes = cpu_state.numel();
    at::Tensor state = at::empty({cpu_bytes + kOffsetBytes}, cpu_state.options());
    std::memcpy(state.data_ptr(), cpu_state.const_data_ptr(), static_cast<size_t>(cpu_bytes));
    std::memcpy(static_cast<uint8_t*>(state.data_ptr()) + cpu_bytes, &philox_offset_, kOffsetBytes);
    return state.getIntrusivePtr();
  }
  void set_state(const c10::TensorImpl& state) override {
    TORCH_CHECK_TYPE(state.dtype() == caffe2::TypeMeta::Make<uint8_t>(),
                     "RNG state must be a torch.ByteTensor, got ", state.dtype());
    const int64_t cpu_bytes = at::Tensor(cpu_.unsafeGetGeneratorImpl()->get_state()).numel();
    if (state.numel() != cpu_bytes + kOffsetBytes) {
      cpu_.unsafeGetGeneratorImpl()->set_state(state);  // no offset appended (or invalid: its own error)
      philox_offset_ = 0;
      return;
    }
    TORCH_CHECK(state.is_contiguous(), "RNG state must be contiguous");
    const auto* bytes = static_cast<const uint8_t*>(state.data());
    at::Tensor cpu_state = at::empty({cpu_bytes}, at::TensorOptions().dtype(at::kByte));
    std::memcpy(cpu_state.data_ptr(), bytes, static_cast<size_t>(cpu_bytes));
    cpu_.unsafeGetGeneratorImpl()->set_state(*cpu_state.unsafeGetTensorImpl());
    std::memcpy(&philox_offset_, bytes + cpu_bytes, kOffsetBytes);
  }
  static c10::DeviceType device_type() { return kHal; }

  const at::Generator& cpu() const { return cpu_; }

  // The caller holds mutex_.
  std::pair<uint64_t, uint64_t> philox_seed_and_advance(uint64_t increment) {
    const uint64_t offset = philox_offset_;
    philox_offset_ += increment;
    return {cpu_.current_seed(), offset};
  }

 private:
  static constexpr int64_t kOffsetBytes = sizeof(uint64_t);
  HalGenerator* clone_impl() const override {
    return new HalGenerator(device().index(), cpu_.clone(), philox_offset_);
  }
  at::Generator cpu_;
  uint64_t philox_offset_ = 0;
};

}  // namespace

const at::Generator& default_generator(c10::DeviceIndex index) {
  static std::mutex mutex;
  static std::deque<at::Generator> generators;  // deque: references stay valid as devices are added
  const int count = device_count();
  TORCH_CHECK_INDEX(index >= 0 && index < count, "hal:", static_cast<int>(index), " is not a valid device: ", count,
                    " hal device(s) available");
  std::lock_guard<std::mutex> lock(mutex);
  while (static_cast<int>(generators.size()) < count) {
    generators.push_back(at::make_generator<HalGenerator>(static_cast<c10::DeviceIndex>(generators.size())));
  }
  return generators[index];
}

at::Generator make_generator(c10::DeviceIndex index) {
  device(index);
  return at::make_generator<HalGenerator>(index);
}

namespace {

// The generator a random op on hal:device draws from: the one passed, else the device's default. A generator of
// another device is an error, as torch.cuda's "Expected a 'cuda' device type for generator": silently drawing
// from a CPU generator would make a hal program's numbers depend on where its generator happened to live.
const at::Generator& hal_generator_or_default(const std::optional<at::Generator>& hal_generator,
                                              c10::DeviceIndex device) {
  if (!hal_generator.has_value() || !hal_generator->defined()) return default_generator(device);
  TORCH_CHECK(hal_generator->device().type() == kHal, "Expected a 'hal' device type for generator but found '",
              hal_generator->device().type(), "': pass a hal generator (torch.Generator(device=\"hal\")) to a "
              "random op on hal, or run the op on the generator's device");
  return *hal_generator;
}

}  // namespace

at::Generator cpu_generator_for(const std::optional<at::Generator>& hal_generator, c10::DeviceIndex device) {
  const at::Generator& gen = hal_generator_or_default(hal_generator, device);
  return static_cast<HalGenerator*>(gen.unsafeGetGeneratorImpl())->cpu();
}

std::pair<uint64_t, uint64_t> philox_seed_and_advance(const std::optional<at::Generator>& hal_generator,
                                                      c10::DeviceIndex device, uint64_t increment) {
  at::Generator gen = hal_generator_or_default(hal_generator, device);
  std::lock_guard<std::mutex> lock(gen.mutex());
  return static_cast<HalGenerator*>(gen.unsafeGetGeneratorImpl())->philox_seed_and_advance(increment);
}

}  // namespace torch_hal
