// Constructs real Metal kernels use, compiled and run on the engine: unroll pragmas, vector
// casts of device pointers, scalar-to-vector conversion, constexpr tables, arrays of
// matrices, threadgroup pointers into kernel-scope arrays, thread references.
#include <metal_stdlib>
#include <metal_simdgroup_matrix>
using namespace metal;

constant constexpr uint kGroup = 8;
constexpr constant half kScaleTable[4] = {0.5h, 1.0h, 2.0h, 4.0h};

// U4B8 dequantization with the magic-number trick: 8 nibbles per uint; value = (q - 8) * s.
inline void dequant_u4b8(uint packed, half scale, thread half4& lo, thread half4& hi) {
  const uint4 shifts = uint4(0, 4, 8, 12);
  const uint4 q = (uint4(packed) >> shifts) & uint4(0xFu);
  const uint4 r = (uint4(packed >> 16) >> shifts) & uint4(0xFu);
  const half4 bias = half4(1032.0h);
  lo = (as_type<half4>(ushort4(q) | ushort4(0x6400)) - bias) * scale;
  hi = (as_type<half4>(ushort4(r) | ushort4(0x6400)) - bias) * scale;
}

kernel void test_dequant_u4(device const uint* packed [[buffer(0)]],
                            device const half* scales [[buffer(1)]],
                            device half4* out [[buffer(2)]],
                            uint gid [[thread_position_in_grid]]) {
  half4 lo;
  half4 hi;
  dequant_u4b8(packed[gid], scales[gid / kGroup], lo, hi);
  out[2 * gid] = lo;
  out[2 * gid + 1] = hi;
}

// Exercises syntax; out receives a checksum per thread.
kernel void test_dialect_mix(device const half* in [[buffer(0)]],
                             device float* out [[buffer(1)]],
                             uint tid [[thread_index_in_threadgroup]],
                             uint lane [[thread_index_in_simdgroup]]) {
  threadgroup half stage[2][64];
  threadgroup half* row = stage[1];
  device const half4* in4 = (device const half4*)in;
  float4 acc = 0.0f;
  #pragma unroll
  for (uint i = 0; i < 2; ++i) {
    const half4 v = in4[tid * 2 + i];
    acc += float4(v);
  }
  row[tid] = half(acc.x + acc.y + acc.z + acc.w);
  stage[0][tid] = kScaleTable[tid % 4];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid >= 32) {  // uniform per simdgroup: only simdgroup 0 runs the matrix part
    out[tid] = float(row[tid]);
    return;
  }
  simdgroup_half8x8 frags[2];
  simdgroup_load(frags[0], &stage[0][0], 8);
  simdgroup_load(frags[1], row, 8);
  simdgroup_float8x8 prod = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  simdgroup_multiply_accumulate(prod, frags[0], frags[1], prod);
  threadgroup float result[64];
  simdgroup_store(prod, result, 8);
  simdgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = result[tid] + result[tid + 32] * 1000.0f + float(lane == tid ? 0 : 1);
}
