// Profile inheritance: overrides, deep merge, provenance of merged leaves, cycles, missing
// parents, and errors that name the file where the bad leaf was written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/device/profile_fixture.h"

namespace marlin::model::testing {
namespace {

using ::testing::StartsWith;

json child_of(const std::string& parent, const std::string& name = "child") {
  return json{{"name", name}, {"description", "derived test device"}, {"inherits", parent}};
}

std::map<std::string, std::string> base_parent() {
  json base = dynamic_profile();
  base["name"] = "base";
  base["gpu"]["cores"]["note"] = "parent note";
  return {{"base", base.dump()}};
}

TEST(ProfileInheritance, ChildOverridesALeafWhole) {
  json child = child_of("base");
  child["gpu"]["cores"] = leaf(20, "measured");
  const DeviceSpec spec = parse_text(child.dump(), base_parent());
  EXPECT_EQ(spec.name, "child");
  EXPECT_EQ(spec.description, "derived test device");
  EXPECT_EQ(spec.file, "test/dev.json");
  EXPECT_EQ(spec.gpu.cores, 20);
  const Provenance& cores = spec.provenance.at("gpu.cores");
  EXPECT_EQ(cores.kind, SourceKind::kMeasured);
  EXPECT_EQ(cores.source, "test fixture");
  EXPECT_EQ(cores.note, "");  // the parent's note does not survive a child override
  // Everything else comes from the parent.
  EXPECT_EQ(spec.gpu.clock_hz, 1e9);
  EXPECT_EQ(spec.provenance.at("gpu.clock").kind, SourceKind::kMeasured);
  EXPECT_EQ(spec.limits.max_threads_per_core, 2048);
}

TEST(ProfileInheritance, SectionsMergeDeeply) {
  json child = child_of("base");
  child["memory"]["l2"]["size"] = leaf("2 MiB");
  const DeviceSpec spec = parse_text(child.dump(), base_parent());
  EXPECT_EQ(spec.memory.l2.size_bytes, 2 * 1024 * 1024);
  EXPECT_EQ(spec.memory.l2.line_bytes, 128);  // sibling leaves of the parent are kept
  EXPECT_EQ(spec.memory.l2.associativity, 8);
  EXPECT_EQ(spec.memory.l1.size_bytes, 16 * 1024);
}

TEST(ProfileInheritance, NanosecondLatenciesUseTheChildClock) {
  // The parent gives the SLC hit as 300 ns at 1 GHz (300 cycles); at 2 GHz it is 600 cycles.
  json child = child_of("base");
  child["gpu"]["clock"] = leaf("2 GHz");
  const DeviceSpec spec = parse_text(child.dump(), base_parent());
  EXPECT_EQ(spec.memory.slc.hit_latency_cycles, 600);
  EXPECT_EQ(spec.memory.dram_latency_cycles, 1000);  // 500 ns * 2 GHz
  EXPECT_EQ(spec.memory.l1.hit_latency_cycles, 50);  // given in cycles: unchanged
}

TEST(ProfileInheritance, ThreeLevels) {
  json middle = child_of("base", "middle");
  middle["gpu"]["cores"] = leaf(30);
  middle["memory"]["dram_bandwidth"] = leaf("200 GB/s");
  auto parents = base_parent();
  parents["middle"] = middle.dump();
  json child = child_of("middle");
  child["gpu"]["cores"] = leaf(24);
  const DeviceSpec spec = parse_text(child.dump(), parents);
  EXPECT_EQ(spec.gpu.cores, 24);
  EXPECT_EQ(spec.memory.dram_bandwidth_bytes_per_s, 200e9);
  EXPECT_EQ(spec.memory.l1.size_bytes, 16 * 1024);
}

TEST(ProfileInheritance, ChildMayNotAddUnknownKeys) {
  json child = child_of("base");
  child["gpu"]["coers"] = leaf(20);
  EXPECT_EQ(error_of_text(child.dump(), base_parent()),
            "test/dev.json: gpu.coers: unknown key; did you mean cores?");
}

TEST(ProfileInheritance, SelfCycle) {
  const json child = child_of("child");
  EXPECT_EQ(error_of_text(child.dump()),
            "test/dev.json: inherits: inheritance cycle: child -> child");
}

TEST(ProfileInheritance, TwoFileCycle) {
  const json a = child_of("b", "a");
  const json b = child_of("a", "b");
  EXPECT_EQ(error_of_text(a.dump(), {{"b", b.dump()}}),
            "test/b.json: inherits: inheritance cycle: a -> b -> a");
}

TEST(ProfileInheritance, MissingParent) {
  const json child = child_of("nowhere");
  EXPECT_EQ(error_of_text(child.dump()),
            "test/dev.json: inherits: cannot read parent profile 'nowhere': no profile named "
            "nowhere");
}

TEST(ProfileInheritance, ParentNameMustMatch) {
  json base = dynamic_profile();
  base["name"] = "other";
  EXPECT_EQ(error_of_text(child_of("base").dump(), {{"base", base.dump()}}),
            "test/base.json: name: 'other' does not match the profile name 'base' it is "
            "inherited as");
}

TEST(ProfileInheritance, InheritsMustBeAPlainName) {
  EXPECT_THAT(error_of_text(child_of("../secret").dump()),
              StartsWith("test/dev.json: inherits: '../secret' is not a profile name"));
  EXPECT_THAT(error_of_text(child_of("").dump()),
              StartsWith("test/dev.json: inherits: '' is not a profile name"));
}

TEST(ProfileInheritance, ErrorsNameTheFileThatWroteTheLeaf) {
  json base = dynamic_profile();
  base["name"] = "base";
  base["memory"]["l1"]["hit_latncy"] = leaf("5 cycles");
  EXPECT_EQ(error_of_text(child_of("base").dump(), {{"base", base.dump()}}),
            "test/base.json: memory.l1.hit_latncy: unknown key; did you mean hit_latency?");
  // A value decoded after the merge still names the parent that wrote it.
  json bad_value = dynamic_profile();
  bad_value["name"] = "base";
  bad_value["gpu"]["clock"] = leaf("1578");
  EXPECT_EQ(error_of_text(child_of("base").dump(), {{"base", bad_value.dump()}}),
            "test/base.json: gpu.clock: expected a frequency (Hz, kHz, MHz, GHz), got '1578'");
  // A missing field is reported against the file being loaded.
  json incomplete = dynamic_profile();
  incomplete["name"] = "base";
  incomplete["gpu"].erase("cores");
  EXPECT_EQ(error_of_text(child_of("base").dump(), {{"base", incomplete.dump()}}),
            "test/dev.json: gpu.cores: missing field");
  // A consistency error points at the file of the leaf it names.
  json child = child_of("base");
  child["gpu"]["schedulers_per_core"] = leaf(2);
  EXPECT_EQ(error_of_text(child.dump(), base_parent()),
            "test/base.json: gpu.alu_lanes_per_core: must equal schedulers_per_core * "
            "simd_width = 2 * 32 = 64, got 128");
}

TEST(ProfileInheritance, MalformedParent) {
  EXPECT_THAT(error_of_text(child_of("base").dump(), {{"base", "{\"name\": "}}),
              StartsWith("test/base.json: line 1, column "));
}

}  // namespace
}  // namespace marlin::model::testing
