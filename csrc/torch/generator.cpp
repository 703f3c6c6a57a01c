#include "generator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/GeneratorImpl.h>

#include <deque>
#include <mutex>

#include "hal_context.h"

namespace torch_hal {
namespace {

class HalGenerator final : public c10::GeneratorImpl {
 public:
  HalGenerator(c10::DeviceIndex index, at::Generator cpu)
      : c10::GeneratorImpl(c10::Device(kHal, index), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
        cpu_(std::move(cpu)) {}
  explicit HalGenerator(c10::DeviceIndex index)
      : HalGenerator(index, at::make_generator<at::CPUGeneratorImpl>(c10::default_rng_seed_val)) {}

  void set_current_seed(uint64_t seed) override { cpu_.set_current_seed(seed); }
  uint64_t current_seed() const override { return cpu_.current_seed(); }
  uint64_t seed() override { return cpu_.seed(); }
  void set_offset(uint64_t offset) override { cpu_.set_offset(offset); }
  uint64_t get_offset() const override { return cpu_.get_offset(); }
  void set_state(const c10::TensorImpl& state) override { cpu_.unsafeGetGeneratorImpl()->set_state(state); }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override { return cpu_.unsafeGetGeneratorImpl()->get_state(); }
  static c10::DeviceType device_type() { return kHal; }

  const at::Generator& cpu() const { return cpu_; }

 private:
  HalGenerator* clone_impl() const override { return new HalGenerator(device().index(), cpu_.clone()); }
  at::Generator cpu_;
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

at::Generator cpu_generator_for(const std::optional<at::Generator>& hal_generator, c10::DeviceIndex device) {
  const at::Generator& gen =
      (hal_generator.has_value() && hal_generator->defined()) ? *hal_generator : default_generator(device);
  if (gen.device().type() != kHal) return gen;  // a CPU generator passed explicitly stays what it is
  return static_cast<HalGenerator*>(gen.unsafeGetGeneratorImpl())->cpu();
}

}  // namespace torch_hal
