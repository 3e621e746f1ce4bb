// Units parsing: accepted spellings, values in base units, and the rejection messages.
#include "model/device/units.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "model/common/input_error.h"

namespace marlin::model {
namespace {

using ::testing::HasSubstr;

template <typename Parse>
std::string error_of(Parse parse) {
  try {
    parse();
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << "value was accepted";
  return {};
}

TEST(SplitQuantity, SeparatesNumberAndUnit) {
  const Quantity spaced = split_quantity("48 MiB", "a byte size");
  EXPECT_EQ(spaced.number, 48.0);
  EXPECT_EQ(spaced.unit, "MiB");
  const Quantity tight = split_quantity("1e3B", "a byte size");
  EXPECT_EQ(tight.number, 1000.0);
  EXPECT_EQ(tight.unit, "B");
  const Quantity bare = split_quantity(" 7 ", "a count");
  EXPECT_EQ(bare.number, 7.0);
  EXPECT_EQ(bare.unit, "");
  EXPECT_THAT(error_of([] { split_quantity("MiB", "a byte size"); }),
              HasSubstr("expected a byte size starting with a number, got 'MiB'"));
}

TEST(ParseBytes, BinaryAndDecimalPrefixes) {
  EXPECT_EQ(parse_bytes("32 KiB"), 32 * 1024);
  EXPECT_EQ(parse_bytes("32768 B"), 32768);
  EXPECT_EQ(parse_bytes("48 MiB"), std::int64_t{48} * 1024 * 1024);
  EXPECT_EQ(parse_bytes("3 MB"), 3'000'000);  // decimal megabytes
  EXPECT_EQ(parse_bytes("2 kB"), 2000);
  EXPECT_EQ(parse_bytes("2 KB"), 2000);
  EXPECT_EQ(parse_bytes("1 GiB"), std::int64_t{1} << 30);
  EXPECT_EQ(parse_bytes("1.5 KiB"), 1536);  // 1.5 * 1024
  EXPECT_EQ(parse_bytes("32KiB"), 32768);   // the space is optional
  EXPECT_EQ(parse_bytes("  16 B  "), 16);
  EXPECT_EQ(parse_bytes("0 B"), 0);
}

TEST(ParseBytes, Rejections) {
  EXPECT_EQ(error_of([] { parse_bytes("32"); }),
            "expected a byte size (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), got '32'");
  EXPECT_THAT(error_of([] { parse_bytes("32 kib"); }), HasSubstr("got '32 kib'"));
  EXPECT_THAT(error_of([] { parse_bytes("1578 MHz"); }), HasSubstr("expected a byte size"));
  EXPECT_EQ(error_of([] { parse_bytes("0.5 B"); }),
            "byte size '0.5 B' is not a whole number of bytes");
  EXPECT_EQ(error_of([] { parse_bytes("-1 KiB"); }),
            "expected a byte size that is not negative, got '-1 KiB'");
  EXPECT_EQ(error_of([] { parse_bytes("1e30 B"); }),
            "byte size '1e30 B' is too large (at most 2^48 B)");
  EXPECT_THAT(error_of([] { parse_bytes(""); }), HasSubstr("expected a byte size"));
  EXPECT_THAT(error_of([] { parse_bytes("1e999 B"); }), HasSubstr("out of range"));
}

TEST(ParseFrequency, UnitsAndMessage) {
  EXPECT_EQ(parse_frequency_hz("1578 MHz"), 1578.0 * 1e6);
  EXPECT_DOUBLE_EQ(parse_frequency_hz("1.578 GHz"), 1.578e9);
  EXPECT_EQ(parse_frequency_hz("500 kHz"), 500e3);
  EXPECT_EQ(parse_frequency_hz("60 Hz"), 60.0);
  EXPECT_EQ(error_of([] { parse_frequency_hz("546 GB/s"); }),
            "expected a frequency (Hz, kHz, MHz, GHz), got '546 GB/s'");
  EXPECT_EQ(error_of([] { parse_frequency_hz("1578"); }),
            "expected a frequency (Hz, kHz, MHz, GHz), got '1578'");
}

TEST(ParseBandwidth, DecimalAndBinary) {
  EXPECT_EQ(parse_bandwidth("546 GB/s"), 546e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("68.25 GB/s"), 68.25e9);
  EXPECT_EQ(parse_bandwidth("1 GiB/s"), 1073741824.0);
  EXPECT_EQ(parse_bandwidth("10 MB/s"), 10e6);
  EXPECT_THAT(error_of([] { parse_bandwidth("546 GB"); }),
              HasSubstr("expected a bandwidth (B/s, kB/s"));
}

TEST(ParseTime, Units) {
  EXPECT_DOUBLE_EQ(parse_time_s("234 ns"), 234e-9);
  EXPECT_DOUBLE_EQ(parse_time_s("10 us"), 10e-6);
  EXPECT_DOUBLE_EQ(parse_time_s("10 \u00b5s"), 10e-6);
  EXPECT_DOUBLE_EQ(parse_time_s("2 ms"), 2e-3);
  EXPECT_EQ(parse_time_s("1 s"), 1.0);
  EXPECT_EQ(error_of([] { parse_time_s("10 cycles"); }),
            "expected a time (s, ms, us, ns), got '10 cycles'");
}

TEST(ParseCycles, WholeCyclesOnly) {
  EXPECT_EQ(parse_cycles("34 cycles"), 34);
  EXPECT_EQ(parse_cycles("1 cycle"), 1);
  EXPECT_EQ(error_of([] { parse_cycles("2.5 cycles"); }),
            "cycle count '2.5 cycles' is not a whole number of cycles");
  EXPECT_EQ(error_of([] { parse_cycles("34"); }), "expected a cycle count (cycles), got '34'");
  EXPECT_THAT(error_of([] { parse_cycles("2000000 cycles"); }), HasSubstr("too large"));
}

TEST(ParseLatencyCycles, CyclesOrTimeRoundedToNearest) {
  EXPECT_EQ(parse_latency_cycles("6 cycles", 1e9), 6);
  // 234 ns * 1.398 GHz = 327.132 cycles -> 327.
  EXPECT_EQ(parse_latency_cycles("234 ns", 1.398e9), 327);
  // 342 ns * 1.398 GHz = 478.116 cycles -> 478.
  EXPECT_EQ(parse_latency_cycles("342 ns", 1.398e9), 478);
  // Halves round away from zero: 2.5 s at 1 Hz is 2.5 cycles -> 3 (not 2 as in banker's).
  EXPECT_EQ(parse_latency_cycles("2.5 s", 1.0), 3);
  EXPECT_EQ(parse_latency_cycles("0.4 s", 1.0), 0);
  EXPECT_EQ(error_of([] { parse_latency_cycles("5 GB/s", 1e9); }),
            "expected a latency in cycles or a time (cycles, s, ms, us, ns), got '5 GB/s'");
  EXPECT_THAT(error_of([] { parse_latency_cycles("1 s", 1e9); }), HasSubstr("too large"));
}

}  // namespace
}  // namespace marlin::model
