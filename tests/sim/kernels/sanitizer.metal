// Kernels with planted bugs for the sanitizer tests (and one clean twin of each pattern).
#include <metal_stdlib>
using namespace metal;

// Writes one element past the end when n is the buffer's length and the grid covers n + 1.
kernel void bug_oob_device(device float* out [[buffer(0)]],
                           uint gid [[thread_position_in_grid]]) {
  out[gid] = 1.0f;
}

// 32 threads write tile[tid + 1]: thread 31 writes past the 32-element declaration.
kernel void bug_oob_threadgroup(device float* out [[buffer(0)]],
                                uint tid [[thread_index_in_threadgroup]]) {
  threadgroup float tile[32];
  threadgroup float after[32];
  after[tid] = 0.0f;
  tile[tid + 1] = float(tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = after[tid];
}

// Thread t reads tile[t] and writes tile[t + 1] with no barrier in between: thread t + 1
// reads what thread t writes in the same phase.
kernel void bug_race(device uint* out [[buffer(0)]],
                     uint tid [[thread_index_in_threadgroup]],
                     uint threads [[threads_per_threadgroup]]) {
  threadgroup uint tile[64];
  tile[tid] = tid;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const uint v = tile[tid];
  tile[(tid + 1) % threads] = v + 1;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = tile[tid];
}

// The clean twin: a barrier separates the read phase from the write phase.
kernel void clean_shift(device uint* out [[buffer(0)]],
                        uint tid [[thread_index_in_threadgroup]],
                        uint threads [[threads_per_threadgroup]]) {
  threadgroup uint tile[64];
  tile[tid] = tid;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  const uint v = tile[tid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  tile[(tid + 1) % threads] = v + 1;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = tile[tid];
}

// Reads threadgroup memory that no thread wrote.
kernel void bug_uninitialized(device float* out [[buffer(0)]],
                              uint tid [[thread_index_in_threadgroup]]) {
  threadgroup float tile[64];
  if (tid < 32) {
    tile[tid] = 1.0f;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = tile[tid];
}

// Threads 16 and up return before the barrier the others wait at.
kernel void bug_barrier_early_return(device float* out [[buffer(0)]],
                                     uint tid [[thread_index_in_threadgroup]]) {
  if (tid >= 16) {
    return;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = 1.0f;
}

// Two different barriers in the two branches.
kernel void bug_barrier_two_sites(device float* out [[buffer(0)]],
                                  uint tid [[thread_index_in_threadgroup]]) {
  if (tid % 2 == 0) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  } else {
    threadgroup_barrier(mem_flags::mem_device);
  }
  out[tid] = 1.0f;
}

// Half the simdgroup reduces and then waits at a threadgroup barrier inside the branch; the
// other half returns without reaching it.
kernel void bug_barrier_in_divergent_branch(device float* out [[buffer(0)]],
                                            uint lane [[thread_index_in_simdgroup]]) {
  float v = float(lane);
  if (lane < 16) {
    v = simd_sum(v);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[lane] = v;
}

// The lanes of one simdgroup reach the same matrix load with different origins (Metal
// requires simdgroup-uniform matrix operands).
kernel void bug_matrix_operands_differ(device const float* in [[buffer(0)]],
                                       device float* out [[buffer(1)]],
                                       uint lane [[thread_index_in_simdgroup]]) {
  const uint row = lane < 16 ? 0u : 8u;
  simdgroup_float8x8 m;
  simdgroup_load(m, in, 8, ulong2(0, row));
  simdgroup_store(m, out, 8);
}

// A matrix load whose last rows fall outside the buffer.
kernel void bug_matrix_oob(device const float* in [[buffer(0)]],
                           device float* out [[buffer(1)]]) {
  simdgroup_float8x8 m;
  simdgroup_load(m, in, 8, ulong2(0, 4));
  simdgroup_store(m, out, 8);
}

// One simdgroup fills an 8x8 half tile, two elements per lane, but lane 21 skips element 53
// (row 6, column 5); the matrix load's row 6 then reads two bytes nobody wrote.
kernel void bug_matrix_load_uninitialized(device half* out [[buffer(0)]],
                                          uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half tile[64];
  tile[lane] = half(lane);
  if (lane != 21) tile[lane + 32] = half(lane);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_half8x8 m;
  simdgroup_load(m, tile, 8);
  simdgroup_store(m, out, 8);
}

// Both simdgroups fill the tile; after the barrier simdgroup 1 writes rows 0-3 again while
// simdgroup 0 loads the tile, with no barrier between.
kernel void bug_matrix_load_race(device half* out [[buffer(0)]],
                                 uint lane [[thread_index_in_simdgroup]],
                                 uint simd [[simdgroup_index_in_threadgroup]]) {
  threadgroup half tile[64];
  tile[simd * 32 + lane] = half(lane);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (simd == 1) {
    tile[lane] = half(2 * lane);
  } else {
    simdgroup_half8x8 m;
    simdgroup_load(m, tile, 8);
    simdgroup_store(m, out, 8);
  }
}

// Uses about 6 KiB of thread stack (a test launches it with 4 KiB fiber stacks).
kernel void bug_stack_hungry(device const float* in [[buffer(0)]],
                             device float* out [[buffer(1)]],
                             uint tid [[thread_index_in_threadgroup]]) {
  float big[1536];
  for (uint i = 0; i < 1536; ++i) {
    big[i] = in[i] * float(tid + 1);
  }
  threadgroup_barrier(mem_flags::mem_none);
  float sum = 0.0f;
  for (uint i = 1536; i > 0; --i) {
    sum += big[i - 1];
  }
  out[tid] = sum;
}

// Thread 0 writes the half values[1] (bytes 2-3); thread 1 reads byte 3 alone, with no barrier
// in between: a race on one byte of a half.
kernel void bug_byte_race(device uint* out [[buffer(0)]],
                          uint tid [[thread_index_in_threadgroup]]) {
  threadgroup half values[4];
  if (tid == 0) {
    values[1] = 1.0h;
  }
  const threadgroup uchar* bytes = reinterpret_cast<const threadgroup uchar*>(values);
  if (tid == 1) {
    out[0] = bytes[3];
  }
}
