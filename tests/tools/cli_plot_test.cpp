// SVG charts and the verbs' --plot option.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/cli_runner.h"
#include "tools/plot/svg_chart.h"

namespace marlin::cli::testing {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// A minimal well-formedness check: one svg root, every text element closed.
void expect_svg(const std::string& svg) {
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>\n"), std::string::npos);
  EXPECT_EQ(count(svg, "<text"), count(svg, "</text>"));
}

TEST(SvgChart, LogAxisTicksAreDecadesAndTextIsEscaped) {
  plot::LineChart chart{"a < b & c", "x", "y", true, false, {{"s", {{1, 1}, {1000, 2}}, true}}, {}};
  const std::string svg = plot::render_line_chart(chart);
  expect_svg(svg);
  EXPECT_NE(svg.find("a &lt; b &amp; c"), std::string::npos);
  for (const char* tick : {">1<", ">10<", ">100<", ">1000<"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(count(svg, "<polyline"), 1u);
}

TEST(SvgChart, EmptyAndUnplottableDataSayNoData) {
  plot::LineChart chart{"t", "x", "y", true, true, {{"s", {{-1, 5}, {0, 0}}, true}}, {}};
  EXPECT_NE(plot::render_line_chart(chart).find("no data"), std::string::npos);
  EXPECT_NE(plot::render_bar_chart({"t", "y", {}}).find("no data"), std::string::npos);
}

TEST(CliPlot, EachVerbWritesItsPicture) {
  const std::string dir = ::testing::TempDir() + "marlin_plots";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(
      run_cli({"occupancy", "--threads", "128", "--tg-memory", "4608", "--plot", dir}).exit_code,
      0);
  ASSERT_EQ(run_cli({"intensity", "--tile", "32x128x32", "--plot", dir}).exit_code, 0);
  ASSERT_EQ(run_cli({"run", "--kernel", "marlin_gemm_fused_fp4", "--tile", "64x64x32", "--m", "2",
                     "--n", "64", "--k", "64", "--plot", dir})
                .exit_code,
            0);
  ASSERT_EQ(run_cli({"sweep", "--m", "1,4", "--n", "64", "--k", "64", "--tiles", "64x64x32",
                     "--plot", dir})
                .exit_code,
            0);
  const std::string memory = read_file(dir + "/occupancy_tg_memory.svg");
  expect_svg(memory);
  EXPECT_NE(memory.find("128 threads, 4608 B"), std::string::npos);  // the configuration marked
  expect_svg(read_file(dir + "/occupancy_threads.svg"));
  const std::string roofline = read_file(dir + "/roofline.svg");
  expect_svg(roofline);
  EXPECT_NE(roofline.find("simdgroup-matmul peak"), std::string::npos);
  EXPECT_NE(roofline.find(">128x128x16<"), std::string::npos);
  const std::string breakdown = read_file(dir + "/stall_breakdown.svg");
  expect_svg(breakdown);
  EXPECT_EQ(count(breakdown, "<rect x="), 9u);  // one bar per stall state
  const std::string sweep = read_file(dir + "/time_vs_m.svg");
  expect_svg(sweep);
  EXPECT_EQ(count(sweep, "<polyline"), 2u);  // fused and separate at 64x64x32
}

TEST(CliPlot, UnwritableDirectoryIsAnError) {
  const CliResult result =
      run_cli({"occupancy", "--threads", "128", "--plot", "/proc/marlin-no-such-dir"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--plot"), std::string::npos);
}

}  // namespace
}  // namespace marlin::cli::testing
