// Checked conversion of command-line values; every failure is an InputError naming the flag.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/analytic/tile.h"

namespace marlin::cli {

// A whole number in [min, max]; "--threads: expected a whole number from 1 to 1024, got 'x'".
std::int64_t parse_integer(const std::string& flag, const std::string& text, std::int64_t min,
                           std::int64_t max);

// The host's cores (at least 1): the default of --host-threads and of the runs that have none.
unsigned host_cores();

// --host-threads: a whole number from 1 to 256, or host_cores() when `text` is empty.
unsigned parse_host_threads(const std::string& text);

// A byte count: plain digits, or a number with a unit ("4608", "4.5 KiB", "32KiB").
std::int64_t parse_byte_count(const std::string& flag, const std::string& text);

// "64x64x32" -> Tile; each dimension a positive multiple of 8.
analytic::Tile parse_tile(const std::string& flag, const std::string& text);

// "a,b,c" -> {"a", "b", "c"}; empty parts are kept (and rejected by whoever parses them).
std::vector<std::string> split_list(const std::string& text);

// "1,16,64" -> {1, 16, 64}, each in [min, max].
std::vector<std::int64_t> parse_integer_list(const std::string& flag, const std::string& text,
                                             std::int64_t min, std::int64_t max);

}  // namespace marlin::cli
