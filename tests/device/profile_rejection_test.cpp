// Every rejection of the profile loader: each test breaks one thing in a valid profile and
// checks that the message names the file, the JSON path and the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/device/profile_fixture.h"

namespace marlin::model::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ProfileFixture, BothFixturesAreValid) {
  EXPECT_NO_THROW(parse_json(dynamic_profile()));
  EXPECT_NO_THROW(parse_json(static_profile()));
}

// ---- unknown keys ----

TEST(ProfileRejection, UnknownKeySuggestsTheClosest) {
  json profile = dynamic_profile();
  profile["memory"]["l1"]["hit_latncy"] = profile["memory"]["l1"]["hit_latency"];
  EXPECT_EQ(error_of(profile),
            "test/dev.json: memory.l1.hit_latncy: unknown key; did you mean hit_latency?");
}

TEST(ProfileRejection, UnknownTopLevelKeyListsTheKnownOnes) {
  json profile = dynamic_profile();
  profile["extras"] = json::object();
  EXPECT_EQ(error_of(profile),
            "test/dev.json: extras: unknown key; expected one of name, description, inherits, "
            "gpu, limits, occupancy, pipes, threadgroup_memory, memory, dispatch");
}

TEST(ProfileRejection, UnknownKeyInsideALeaf) {
  json profile = dynamic_profile();
  profile["gpu"]["cores"]["sauce"] = "x";
  EXPECT_EQ(error_of(profile), "test/dev.json: gpu.cores.sauce: unknown key; did you mean source?");
}

TEST(ProfileRejection, UnknownPipe) {
  json profile = dynamic_profile();
  profile["pipes"]["fp64_fma"] = pipe("1 cycle", "3 cycles");
  EXPECT_EQ(error_of(profile),
            "test/dev.json: pipes.fp64_fma: unknown key; did you mean fp16_fma?");
}

// ---- missing fields ----

TEST(ProfileRejection, MissingField) {
  json profile = dynamic_profile();
  profile["gpu"].erase("cores");
  EXPECT_EQ(error_of(profile), "test/dev.json: gpu.cores: missing field");
}

TEST(ProfileRejection, MissingSection) {
  json profile = dynamic_profile();
  profile.erase("pipes");
  EXPECT_EQ(error_of(profile), "test/dev.json: pipes: missing section");
  json no_l2 = dynamic_profile();
  no_l2["memory"].erase("l2");
  EXPECT_EQ(error_of(no_l2), "test/dev.json: memory.l2: missing section");
}

TEST(ProfileRejection, MissingNameOrDescription) {
  json profile = dynamic_profile();
  profile.erase("name");
  EXPECT_EQ(error_of(profile), "test/dev.json: name: missing field");
  json empty_name = dynamic_profile();
  empty_name["name"] = "";
  EXPECT_EQ(error_of(empty_name), "test/dev.json: name: must not be empty");
  json no_description = dynamic_profile();
  no_description.erase("description");
  EXPECT_EQ(error_of(no_description), "test/dev.json: description: missing field");
}

TEST(ProfileRejection, MissingLeafParts) {
  json profile = dynamic_profile();
  profile["gpu"]["cores"].erase("value");
  EXPECT_EQ(error_of(profile), "test/dev.json: gpu.cores.value: missing field");
  json no_source = dynamic_profile();
  no_source["gpu"]["cores"].erase("source");
  EXPECT_EQ(error_of(no_source), "test/dev.json: gpu.cores.source: missing field");
  json blank_source = dynamic_profile();
  blank_source["gpu"]["cores"]["source"] = "  ";
  EXPECT_EQ(error_of(blank_source),
            "test/dev.json: gpu.cores.source: must name where the value comes from");
  json no_kind = dynamic_profile();
  no_kind["gpu"]["cores"].erase("kind");
  EXPECT_EQ(error_of(no_kind), "test/dev.json: gpu.cores.kind: missing field");
}

TEST(ProfileRejection, UnknownKind) {
  json profile = dynamic_profile();
  profile["gpu"]["cores"]["kind"] = "guess";
  EXPECT_EQ(error_of(profile),
            "test/dev.json: gpu.cores.kind: unknown source kind 'guess'; expected one of vendor, "
            "measured, reverse-engineered, estimate, calibrated");
}

// ---- wrong JSON types ----

