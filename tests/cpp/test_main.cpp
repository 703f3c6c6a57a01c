// Every test executable loads the registry from the freshly built package lib folder first.
#include <gtest/gtest.h>

#include "hal/device_registry.h"
#include "test_util.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  hal::DeviceRegistry::instance(hal_test::lib_dir());
  return RUN_ALL_TESTS();
}
