// load_device and list_devices on files: names versus paths, the profiles directory and its
// environment override, parents found next to the child, and the bad files in data/.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/device/profile_fixture.h"

namespace marlin::model::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::filesystem::path kDataDir = MARLIN_TEST_DATA_DIR;

std::string load_error(const std::string& name_or_path) {
  try {
    load_device(name_or_path);
  } catch (const InputError& error) {
    return error.what();
  }
  ADD_FAILURE() << name_or_path << " was accepted";
  return {};
}

// A temporary profiles directory holding base.json (the dynamic fixture) and child.json.
class ProfileDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("marlin_profiles_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
    json base = dynamic_profile();
    base["name"] = "base";
    write("base.json", base.dump(2));
    json child = {{"name", "child"}, {"description", "child test device"}, {"inherits", "base"}};
    child["gpu"]["cores"] = leaf(12);
    write("child.json", child.dump(2));
    write("notes.txt", "not a profile");
    setenv("MARLIN_PROFILES_DIR", directory_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("MARLIN_PROFILES_DIR");
    std::filesystem::remove_all(directory_);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(directory_ / name) << text;
  }
  std::filesystem::path directory_;
};

TEST_F(ProfileDirectory, EnvironmentOverridesTheDirectory) {
  EXPECT_EQ(profiles_dir(), directory_);
  EXPECT_EQ(list_devices(), (std::vector<std::string>{"base", "child"}));
}

TEST_F(ProfileDirectory, LoadByNameResolvesTheParent) {
  const DeviceSpec spec = load_device("child");
  EXPECT_EQ(spec.gpu.cores, 12);
  EXPECT_EQ(spec.gpu.clock_hz, 1e9);
  EXPECT_EQ(spec.file, (directory_ / "child.json").string());
}

TEST_F(ProfileDirectory, LoadByPath) {
  const std::string path = (directory_ / "child.json").string();
  EXPECT_EQ(load_device(path).gpu.cores, 12);
}

TEST_F(ProfileDirectory, UnknownNameListsTheAvailableOnes) {
  EXPECT_EQ(load_error("m9"), "unknown device 'm9'; available: base, child (profiles in " +
                                  directory_.string() + ")");
}

TEST_F(ProfileDirectory, MissingPathAndDirectory) {
  EXPECT_THAT(load_error((directory_ / "absent.json").string()),
              HasSubstr("absent.json: cannot open the profile file"));
  EXPECT_THAT(load_error(directory_.string() + "/"), HasSubstr("is a directory"));
}

TEST(ProfileFiles, EmptyEnvironmentFallsBackToTheBuiltInDirectory) {
  setenv("MARLIN_PROFILES_DIR", "", 1);
  EXPECT_EQ(profiles_dir(), std::filesystem::path(MARLIN_SOURCE_DIR) / "profiles");
  unsetenv("MARLIN_PROFILES_DIR");
}

TEST(ProfileFiles, MissingDirectoryListsNothing) {
  setenv("MARLIN_PROFILES_DIR", "/nonexistent/marlin/profiles", 1);
  EXPECT_TRUE(list_devices().empty());
  EXPECT_EQ(load_error("m4max"),
            "unknown device 'm4max'; available: none (profiles in /nonexistent/marlin/profiles)");
  unsetenv("MARLIN_PROFILES_DIR");
}

TEST(ProfileFiles, MalformedFile) {
  const std::string path = (kDataDir / "malformed.json").string();
  EXPECT_THAT(load_error(path), StartsWith(path + ": line 4, column 1: malformed JSON: "));
}

TEST(ProfileFiles, MisspeltKey) {
  const std::string path = (kDataDir / "typo.json").string();
  EXPECT_EQ(load_error(path), path +
                                  ": memory.l1.hit_latncy: unknown key; did you mean "
                                  "hit_latency?");
}

TEST(ProfileFiles, CycleAcrossFiles) {
  const std::string path = (kDataDir / "cycle" / "a.json").string();
  EXPECT_EQ(load_error(path), (kDataDir / "cycle" / "b.json").string() +
                                  ": inherits: inheritance cycle: a -> b -> a");
}

TEST(ProfileFiles, MissingParentFile) {
  const std::string path = (kDataDir / "orphan.json").string();
  EXPECT_EQ(load_error(path), path + ": inherits: cannot read parent profile 'nowhere': no file " +
                                  (kDataDir / "nowhere.json").string());
}

}  // namespace
}  // namespace marlin::model::testing
