// One random generator per hal device. It wraps a CPU generator (mt19937, the kind ATen's CPU
// kernels take), so random ops that run as CPU kernels draw from the hal device's own stream of numbers,
// seeded by torch.hal.manual_seed / torch.manual_seed and independent of the CPU generator.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <optional>
#include <utility>

namespace torch_hal {

const at::Generator& default_generator(c10::DeviceIndex index);
at::Generator make_generator(c10::DeviceIndex index);

// The CPU generator that ATen's CPU kernels should use in place of `hal_generator` (a hal generator or
// an undefined one, meaning the default generator of hal:device).
at::Generator cpu_generator_for(const std::optional<at::Generator>& hal_generator, c10::DeviceIndex device);

// For native random kernels (counter-based, adapter.h): the (seed, offset) a launch of `increment`
// elements draws from, taken from `hal_generator` (or hal:device's default generator) while its offset is
// advanced by `increment` under the generator's lock, so concurrent launches never share counters.
// Both functions raise for a generator of another device (a CPU generator passed to a hal op), as torch.cuda does.
std::pair<uint64_t, uint64_t> philox_seed_and_advance(const std::optional<at::Generator>& hal_generator,
                                                      c10::DeviceIndex device, uint64_t increment);

}  // namespace torch_hal
