// Shared helpers of the C++ tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "hal/error.h"

namespace hal_test {

inline std::string lib_dir() { return HAL_TEST_LIB_DIR; }
inline std::string host_adapter_path() { return lib_dir() + "/libhal_adapter_host.so"; }
inline std::string fixture(const std::string& name) {
  return std::string(HAL_TEST_FIXTURE_DIR) + "/libhal_fixture_" + name + ".so";
}

// Runs fn, which must throw hal::Error; returns it (or fails the test).
template <typename F>
hal::Error expect_hal_error(F&& fn) {
  try {
    std::forward<F>(fn)();
  } catch (const hal::Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a hal::Error";
  return hal::Error(hal::ErrorCode::Internal, "<nothing thrown>");
}

constexpr size_t kMiB = size_t{1} << 20;

}  // namespace hal_test
