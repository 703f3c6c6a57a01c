// Run with TORCH_HAL_HOST_DEVICES=2 and some HAL_VISIBLE_DEVICES; HAL_TEST_EXPECT_LOCAL lists the
// host-local indices expected as hal:0, hal:1, ... (empty: no device).
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "hal/device_registry.h"
#include "test_util.h"

namespace {

TEST(VisibleDevices, FilterAndOrder) {
  const char* expect = std::getenv("HAL_TEST_EXPECT_LOCAL");
  ASSERT_NE(expect, nullptr) << "set HAL_TEST_EXPECT_LOCAL";
  ASSERT_NE(std::getenv("HAL_VISIBLE_DEVICES"), nullptr);
  std::vector<int> expected;
  std::stringstream ss(expect);
  for (std::string item; std::getline(ss, item, ',');) expected.push_back(std::stoi(item));

  auto& reg = hal::DeviceRegistry::instance();
  ASSERT_EQ(reg.device_count(), static_cast<int>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(reg.device(static_cast<int>(i)).index, static_cast<int>(i));
    EXPECT_EQ(reg.device(static_cast<int>(i)).local_index, expected[i]);
  }
  // The host adapter itself still sees both devices; only the hal numbering is filtered.
  // Found by name: the package folder loads adapters in name order, and amd sorts before host.
  const hal::AdapterLibrary* host = nullptr;
  for (const hal::AdapterLibrary* a : reg.adapters()) {
    if (a->name() == "host") host = a;
  }
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->device_count(), 2);
  if (expected.empty()) {
    hal::Error e = hal_test::expect_hal_error([&] { reg.device(0); });
    EXPECT_NE(std::string(e.what()).find("no hal device is available"), std::string::npos) << e.what();
  }
}

}  // namespace