TEST(ProfileRejection, WrongJsonTypes) {
  json string_count = dynamic_profile();
  string_count["gpu"]["cores"] = leaf("40");
  EXPECT_EQ(error_of(string_count),
            "test/dev.json: gpu.cores: expected a plain number, got a string '40'");
  json bare_leaf = dynamic_profile();
  bare_leaf["gpu"]["cores"] = 40;
  EXPECT_THAT(error_of(bare_leaf),
              StartsWith("test/dev.json: gpu.cores: expected an object {\"value\": ..."));
  json number_clock = dynamic_profile();
  number_clock["gpu"]["clock"] = leaf(1578);
  EXPECT_EQ(error_of(number_clock),
            "test/dev.json: gpu.clock: expected a string with a unit such as \"1578 MHz\", got "
            "number");
  json array_section = dynamic_profile();
  array_section["gpu"] = json::array();
  EXPECT_EQ(error_of(array_section),
            "test/dev.json: gpu: expected an object (a section), got array");
  json numeric_source = dynamic_profile();
  numeric_source["gpu"]["cores"]["source"] = 7;
  EXPECT_EQ(error_of(numeric_source),
            "test/dev.json: gpu.cores.source: expected a string, got number");
  json numeric_family = dynamic_profile();
  numeric_family["gpu"]["family"] = leaf(9);
  EXPECT_EQ(error_of(numeric_family),
            "test/dev.json: gpu.family: expected a name (string), got number");
  json fractional = dynamic_profile();
  fractional["gpu"]["cores"] = leaf(2.5);
  EXPECT_EQ(error_of(fractional), "test/dev.json: gpu.cores: expected a whole number, got 2.5");
  json whole_float = dynamic_profile();
  whole_float["gpu"]["cores"] = leaf(10.0);
  EXPECT_EQ(parse_json(whole_float).gpu.cores, 10);
  json top_array = json::array();
  EXPECT_EQ(error_of(top_array), "test/dev.json: (top level): expected a JSON object, got array");
}

// ---- units ----

TEST(ProfileRejection, WrongUnit) {
  json profile = dynamic_profile();
  profile["gpu"]["clock"] = leaf("546 GB/s");
  EXPECT_EQ(error_of(profile),
            "test/dev.json: gpu.clock: expected a frequency (Hz, kHz, MHz, GHz), got '546 GB/s'");
  json missing_unit = dynamic_profile();
  missing_unit["limits"]["max_threadgroup_memory"] = leaf("32768");
  EXPECT_EQ(error_of(missing_unit),
            "test/dev.json: limits.max_threadgroup_memory: expected a byte size (B, kB, MB, GB, "
            "TB, KiB, MiB, GiB, TiB), got '32768'");
  json time_in_cycles = dynamic_profile();
  time_in_cycles["pipes"]["rsqrt"]["throughput"] = leaf("8 ns");
  EXPECT_EQ(error_of(time_in_cycles),
            "test/dev.json: pipes.rsqrt.throughput: expected a cycle count (cycles), got '8 ns'");
  json bandwidth = dynamic_profile();
  bandwidth["memory"]["dram_bandwidth"] = leaf("546 GHz");
  EXPECT_THAT(error_of(bandwidth),
              StartsWith("test/dev.json: memory.dram_bandwidth: expected a bandwidth"));
  json latency = dynamic_profile();
  latency["memory"]["dram_latency"] = leaf("500 MB");
  EXPECT_THAT(error_of(latency), StartsWith("test/dev.json: memory.dram_latency: expected a "
                                            "latency in cycles or a time"));
}

// ---- ranges ----

