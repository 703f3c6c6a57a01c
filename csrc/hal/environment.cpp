#include "hal/environment.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "allocator_config.h"
#include "hal/copy_engine.h"
#include "hal/error.h"
#include "parallel_memcpy.h"

namespace hal {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool env_flag(const char* name, bool fallback) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return fallback;
  const std::string v = lower(raw);
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  throw Error(ErrorCode::BadConfig, std::string(name) + "='" + raw +
                                        "' is not a switch: use 1 (or true, yes, on) or 0 (or false, no, off)");
}

std::optional<long long> env_integer(const char* name, long long min, long long max) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return std::nullopt;
  const std::string v(raw);
  bool digits = true;
  for (size_t i = 0; i < v.size(); ++i) {
    digits = digits && (std::isdigit(static_cast<unsigned char>(v[i])) || (i == 0 && v[i] == '-' && min < 0));
  }
  errno = 0;
  const long long n = digits ? std::strtoll(v.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE || n < min || n > max) {
    throw Error(ErrorCode::BadConfig, std::string(name) + "='" + raw + "' is not a whole number between " +
                                          std::to_string(min) + " and " + std::to_string(max));
  }
  return n;
}

bool is_plain_decimal(const std::string& text) {
  int digits = 0, points = 0;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) ++digits;
    else if (c == '.') ++points;
    else return false;
  }
  return digits > 0 && points <= 1 && text.size() <= 32;
}

std::optional<double> env_decimal(const char* name, double max) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return std::nullopt;
  const double x = is_plain_decimal(raw) ? std::strtod(raw, nullptr) : -1.0;
  if (x < 0.0 || x > max) {
    throw Error(ErrorCode::BadConfig, std::string(name) + "='" + raw + "' is not a number between 0 and " +
                                          std::to_string(static_cast<long long>(max)) +
                                          " (plain digits with an optional fraction, such as 256 or 0.5)");
  }
  return x;
}

void validate_environment() {
  allocator_config();
  force_staging();
  copy_thread_count();
}

}  // namespace hal
