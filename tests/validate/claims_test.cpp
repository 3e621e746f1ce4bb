// Tests of the claims file format: the shipped file loads, covers the three documents, and every
// claim names a known method; malformed files are rejected with the claim id in the message.
#include "tools/validate/claims.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "model/common/input_error.h"
#include "tools/validate/methods.h"

namespace marlin::validate {
namespace {

std::string one_claim(const std::string& check, const std::string& extra = "") {
  return R"({"format": 1, "claims": [{"id": "doc/1/x", "document": "d.md", "section": "1",
    "quote": "q", "claimed": 1, "unit": "B", "device_dependent": false, )" +
         extra + R"("check": )" + check + "}]}";
}

// The message of the InputError `text` raises, or "" when it loads.
std::string load_error(const std::string& text) {
  try {
    parse_claims(text, "test.json");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

TEST(ClaimsFile, ShippedFileLoadsAndCoversTheThreeDocuments) {
  const ClaimSet set = load_claims(default_claims_file());
  EXPECT_GT(set.claims.size(), 300U);
  std::set<std::string> documents;
  const std::vector<std::string> methods = method_names();
  for (const Claim& claim : set.claims) {
    documents.insert(claim.document);
    EXPECT_FALSE(claim.quote.empty()) << claim.id;
    EXPECT_FALSE(claim.section.empty()) << claim.id;
    EXPECT_NE(std::find(methods.begin(), methods.end(), claim.method), methods.end()) << claim.id;
    EXPECT_EQ(claim.id.rfind(claim.document.substr(0, 5), 0), 0U) << claim.id;
  }
  EXPECT_EQ(documents, (std::set<std::string>{"tile-sizing-m4max.md", "architecture.md",
                                              "stripe-partitioning.md"}));
}

TEST(ClaimsFile, ParsesValuesRangesTolerancesAndComparisons) {
  const ClaimSet set = parse_claims(
      R"({"format": 1, "claims": [
      {"id": "a", "document": "d.md", "section": "1", "quote": "q", "claimed": 51.2,
       "unit": "FLOP/B", "device_dependent": false, "tolerance": {"abs": 0.05},
       "check": {"method": "arithmetic", "expression": "1"}},
      {"id": "b", "document": "d.md", "section": "1", "quote": "q", "claimed": {"min": 4, "max": 8},
       "unit": "TGs", "device_dependent": true, "compare": "at_most",
       "check": {"method": "simulation", "what": "w"}},
      {"id": "c", "document": "d.md", "section": "1", "quote": "q", "claimed": "0 or 16",
       "unit": "text", "device_dependent": false,
       "check": {"method": "not_checkable", "reason": "r"}}]})",
      "t.json");
  ASSERT_EQ(set.claims.size(), 3U);
  EXPECT_DOUBLE_EQ(std::get<double>(set.claims[0].claimed), 51.2);
  EXPECT_DOUBLE_EQ(set.claims[0].tolerance.absolute, 0.05);
  EXPECT_EQ(std::get<ClaimedRange>(set.claims[1].claimed).max, 8);
  EXPECT_EQ(set.claims[1].compare, Comparison::kAtMost);
  EXPECT_TRUE(set.claims[1].device_dependent);
  EXPECT_EQ(claimed_text(set.claims[2].claimed), "0 or 16");
  EXPECT_EQ(claimed_text(set.claims[1].claimed), "4-8");
}

TEST(ClaimsFile, UnknownMethodNamesTheClaim) {
  const std::string message = load_error(one_claim(R"({"method": "budget_totl"})"));
  EXPECT_NE(message.find("doc/1/x"), std::string::npos) << message;
  EXPECT_NE(message.find("budget_totl"), std::string::npos) << message;
}

TEST(ClaimsFile, MissingParameterNamesTheClaimAndParameter) {
  const std::string message =
      load_error(one_claim(R"({"method": "budget", "tile": "64x64x32", "variant": "fused"})"));
  EXPECT_NE(message.find("doc/1/x"), std::string::npos) << message;
  EXPECT_NE(message.find("part"), std::string::npos) << message;
}

TEST(ClaimsFile, UnknownOrMistypedParameterIsRejected) {
  EXPECT_NE(load_error(one_claim(R"({"method": "mma_op", "quantity": "flops", "tiles": 1})"))
                .find("doc/1/x"),
            std::string::npos);
  EXPECT_NE(load_error(one_claim(R"({"method": "mma_calls", "m": "16", "n": 16, "k": 16})"))
                .find("mma_calls.m"),
            std::string::npos);
}

TEST(ClaimsFile, StructuralErrorsAreRejected) {
  EXPECT_NE(load_error("{not json").find("test.json"), std::string::npos);
  EXPECT_FALSE(load_error(R"({"format": 2, "claims": []})").empty());
  EXPECT_FALSE(load_error(R"({"format": 1})").empty());
  // Missing quote, unknown key, bad tolerance, bad compare, bad range: all name the claim.
  const std::string base = R"({"method": "mma_op", "quantity": "flops"})";
  std::string no_quote = one_claim(base);
  no_quote.replace(no_quote.find(R"("quote": "q", )"), 14, "");
  EXPECT_NE(load_error(no_quote).find("doc/1/x"), std::string::npos);
  EXPECT_NE(load_error(one_claim(base, R"("colour": 1, )")).find("colour"), std::string::npos);
  EXPECT_NE(load_error(one_claim(base, R"("tolerance": {"abs": -1}, )")).find("doc/1/x"),
            std::string::npos);
  EXPECT_NE(load_error(one_claim(base, R"("compare": "about", )")).find("doc/1/x"),
            std::string::npos);
  std::string bad_range = one_claim(base);
  bad_range.replace(bad_range.find(R"("claimed": 1)"), 12, R"("claimed": {"min": 5, "max": 1})");
  EXPECT_NE(load_error(bad_range).find("doc/1/x"), std::string::npos);
}

TEST(ClaimsFile, DuplicateIdsAreRejected) {
  const std::string claim = R"({"id": "dup", "document": "d.md", "section": "1", "quote": "q",
    "claimed": 1, "unit": "B", "device_dependent": false,
    "check": {"method": "mma_op", "quantity": "flops"}})";
  const std::string message =
      load_error(R"({"format": 1, "claims": [)" + claim + "," + claim + "]}");
  EXPECT_NE(message.find("dup"), std::string::npos);
  EXPECT_NE(message.find("duplicate"), std::string::npos);
}

TEST(ClaimsFile, UnitScales) {
  EXPECT_DOUBLE_EQ(unit_scale("KiB"), 1024.0);
  EXPECT_DOUBLE_EQ(unit_scale("TFLOP/s"), 1e12);
  EXPECT_DOUBLE_EQ(unit_scale("GB/s"), 1e9);
  EXPECT_DOUBLE_EQ(unit_scale("TGs"), 1.0);
  EXPECT_EQ(format_number(16384), "16384");
  EXPECT_EQ(format_number(25.6), "25.6");
}

}  // namespace
}  // namespace marlin::validate