TEST(ProfileRejection, ZeroAndNegative) {
  json zero_cores = dynamic_profile();
  zero_cores["gpu"]["cores"] = leaf(0);
  EXPECT_EQ(error_of(zero_cores), "test/dev.json: gpu.cores: must be positive, got 0");
  json negative = dynamic_profile();
  negative["limits"]["max_threads_per_core"] = leaf(-3);
  EXPECT_EQ(error_of(negative),
            "test/dev.json: limits.max_threads_per_core: must be positive, got -3");
  json zero_clock = dynamic_profile();
  zero_clock["gpu"]["clock"] = leaf("0 MHz");
  EXPECT_EQ(error_of(zero_clock), "test/dev.json: gpu.clock: must be positive, got '0 MHz'");
  json negative_clock = dynamic_profile();
  negative_clock["gpu"]["clock"] = leaf("-1 GHz");
  EXPECT_EQ(error_of(negative_clock),
            "test/dev.json: gpu.clock: expected a frequency that is not negative, got '-1 GHz'");
  json zero_bytes = dynamic_profile();
  zero_bytes["memory"]["l1"]["size"] = leaf("0 KiB");
  EXPECT_EQ(error_of(zero_bytes), "test/dev.json: memory.l1.size: must be positive, got 0");
  json zero_cycles = dynamic_profile();
  zero_cycles["pipes"]["shuffle"]["latency"] = leaf("0 cycles");
  EXPECT_EQ(error_of(zero_cycles), "test/dev.json: pipes.shuffle.latency: must be positive, got 0");
  // 0.4 ns at 1 GHz rounds to 0 cycles, which is not a usable latency.
  json rounds_to_zero = dynamic_profile();
  rounds_to_zero["memory"]["l1"]["hit_latency"] = leaf("0.4 ns");
  EXPECT_EQ(error_of(rounds_to_zero),
            "test/dev.json: memory.l1.hit_latency: must be positive, got 0");
  json zero_real = dynamic_profile();
  zero_real["memory"]["core_to_l2_bytes_per_cycle"] = leaf(0);
  EXPECT_EQ(error_of(zero_real),
            "test/dev.json: memory.core_to_l2_bytes_per_cycle: must be positive, got 0");
  json too_large = dynamic_profile();
  too_large["gpu"]["cores"] = leaf(1e12);
  EXPECT_EQ(error_of(too_large), "test/dev.json: gpu.cores: is too large (at most 1048576)");
  json huge_unsigned = dynamic_profile();
  huge_unsigned["gpu"]["cores"] = leaf(18446744073709551615ULL);
  EXPECT_EQ(error_of(huge_unsigned), "test/dev.json: gpu.cores: is too large (at most 1048576)");
}

TEST(ProfileRejection, ByteSizeTooLargeForItsField) {
  json profile = dynamic_profile();
  profile["threadgroup_memory"]["bank_width"] = leaf("1 TiB");
  EXPECT_EQ(error_of(profile),
            "test/dev.json: threadgroup_memory.bank_width: is too large (at most 2147483647)");
}

TEST(ProfileRejection, ZeroCacheReserveIsAllowed) {
  json profile = dynamic_profile();
  profile["occupancy"]["cache_reserve"] = leaf("0 B");
  EXPECT_EQ(parse_json(profile).occupancy.cache_reserve_bytes, 0);
}

TEST(ProfileRejection, UnknownEnumerationNames) {
  json family = dynamic_profile();
  family["gpu"]["family"] = leaf("apple10");
  EXPECT_EQ(error_of(family),
            "test/dev.json: gpu.family: unknown GPU family 'apple10'; expected one of apple7, "
            "apple8, apple9");
  json rule = dynamic_profile();
  rule["occupancy"]["rule"] = leaf("dynamic");
  EXPECT_EQ(error_of(rule),
            "test/dev.json: occupancy.rule: unknown occupancy rule 'dynamic'; expected one of "
            "static, dynamic_caching");
  json bank_rule = dynamic_profile();
  bank_rule["threadgroup_memory"]["bank_rule"] = leaf("xor");
  EXPECT_THAT(error_of(bank_rule),
              StartsWith("test/dev.json: threadgroup_memory.bank_rule: unknown bank rule 'xor'"));
}

// ---- consistency ----

TEST(ProfileRejection, AluLanesMustMatchSchedulersTimesWidth) {
  json profile = dynamic_profile();
  profile["gpu"]["alu_lanes_per_core"] = leaf(96);
  EXPECT_EQ(error_of(profile),
            "test/dev.json: gpu.alu_lanes_per_core: must equal schedulers_per_core * simd_width "
            "= 4 * 32 = 128, got 96");
}

TEST(ProfileRejection, SimdgroupsTimesWidthMustMatchThreads) {
  json profile = dynamic_profile();
  profile["limits"]["max_simdgroups_per_core"] = leaf(60);
  EXPECT_EQ(error_of(profile),
            "test/dev.json: limits.max_simdgroups_per_core: max_simdgroups_per_core * simd_width "
            "= 60 * 32 = 1920 must equal max_threads_per_core = 2048");
}

