// Loops marked for full unrolling: after unrolling, the index of a loop with a compile-time
// trip count is a constant in each copy, so the loop's compare and increment and arithmetic
// on the index alone are not counted. Other loops run as written. Each loop below adds to x;
// tests/sim/unrolled_loop_test.cpp holds the hand count and the expected value.
#include <metal_stdlib>
using namespace metal;

template <uint N>
kernel void test_unrolled_loops(device const uint* in [[buffer(0)]], device uint* out [[buffer(1)]],
                                uint gid [[thread_position_in_grid]]) {
  const uint n = in[0];
  uint x = gid;
  // A constant trip count: unrolled.
#pragma clang loop unroll(full)
  for (uint i = 0; i < 4; ++i) {
    x += i * 3u;
  }
  // A template-parameter bound and a stride of 2: unrolled.
#pragma unroll
  for (uint i = 0; i < N; i += 2) {
    x ^= i;
  }
  // A bound that is a local constexpr constant (itself a counted type): unrolled.
  constexpr uint kTrips = 2;
#pragma clang loop unroll(full)
  for (uint i = 0; i < kTrips; ++i) {
    x += 7u;
  }
  // A trip count known only at run time: as written.
#pragma clang loop unroll(full)
  for (uint i = 0; i < n; ++i) {
    x += i;
  }
  // The body assigns the index: as written.
#pragma clang loop unroll(full)
  for (uint i = 0; i < 4; ++i) {
    if (i == 1u) {
      i = 2u;
    }
    x += 1u;
  }
  // Not marked: as written.
  for (uint i = 0; i < 2; ++i) {
    x += 5u;
  }
  // A partial unroll: as written.
#pragma clang loop unroll_count(2)
  for (uint i = 0; i < 2; ++i) {
    x += 5u;
  }
  out[gid] = x;
}

template [[host_name("test_unrolled_loops_6")]] kernel void test_unrolled_loops<6>(
    device const uint* in [[buffer(0)]], device uint* out [[buffer(1)]],
    uint gid [[thread_position_in_grid]]);
