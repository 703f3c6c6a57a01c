// The numbering rule and HAL_VISIBLE_DEVICES on made-up device lists (no registry involved).
#include <gtest/gtest.h>

#include "hal/device_registry.h"

namespace {

using hal::DeviceSortKey;

const std::vector<DeviceSortKey> kDevices = {
    {"host", "host", "", 0},                 // 0
    {"nvidia", "nvidia", "0000:3b:00.0", 1}, // 1
    {"zeta", "zeta_npu", "", 0},             // 2
    {"nvidia", "nvidia", "0000:1a:00.0", 0}, // 3
    {"amd", "amd", "0000:c1:00.0", 0},       // 4
    {"acme", "acme_asic", "", 0},            // 5
    {"intel", "intel", "0000:05:00.0", 0},   // 6
};

TEST(DeviceOrder, VendorPreferenceThenBusIdHostLast) {
  EXPECT_EQ(hal::order_devices(kDevices, nullptr), (std::vector<size_t>{3, 1, 4, 6, 5, 2, 0}));
}

TEST(DeviceOrder, HostAloneIsHal0) {
  EXPECT_EQ(hal::order_devices({{"host", "host", "", 0}}, nullptr), (std::vector<size_t>{0}));
}

TEST(DeviceOrder, VisibleIndicesInGivenOrder) {
  EXPECT_EQ(hal::order_devices(kDevices, "1,0"), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(hal::order_devices(kDevices, " 6 "), (std::vector<size_t>{0}));
}

TEST(DeviceOrder, VisibleVendorLocalPairs) {
  EXPECT_EQ(hal::order_devices(kDevices, "host:0,nvidia:1,acme_asic:0"), (std::vector<size_t>{0, 1, 5}));
}

TEST(DeviceOrder, EmptyVisibleHidesEverything) { EXPECT_TRUE(hal::order_devices(kDevices, "").empty()); }

TEST(DeviceOrder, BadEntriesAreSkippedAndReported) {
  std::vector<std::string> problems;
  EXPECT_EQ(hal::order_devices(kDevices, "9,x,0,0,nvidia:7,-1", &problems), (std::vector<size_t>{3}));
  ASSERT_EQ(problems.size(), 5u);
  EXPECT_NE(problems[0].find("'9'"), std::string::npos);
  EXPECT_NE(problems[0].find("only 7 devices"), std::string::npos);
  EXPECT_NE(problems[1].find("'x'"), std::string::npos);
  EXPECT_NE(problems[2].find("already listed"), std::string::npos);
  EXPECT_NE(problems[3].find("'nvidia:7'"), std::string::npos);
  EXPECT_NE(problems[4].find("'-1'"), std::string::npos);
}

}  // namespace
