// libFuzzer target for the profile loader.
//
// Contract under test: parse_profile either returns a DeviceSpec or throws marlin::InputError,
// for any input text. Any other exception aborts (a finding), as do crashes and sanitizer
// reports. Parents named by "inherits" resolve to the shipped profiles (read once at start
// from MARLIN_FUZZ_PROFILES_DIR); any other name throws InputError like a missing file.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "model/common/input_error.h"
#include "model/device/profile_loader.h"

#ifndef MARLIN_FUZZ_PROFILES_DIR
#error "MARLIN_FUZZ_PROFILES_DIR must name the shipped profiles directory"
#endif

namespace {

std::map<std::string, std::string>& shipped_profiles() {
  static std::map<std::string, std::string> profiles;
  return profiles;
}

std::string read_parent(const std::string& name) {
  const auto it = shipped_profiles().find(name);
  if (it == shipped_profiles().end()) throw marlin::InputError("no profile named " + name);
  return it->second;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  for (const auto& entry : std::filesystem::directory_iterator(MARLIN_FUZZ_PROFILES_DIR)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream stream(entry.path());
    std::ostringstream text;
    text << stream.rdbuf();
    shipped_profiles()[entry.path().stem().string()] = text.str();
  }
  if (shipped_profiles().empty()) {
    std::fprintf(stderr, "profile_fuzz: no profiles in %s\n", MARLIN_FUZZ_PROFILES_DIR);
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    marlin::model::parse_profile(text, "fuzz/input.json", read_parent);
  } catch (const marlin::InputError&) {
    // Rejected with a message: the expected outcome for bad input.
  } catch (const std::exception& error) {
    std::fprintf(stderr, "profile_fuzz: unexpected exception: %s\n", error.what());
    std::abort();
  }
  return 0;
}
