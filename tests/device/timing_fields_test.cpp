// Profile fields read by the timing model: gpu.issue_policy, memory.l1.bytes_per_cycle and
// memory.l2.bytes_per_cycle (docs/profiles.md). Parsing, rejection with one-line messages,
// and the values of the shipped profiles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "model/device/device_names.h"
#include "model/device/profile_loader.h"
#include "tests/device/profile_fixture.h"

namespace marlin::model {
namespace {

using testing::dynamic_profile;
using testing::error_of;
using ::testing::HasSubstr;
using testing::json;
using testing::leaf;
using ::testing::Not;
using testing::parse_json;
using ::testing::StartsWith;

TEST(TimingFields, FixtureValuesAreDecoded) {
  const DeviceSpec spec = parse_json(dynamic_profile());
  EXPECT_EQ(spec.gpu.issue_policy, IssuePolicy::kOldestFirst);
  EXPECT_EQ(spec.memory.l1_bytes_per_cycle, 48.0);
  EXPECT_EQ(spec.memory.l2_bytes_per_cycle, 256.5);
  EXPECT_EQ(spec.provenance.at("gpu.issue_policy").value, "oldest_first");
}

TEST(TimingFields, GreedyPolicyIsAccepted) {
  json profile = dynamic_profile();
  profile["gpu"]["issue_policy"] = leaf("greedy_then_oldest");
  EXPECT_EQ(parse_json(profile).gpu.issue_policy, IssuePolicy::kGreedyThenOldest);
}

TEST(TimingFields, PolicyNamesRoundTrip) {
  for (const IssuePolicy policy : {IssuePolicy::kOldestFirst, IssuePolicy::kGreedyThenOldest}) {
    EXPECT_EQ(parse_issue_policy(to_string(policy)), policy);
  }
}

TEST(TimingFields, UnknownPolicyIsOneLine) {
  json profile = dynamic_profile();
  profile["gpu"]["issue_policy"] = leaf("round_robin");
  const std::string message = error_of(profile);
  EXPECT_EQ(message,
            "test/dev.json: gpu.issue_policy: unknown issue policy 'round_robin'; expected one of "
            "oldest_first, greedy_then_oldest");
  EXPECT_THAT(message, Not(HasSubstr("\n")));
}

TEST(TimingFields, PolicyMustBeANameAndPresent) {
  json number = dynamic_profile();
  number["gpu"]["issue_policy"] = leaf(1);
  EXPECT_EQ(error_of(number),
            "test/dev.json: gpu.issue_policy: expected a name (string), got number");
  json missing = dynamic_profile();
  missing["gpu"].erase("issue_policy");
  EXPECT_EQ(error_of(missing), "test/dev.json: gpu.issue_policy: missing field");
}

TEST(TimingFields, PortRatesMustBePositivePlainNumbers) {
  json zero = dynamic_profile();
  zero["memory"]["l1"]["bytes_per_cycle"] = leaf(0);
  EXPECT_EQ(error_of(zero), "test/dev.json: memory.l1.bytes_per_cycle: must be positive, got 0");
  json negative = dynamic_profile();
  negative["memory"]["l2"]["bytes_per_cycle"] = leaf(-64);
  EXPECT_EQ(error_of(negative),
            "test/dev.json: memory.l2.bytes_per_cycle: must be positive, got -64");
  json text = dynamic_profile();
  text["memory"]["l2"]["bytes_per_cycle"] = leaf("64 B");
  EXPECT_EQ(error_of(text),
            "test/dev.json: memory.l2.bytes_per_cycle: expected a plain number, got a string "
            "'64 B'");
  json missing = dynamic_profile();
  missing["memory"]["l1"].erase("bytes_per_cycle");
  EXPECT_EQ(error_of(missing), "test/dev.json: memory.l1.bytes_per_cycle: missing field");
}

TEST(TimingFields, TheSlcHasNoPortRate) {
  json profile = dynamic_profile();
  profile["memory"]["slc"]["bytes_per_cycle"] = leaf(64);
  EXPECT_THAT(error_of(profile),
              StartsWith("test/dev.json: memory.slc.bytes_per_cycle: unknown key"));
}

// Shipped values: the L1 port is metal-benchmarks' 64 B per core-cycle on every profile; the
// shared L2 port is estimated as cores x 32 B per core-cycle, so children with another core
// count override it: m1 8 x 32 = 256, m1max 32 x 32 = 1024, m2pro 19 x 32 = 608,
// m4max and m3max 40 x 32 = 1280, m4max-32c 1024, m4pro 20 x 32 = 640, m4pro-16c 16 x 32 = 512.
TEST(TimingFields, ShippedProfiles) {
  const std::map<std::string, double> l2 = {{"m1", 256},     {"m1max", 1024},   {"m2pro", 608},
                                            {"m3max", 1280}, {"m4max", 1280},   {"m4max-32c", 1024},
                                            {"m4pro", 640},  {"m4pro-16c", 512}};
  for (const std::string& name : list_devices()) {
    SCOPED_TRACE(name);
    const DeviceSpec spec = load_device(name);
    EXPECT_EQ(spec.gpu.issue_policy, IssuePolicy::kOldestFirst);
    EXPECT_EQ(spec.provenance.at("gpu.issue_policy").kind, SourceKind::kEstimate);
    EXPECT_EQ(spec.memory.l1_bytes_per_cycle, 64.0);
    ASSERT_EQ(l2.count(name), 1U);
    EXPECT_EQ(spec.memory.l2_bytes_per_cycle, l2.at(name));
  }
}

}  // namespace
}  // namespace marlin::model