TEST(ProfileRejection, ThreadgroupLimitsAgainstCoreLimits) {
  json over = dynamic_profile();
  over["limits"]["max_threads_per_threadgroup"] = leaf(4096);
  EXPECT_EQ(error_of(over),
            "test/dev.json: limits.max_threads_per_threadgroup: 4096 is above "
            "limits.max_threads_per_core = 2048");
  json ragged = dynamic_profile();
  ragged["limits"]["max_threads_per_threadgroup"] = leaf(1000);
  EXPECT_EQ(error_of(ragged),
            "test/dev.json: limits.max_threads_per_threadgroup: 1000 is not a multiple of "
            "gpu.simd_width = 32");
  json groups = dynamic_profile();
  groups["limits"]["max_threadgroups_per_core"] = leaf(65);
  EXPECT_THAT(error_of(groups),
              StartsWith("test/dev.json: limits.max_threadgroups_per_core: 65 is above "
                         "limits.max_simdgroups_per_core = 64"));
  json registers = dynamic_profile();
  registers["occupancy"]["assumed_registers_per_thread"] = leaf(129);
  EXPECT_EQ(error_of(registers),
            "test/dev.json: occupancy.assumed_registers_per_thread: 129 is above "
            "limits.max_registers_per_thread = 128");
}

TEST(ProfileRejection, AlignmentAndThreadgroupMemoryMultiple) {
  json alignment = dynamic_profile();
  alignment["limits"]["threadgroup_memory_alignment"] = leaf("24 B");
  EXPECT_EQ(error_of(alignment),
            "test/dev.json: limits.threadgroup_memory_alignment: 24 B is not a power of two");
  json ragged = dynamic_profile();
  ragged["limits"]["max_threadgroup_memory"] = leaf("32767 B");
  EXPECT_EQ(error_of(ragged),
            "test/dev.json: limits.max_threadgroup_memory: 32767 B is not a multiple of "
            "limits.threadgroup_memory_alignment = 16 B");
}

TEST(ProfileRejection, ThreadgroupMemoryAbovePoolStatic) {
  json profile = static_profile();
  profile["limits"]["max_threadgroup_memory"] = leaf("64 KiB");
  // 64 KiB = 65536 B against 48 KiB = 49152 B.
  EXPECT_EQ(error_of(profile),
            "test/dev.json: limits.max_threadgroup_memory: 65536 B per threadgroup is above the "
            "per-core pool occupancy.threadgroup_memory_per_core = 49152 B");
}

TEST(ProfileRejection, ThreadgroupMemoryAbovePoolDynamic) {
  json profile = dynamic_profile();
  profile["occupancy"]["onchip_pool_per_core"] = leaf("40 KiB");
  // Usable pool: 40 KiB - 16 KiB = 24 KiB = 24576 B < 32768 B.
  EXPECT_EQ(error_of(profile),
            "test/dev.json: limits.max_threadgroup_memory: 32768 B per threadgroup is above the "
            "per-core pool occupancy.onchip_pool_per_core - occupancy.cache_reserve = 24576 B");
  json exactly = dynamic_profile();
  exactly["occupancy"]["onchip_pool_per_core"] = leaf("48 KiB");  // 48 - 16 = 32 KiB: fits
  EXPECT_NO_THROW(parse_json(exactly));
}

TEST(ProfileRejection, DynamicRuleKnobs) {
  json reserve = dynamic_profile();
  reserve["occupancy"]["cache_reserve"] = leaf("128 KiB");
  EXPECT_EQ(error_of(reserve),
            "test/dev.json: occupancy.cache_reserve: 131072 B leaves nothing of "
            "occupancy.onchip_pool_per_core = 131072 B");
  json residency = dynamic_profile();
  residency["occupancy"]["register_residency"] = leaf(1.5);
  EXPECT_EQ(error_of(residency),
            "test/dev.json: occupancy.register_residency: must be in (0, 1], got 1.5");
  json granule = dynamic_profile();
  granule["occupancy"]["threadgroup_memory_granule"] = leaf("48 B");
  EXPECT_EQ(error_of(granule),
            "test/dev.json: occupancy.threadgroup_memory_granule: 48 B is not a power of two");
}

