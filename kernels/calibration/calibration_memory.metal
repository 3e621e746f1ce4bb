// Calibration microbenchmarks: DRAM bandwidth, DRAM latency and dispatch overhead.
//
// calib_dram_stream: thread g of a 1D grid of N threads reads the float4 elements
// g + k * N, k = 0..7 (p.stride = N), so each simdgroup load is four whole 128-byte lines and
// the grid reads 128 * N bytes once. Launch it over every core (threadgroups of 256 threads)
// for two sizes N1 < N2 whose buffers exceed the system-level cache and time both:
//   DRAM bandwidth = 128 * (N2 - N1) / (T2 - T1) bytes per second (T in seconds).
//
// calib_pointer_chase: one thread follows p.reps links of a chain stored in `chain` (each
// element is the index of the next one). The host lays the chain out so that every link
// lands on a line no earlier link touched (a random permutation of lines over a buffer much
// larger than the system-level cache, so that neither the caches nor a prefetcher help).
// Time hops = H1 and H2:
//   DRAM latency = (T2 - T1) / (H2 - H1) core cycles (T in cycles: seconds x GPU clock).
//
// calib_empty: does nothing. Time many launches of one threadgroup of 32 threads in one
// compute encoder; the time per launch is the dispatch overhead.
#include <metal_stdlib>
#include "calibration_params.h"
using namespace metal;

kernel void calib_dram_stream(device const float4* src [[buffer(0)]],
                              device float4* out [[buffer(1)]],
                              constant CalibParams& p [[buffer(2)]],
                              uint gid [[thread_position_in_grid]]) {
  device const float4* q = src + gid;
  const float4 v0 = q[0];
  const float4 v1 = q[p.stride];
  const float4 v2 = q[2 * p.stride];
  const float4 v3 = q[3 * p.stride];
  const float4 v4 = q[4 * p.stride];
  const float4 v5 = q[5 * p.stride];
  const float4 v6 = q[6 * p.stride];
  const float4 v7 = q[7 * p.stride];
  const float4 sum = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7));
  if (sum.x == p.sentinel) out[gid] = sum;
}

kernel void calib_pointer_chase(device const uint* chain [[buffer(0)]],
                                device uint* out [[buffer(1)]],
                                constant CalibParams& p [[buffer(2)]]) {
  uint next = 0;
  for (uint h = 0; h < p.reps; ++h) {
    next = chain[next];
  }
  if (next == as_type<uint>(p.sentinel)) out[0] = next;
}

kernel void calib_empty() {}
