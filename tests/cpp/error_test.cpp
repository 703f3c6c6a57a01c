#include <gtest/gtest.h>

#include <cstring>

#include "hal/error.h"
#include "test_util.h"

namespace {

const char* fake_last_error() { return "driver says cudaErrorMemoryAllocation"; }

TEST(Error, StatusNames) {
  EXPECT_STREQ(hal::status_name(HAL_STATUS_SUCCESS), "HAL_STATUS_SUCCESS");
  EXPECT_STREQ(hal::status_name(HAL_STATUS_OUT_OF_DEVICE_MEMORY), "HAL_STATUS_OUT_OF_DEVICE_MEMORY");
  EXPECT_STREQ(hal::status_name(HAL_STATUS_NOT_READY), "HAL_STATUS_NOT_READY");
  EXPECT_STREQ(hal::status_name(HAL_STATUS_INTERNAL_ERROR), "HAL_STATUS_INTERNAL_ERROR");
  EXPECT_STREQ(hal::status_name(999), "HAL_STATUS_<unknown>");
}

TEST(Error, DeviceAndHostOutOfMemoryStayDistinct) {
  EXPECT_EQ(hal::error_code_from_status(HAL_STATUS_OUT_OF_DEVICE_MEMORY), hal::ErrorCode::OutOfDeviceMemory);
  EXPECT_EQ(hal::error_code_from_status(HAL_STATUS_OUT_OF_HOST_MEMORY), hal::ErrorCode::OutOfHostMemory);
  EXPECT_EQ(hal::error_code_from_status(HAL_STATUS_INVALID_ARGUMENT), hal::ErrorCode::InvalidArgument);
  EXPECT_EQ(hal::error_code_from_status(HAL_STATUS_UNAVAILABLE), hal::ErrorCode::Unavailable);
  EXPECT_EQ(hal::error_code_from_status(HAL_STATUS_DEVICE_ERROR), hal::ErrorCode::Device);
  EXPECT_EQ(hal::error_code_from_status(HAL_STATUS_NOT_SUPPORTED), hal::ErrorCode::NotSupported);
}

TEST(Error, ThrowOnFailureFormatsAdapterStatusAndMessage) {
  hal_adapter_t table;
  std::memset(&table, 0, sizeof(table));
  table.name = "fake";
  table.get_last_error = fake_last_error;
  EXPECT_NO_THROW(hal::throw_on_failure(table, HAL_STATUS_SUCCESS, "malloc_device"));
  hal::Error e = hal_test::expect_hal_error(
      [&] { hal::throw_on_failure(table, HAL_STATUS_OUT_OF_DEVICE_MEMORY, "malloc_device"); });
  EXPECT_EQ(e.code(), hal::ErrorCode::OutOfDeviceMemory);
  EXPECT_STREQ(e.what(), "fake: malloc_device failed: HAL_STATUS_OUT_OF_DEVICE_MEMORY: driver says "
                         "cudaErrorMemoryAllocation");
}

}  // namespace