TEST(ProfileRejection, FamilyAndRuleMustAgree) {
  json apple9_static = static_profile();
  apple9_static["gpu"]["family"] = leaf("apple9");
  EXPECT_EQ(error_of(apple9_static),
            "test/dev.json: occupancy.rule: the apple9 family uses the dynamic_caching rule "
            "(gpu.family is apple9), got static");
  json apple8_dynamic = dynamic_profile();
  apple8_dynamic["gpu"]["family"] = leaf("apple8");
  EXPECT_EQ(error_of(apple8_dynamic),
            "test/dev.json: occupancy.rule: the apple8 family uses the static rule (gpu.family "
            "is apple8), got dynamic_caching");
}

TEST(ProfileRejection, FieldsOfTheOtherRule) {
  json dynamic_with_table = dynamic_profile();
  dynamic_with_table["occupancy"]["register_table"] =
      static_profile()["occupancy"]["register_table"];
  EXPECT_EQ(error_of(dynamic_with_table),
            "test/dev.json: occupancy.register_table: only used by the static occupancy rule, but "
            "occupancy.rule is dynamic_caching");
  json static_without_table = static_profile();
  static_without_table["occupancy"].erase("register_table");
  EXPECT_EQ(error_of(static_without_table),
            "test/dev.json: occupancy.register_table: missing field");
}

// ---- register table ----

json with_table(const json& table) {
  json profile = static_profile();
  profile["occupancy"]["register_table"] = leaf(table, "reverse-engineered");
  return profile;
}

TEST(ProfileRejection, RegisterTableMustAscend) {
  const json table = json::array({json{{"max_registers", 64}, {"max_threads", 512}},
                                  json{{"max_registers", 32}, {"max_threads", 512}},
                                  json{{"max_registers", 128}, {"max_threads", 256}}});
  EXPECT_EQ(error_of(with_table(table)),
            "test/dev.json: occupancy.register_table[1].max_registers: rows must be in ascending "
            "max_registers: 32 after 64");
}

TEST(ProfileRejection, RegisterTableThreadsMustNotGrow) {
  const json table = json::array({json{{"max_registers", 32}, {"max_threads", 512}},
                                  json{{"max_registers", 64}, {"max_threads", 1024}},
                                  json{{"max_registers", 128}, {"max_threads", 256}}});
  EXPECT_THAT(error_of(with_table(table)),
              StartsWith("test/dev.json: occupancy.register_table[1].max_threads: more registers "
                         "cannot allow more threads"));
}

TEST(ProfileRejection, RegisterTableMustCoverMaxRegisters) {
  const json table = json::array({json{{"max_registers", 32}, {"max_threads", 1024}},
                                  json{{"max_registers", 64}, {"max_threads", 512}}});
  EXPECT_EQ(error_of(with_table(table)),
            "test/dev.json: occupancy.register_table: the last row covers 64 registers but "
            "limits.max_registers_per_thread is 128");
}

TEST(ProfileRejection, RegisterTableRowAboveRegisterFile) {
  // 1024 threads * 64 registers * 4 B = 262144 B > 128 KiB = 131072 B.
  const json table = json::array({json{{"max_registers", 64}, {"max_threads", 1024}},
                                  json{{"max_registers", 128}, {"max_threads", 256}}});
  EXPECT_EQ(error_of(with_table(table)),
            "test/dev.json: occupancy.register_table[0]: 1024 threads * 64 registers * 4 B = "
            "262144 B is above occupancy.register_file_per_core = 131072 B");
}

TEST(ProfileRejection, RegisterTableShape) {
  EXPECT_THAT(error_of(with_table(json::object())),
              StartsWith("test/dev.json: occupancy.register_table: expected an array"));
  EXPECT_EQ(error_of(with_table(json::array())),
            "test/dev.json: occupancy.register_table: must have at least one row");
  const json typo = json::array({json{{"max_register", 128}, {"max_threads", 256}}});
  EXPECT_EQ(error_of(with_table(typo)),
            "test/dev.json: occupancy.register_table[0].max_register: unknown key; did you mean "
            "max_registers?");
  const json missing = json::array({json{{"max_registers", 128}}});
  EXPECT_EQ(error_of(with_table(missing)),
            "test/dev.json: occupancy.register_table[0].max_threads: missing field");
  const json zero = json::array({json{{"max_registers", 128}, {"max_threads", 0}}});
  EXPECT_EQ(error_of(with_table(zero)),
            "test/dev.json: occupancy.register_table[0].max_threads: must be positive, got 0");
  const json ragged = json::array({json{{"max_registers", 128}, {"max_threads", 250}}});
  EXPECT_EQ(error_of(with_table(ragged)),
            "test/dev.json: occupancy.register_table[0].max_threads: 250 is not a multiple of "
            "gpu.simd_width = 32");
}

