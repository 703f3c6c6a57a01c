// The environment variables of torch_hal, parsed strictly in one place. A value that does not parse is a
// configuration error (hal::Error with ErrorCode::BadConfig, a ValueError in Python) that names the
// variable, the value and what is accepted: a typo must never silently change behaviour.
#pragma once

#include <optional>
#include <string>

namespace hal {

// An on/off switch: unset or empty is `fallback`; 1/true/yes/on and 0/false/no/off (any case) are read;
// anything else throws.
bool env_flag(const char* name, bool fallback);

// An integer in [min, max]: unset or empty is nullopt; anything else (a sign where none belongs, a
// fraction, an exponent, trailing text, out of range) throws.
std::optional<long long> env_integer(const char* name, long long min, long long max);

// Plain digits with at most one point ("256", "0.6", ".5"): no sign, nan, inf, exponent or trailing text.
bool is_plain_decimal(const std::string& text);

// A non-negative decimal number at most `max`, plain digits with an optional fraction ("256", "0.5"): unset or
// empty is nullopt; anything else (a sign, an exponent, trailing text, more than `max`) throws.
std::optional<double> env_decimal(const char* name, double max);

// Parses every variable the core and the glue read, so that `import torch_hal` raises for a bad one
// instead of the first allocation or copy. Adapters parse their own (TORCH_HAL_HOST_*), reporting a bad
// value as the reason they could not start.
void validate_environment();

}  // namespace hal
