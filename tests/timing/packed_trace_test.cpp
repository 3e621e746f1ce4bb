// PackedTrace and PackedTraceReader: packing gives back every trace exactly, a reader holds
// the window of ops and accesses its contract names, main loops pack to a small fraction of
// their size, and traces the format cannot hold are left unpacked.
#include "model/timing/packed_trace.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <variant>
#include <vector>

#include "model/timing/trace_check.h"
#include "sim/runtime/trace_budget.h"
#include "tests/timing/replay_differential.h"

namespace marlin::timing {
namespace {

std::optional<PackedTrace> pack(const sim::SimdgroupTrace& sg) {
  const auto checked = check_simdgroup_trace(sg);
  EXPECT_TRUE(std::holds_alternative<std::size_t>(checked));
  return pack_trace(sg, std::get<std::size_t>(checked));
}

// Reads `packed` as the replay does (fill() once the op after pc is not unpacked yet) and
// checks at every pc the ops it must hold, back to pc - reach + 1, and pc's accesses.
void expect_window_holds(const PackedTrace& packed, const sim::SimdgroupTrace& sg) {
  PackedTraceReader reader;
  reader.start(packed);
  const auto n = static_cast<std::uint32_t>(sg.ops.size());
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    if (pc + 2 > reader.end() && reader.end() < n) reader.fill(pc);
    ASSERT_GE(reader.end(), std::min(n, pc + 2));
    const std::uint32_t from = pc + 1 >= packed.reach ? pc + 1 - packed.reach : 0;
    for (std::uint32_t i = from; i < reader.end(); ++i) {
      const sim::TraceOp& got = reader.ops()[i & reader.mask()];
      ASSERT_EQ(got.op, sg.ops[i].op) << "op " << i << " at pc " << pc;
      ASSERT_EQ(got.dep, sg.ops[i].dep) << "op " << i << " at pc " << pc;
    }
    const sim::TraceOp& op = sg.ops[pc];
    if (!sim::has_accesses(op.op) || op.count == 0) continue;
    const sim::MemAccess* held = reader.accesses() + reader.ops()[pc & reader.mask()].first_access;
    for (std::uint32_t r = 0; r < sim::stored_accesses(&sg.accesses[op.first_access], op.count);
         ++r) {
      ASSERT_EQ(held[r], sg.accesses[op.first_access + r]) << "op " << pc << " record " << r;
    }
  }
}

TEST(PackedTraceTest, RandomTracesComeBackExactly) {
  int packed_count = 0;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const sim::LaunchTrace launch = testing::random_launch(seed, 6);
    for (const sim::SimdgroupTrace& sg : launch.simdgroups) {
      const std::optional<PackedTrace> packed = pack(sg);
      ASSERT_TRUE(packed.has_value()) << "seed " << seed;
      ++packed_count;
      ASSERT_EQ(unpack_trace(*packed), sg) << "seed " << seed;
      expect_window_holds(*packed, sg);
    }
  }
  EXPECT_GT(packed_count, 100);
}

TEST(PackedTraceTest, MainLoopsComeBackExactlyAndPackSmall) {
  std::uint64_t plain = 0;
  std::uint64_t packed_bytes = 0;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    const sim::LaunchTrace launch = testing::looped_launch(seed, 3);
    for (const sim::SimdgroupTrace& sg : launch.simdgroups) {
      const std::optional<PackedTrace> packed = pack(sg);
      ASSERT_TRUE(packed.has_value()) << "seed " << seed;
      ASSERT_EQ(unpack_trace(*packed), sg) << "seed " << seed;
      expect_window_holds(*packed, sg);
      plain += sg.ops.size() * sizeof(sim::TraceOp) + sg.accesses.size() * sizeof(sim::MemAccess);
      packed_bytes += packed->bytes.size();
    }
  }
  // The loops repeat 2 to 40 times; the first two steps of each are stored field by field.
  EXPECT_LT(packed_bytes * 5, plain) << packed_bytes << " of " << plain;
}

// A loop of 1,000 steps of an ALU op, a device load advancing 256 bytes a step, a matrix
// multiply on the previous one and a barrier: everything after the first two steps is one
// copy, so the packed trace takes a few bytes per step at most.
TEST(PackedTraceTest, ALongLoopPacksToAFewBytesPerStep) {
  sim::SimdgroupTrace sg;
  for (std::uint32_t step = 0; step < 1000; ++step) {
    const auto load = static_cast<std::int32_t>(sg.ops.size());
    testing::add_memory_op(sg, sim::OpClass::kDeviceLoad, 1, 256 * step, 4, 4);
    sg.ops.push_back(testing::alu_op(sim::AluKind::kFp16Fma, 12, load));
    sg.ops.push_back(testing::simple_op(sim::OpClass::kMatrixMultiply, load + 2 - 4));
    sg.ops.push_back(testing::simple_op(sim::OpClass::kThreadgroupBarrier, load));
  }
  sg.ops[2].dep = -1;  // the first multiply has no earlier one
  const std::optional<PackedTrace> packed = pack(sg);
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(unpack_trace(*packed), sg);
  // 4,000 ops and 32,000 access records: 192,000 bytes plain.
  EXPECT_LT(packed->bytes.size(), 1000u) << packed->bytes.size();
  EXPECT_EQ(packed->max_distance, 4u);   // one step back
  EXPECT_EQ(packed->access_reach, 64u);  // the load's 32 records, twice
}

// Op 2 repeats op 1 with the offset advanced as much as from op 0 to op 1, though op 0 reads
// another buffer: the copy extrapolates from whatever record is as far back again.
TEST(PackedTraceTest, OffsetsAreExtrapolatedAcrossBuffers) {
  sim::SimdgroupTrace sg;
  testing::add_memory_op(sg, sim::OpClass::kDeviceLoad, 2, 10, 4, 4);
  testing::add_memory_op(sg, sim::OpClass::kDeviceLoad, 1, 20, 4, 4);
  testing::add_memory_op(sg, sim::OpClass::kDeviceLoad, 1, 30, 4, 4);
  const std::optional<PackedTrace> packed = pack(sg);
  ASSERT_TRUE(packed.has_value());
  EXPECT_EQ(unpack_trace(*packed), sg);
  EXPECT_EQ(packed->max_distance, 1u);  // op 2 is a copy of op 1
}

TEST(PackedTraceTest, TracesOutsideTheFormatStayUnpacked) {
  sim::SimdgroupTrace sg;
  testing::add_memory_op(sg, sim::OpClass::kDeviceLoad, 1, 0, 4, 4);
  testing::add_memory_op(sg, sim::OpClass::kDeviceLoad, 1, 128, 4, 4);
  ASSERT_TRUE(pack(sg).has_value());
  std::swap(sg.ops[0].first_access, sg.ops[1].first_access);  // accesses not in op order
  EXPECT_FALSE(pack(sg).has_value());

  sim::SimdgroupTrace far;
  for (std::size_t i = 0; i <= kMaxPackedReach; ++i) {
    far.ops.push_back(testing::alu_op(sim::AluKind::kIntAdd, 1));
  }
  far.ops.back().dep = 0;  // kMaxPackedReach back, plus one
  EXPECT_FALSE(pack(far).has_value());
  far.ops.back().dep = 1;
  EXPECT_TRUE(pack(far).has_value());
}

}  // namespace
}  // namespace marlin::timing