// ---- memory ----

TEST(ProfileRejection, CacheGeometry) {
  json line = dynamic_profile();
  line["memory"]["l2"]["line"] = leaf("96 B");
  EXPECT_EQ(error_of(line), "test/dev.json: memory.l2.line: 96 B is not a power of two");
  json sets = dynamic_profile();
  sets["memory"]["slc"]["size"] = leaf("3 MB");  // 3,000,000 B is not a multiple of 16 * 128
  EXPECT_EQ(error_of(sets),
            "test/dev.json: memory.slc.size: 3000000 B is not a whole number of sets of 16 ways "
            "* 128 B lines");
  json tiny = dynamic_profile();
  tiny["memory"]["l1"]["size"] = leaf("32 B");  // smaller than one line
  EXPECT_THAT(error_of(tiny), StartsWith("test/dev.json: memory.l1.size: 32 B is not a whole"));
}

TEST(ProfileRejection, HugeCacheGeometryDoesNotOverflow) {
  // 2^30 B lines * 2^18 ways = 2^48 B: one set, exactly the size (needs 64-bit arithmetic).
  json profile = dynamic_profile();
  profile["memory"]["slc"]["size"] = leaf("256 TiB");
  profile["memory"]["slc"]["line"] = leaf("1 GiB");
  profile["memory"]["slc"]["associativity"] = leaf(262144);
  EXPECT_EQ(parse_json(profile).memory.slc.size_bytes, std::int64_t{1} << 48);
}

TEST(ProfileRejection, LatenciesMustGrowOutward) {
  json profile = dynamic_profile();
  profile["memory"]["l2"]["hit_latency"] = leaf("40 cycles");  // L1 is 50 cycles
  EXPECT_EQ(error_of(profile),
            "test/dev.json: memory.l2.hit_latency: 40 cycles must be above "
            "memory.l1.hit_latency = 50 cycles (a farther level cannot be faster)");
  json dram = dynamic_profile();
  dram["memory"]["dram_latency"] = leaf("300 ns");  // equal to the SLC hit
  EXPECT_THAT(error_of(dram), StartsWith("test/dev.json: memory.dram_latency: 300 cycles must be "
                                         "above memory.slc.hit_latency = 300 cycles"));
}

TEST(ProfileRejection, BankWidthPowerOfTwo) {
  json profile = dynamic_profile();
  profile["threadgroup_memory"]["bank_width"] = leaf("6 B");
  EXPECT_EQ(error_of(profile),
            "test/dev.json: threadgroup_memory.bank_width: 6 B is not a power of two");
}

// ---- malformed JSON ----

TEST(ProfileRejection, MalformedJsonNamesLineAndColumn) {
  const std::string text = "{\n  \"name\": \"dev\",\n  \"gpu\": {,\n}\n";
  const std::string message = error_of_text(text);
  EXPECT_THAT(message, StartsWith("test/dev.json: line 3, column 11: malformed JSON: "));
}

TEST(ProfileRejection, DuplicateKey) {
  const std::string text = R"({"name": "dev", "gpu": {"cores": {}, "cores": {}}})";
  EXPECT_EQ(error_of_text(text), "test/dev.json: gpu.cores: duplicate key");
}

TEST(ProfileRejection, DeepNesting) {
  const std::string text = std::string(100, '[') + std::string(100, ']');
  EXPECT_THAT(error_of_text(text), HasSubstr("JSON nested deeper than 32 levels"));
}

TEST(ProfileRejection, EmptyAndGarbage) {
  EXPECT_THAT(error_of_text(""), StartsWith("test/dev.json: line 1, column 1: malformed JSON"));
  EXPECT_THAT(error_of_text("{\"name\": \"a\nb\"}"), StartsWith("test/dev.json: line "));
  EXPECT_THAT(error_of_text("{} trailing"), HasSubstr("malformed JSON"));
}

TEST(ProfileRejection, ControlCharactersAreEscapedInMessages) {
  json profile = dynamic_profile();
  profile["gpu"]["co\nres"] = leaf(1);
  const std::string message = error_of(profile);
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_THAT(message, HasSubstr("gpu.co\\x0ares: unknown key"));
}

}  // namespace
}  // namespace marlin::model::testing
