// The parallel replay's balance of work between its threads (docs/timing-model.md,
// "Parallel replay"): each thread steps a contiguous range of cores, a partition, and every
// window waits for the slowest. How the boundaries between partitions move, apart from the
// replay.
#pragma once

#include <cstdint>

namespace marlin::timing {

// How the parallel replay shares the cores among its threads once it has split them
// (TimingOptions::partition_balance).
enum class PartitionBalance : std::uint8_t {
  kOff,     // the first split stays
  kByTime,  // boundaries move towards the partition that spent less time in its windows
  kSweep,   // for tests: every boundary moves at every look, end to end and back
};

// Which way the boundary between two neighbouring partitions moves, from the time each spent
// in its windows since the last look and its cores: +1 gives the earlier one's last core to
// the later, -1 the later one's first core to the earlier, 0 keeps it. A partition gives a
// core when it leads the other by more than its time per core, so that, with cores alike,
// the slower of the two is faster after the move; each keeps at least one core.
inline int boundary_move(double earlier_time, int earlier_cores, double later_time,
                         int later_cores) {
  if (earlier_cores > 1 && earlier_time - later_time > earlier_time / earlier_cores) return 1;
  if (later_cores > 1 && later_time - earlier_time > later_time / later_cores) return -1;
  return 0;
}

// kSweep's move of a boundary whose last move went `direction` (+1 or -1): the same way
// while the partition that gives keeps a core, else back; 0 when neither can give one.
inline int sweep_move(int direction, int earlier_cores, int later_cores) {
  const bool forward = earlier_cores > 1;
  const bool back = later_cores > 1;
  if (direction > 0) return forward ? 1 : (back ? -1 : 0);
  return back ? -1 : (forward ? 1 : 0);
}

}  // namespace marlin::timing
