// Names of the DeviceSpec enumerations: every value round-trips, unknown names are rejected.
#include "model/device/device_names.h"

#include <gtest/gtest.h>

#include <string>

#include "model/common/input_error.h"

namespace marlin::model {
namespace {

TEST(DeviceNames, RoundTrip) {
  for (const GpuFamily family : {GpuFamily::kApple7, GpuFamily::kApple8, GpuFamily::kApple9}) {
    EXPECT_EQ(parse_gpu_family(to_string(family)), family);
  }
  for (const OccupancyRule rule : {OccupancyRule::kStatic, OccupancyRule::kDynamicCaching}) {
    EXPECT_EQ(parse_occupancy_rule(to_string(rule)), rule);
  }
  for (const SourceKind kind :
       {SourceKind::kVendor, SourceKind::kMeasured, SourceKind::kReverseEngineered,
        SourceKind::kEstimate, SourceKind::kCalibrated}) {
    EXPECT_EQ(parse_source_kind(to_string(kind)), kind);
  }
  EXPECT_EQ(parse_bank_rule(to_string(BankRule::kClassic)), BankRule::kClassic);
}

TEST(DeviceNames, Spellings) {
  EXPECT_EQ(to_string(GpuFamily::kApple9), "apple9");
  EXPECT_EQ(to_string(OccupancyRule::kDynamicCaching), "dynamic_caching");
  EXPECT_EQ(to_string(SourceKind::kReverseEngineered), "reverse-engineered");
  EXPECT_EQ(to_string(BankRule::kClassic), "classic");
}

TEST(DeviceNames, UnknownNamesListTheAcceptedOnes) {
  try {
    parse_gpu_family("Apple9");
    FAIL() << "accepted";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(),
                 "unknown GPU family 'Apple9'; expected one of apple7, apple8, apple9");
  }
  EXPECT_THROW(parse_occupancy_rule("dynamic"), InputError);
  EXPECT_THROW(parse_source_kind("guess"), InputError);
  EXPECT_THROW(parse_bank_rule("xor"), InputError);
}

}  // namespace
}  // namespace marlin::model
