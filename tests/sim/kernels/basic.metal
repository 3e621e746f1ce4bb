// Basic kernels for the engine tests: element-wise math, built-ins, constant arguments.
#include <metal_stdlib>
using namespace metal;

struct AxpyParams {
  uint n;
  float alpha;
};

// y[i] = alpha * x[i] + y[i] over a 1D grid, with a bounds guard.
kernel void test_axpy(device const float* x [[buffer(0)]],
                      device float* y [[buffer(1)]],
                      constant AxpyParams& params [[buffer(2)]],
                      uint gid [[thread_position_in_grid]]) {
  if (gid >= params.n) {
    return;
  }
  y[gid] = params.alpha * x[gid] + y[gid];
}

// test_axpy over a 2D grid: every thread of the grid owns one element (row-major over the
// grid's threads), so threadgroups never share one and the result does not depend on the
// order they run in.
kernel void test_axpy_grid(device const float* x [[buffer(0)]],
                           device float* y [[buffer(1)]],
                           constant AxpyParams& params [[buffer(2)]],
                           uint2 gid [[thread_position_in_grid]],
                           uint2 grid [[threads_per_grid]]) {
  const uint i = gid.y * grid.x + gid.x;
  if (i >= params.n) {
    return;
  }
  y[i] = params.alpha * x[i] + y[i];
}

// Writes every built-in of each thread: 16 uints per thread, indexed by the linear thread
// position in the grid.
kernel void test_builtins(device uint* out [[buffer(0)]],
                          uint3 tpos [[thread_position_in_threadgroup]],
                          uint3 tgpos [[threadgroup_position_in_grid]],
                          uint3 gpos [[thread_position_in_grid]],
                          uint3 tptg [[threads_per_threadgroup]],
                          uint3 tgpg [[threadgroups_per_grid]],
                          ushort sg [[simdgroup_index_in_threadgroup]],
                          ushort lane [[thread_index_in_simdgroup]],
                          uint sgs [[simdgroups_per_threadgroup]],
                          uint2 gpos2 [[thread_position_in_grid]]) {
  const uint width = tgpg.x * tptg.x;
  const uint height = tgpg.y * tptg.y;
  const uint linear = (gpos.z * height + gpos.y) * width + gpos.x;
  device uint* o = out + linear * 16;
  o[0] = tpos.x;
  o[1] = tpos.y;
  o[2] = tpos.z;
  o[3] = tgpos.x;
  o[4] = tgpos.y;
  o[5] = tgpos.z;
  o[6] = gpos.x;
  o[7] = gpos.y;
  o[8] = gpos.z;
  o[9] = tptg.x * 10000 + tptg.y * 100 + tptg.z;
  o[10] = tgpg.x * 10000 + tgpg.y * 100 + tgpg.z;
  o[11] = sg;
  o[12] = lane;
  o[13] = sgs;
  o[14] = gpos2.x;
  o[15] = gpos2.y;
}

// half math: out[i] = fma(a, b, c) in half, and a half4 swizzle/vector expression.
kernel void test_half_math(device const half* a [[buffer(0)]],
                           device const half* b [[buffer(1)]],
                           device half* out [[buffer(2)]],
                           device half4* vout [[buffer(3)]],
                           uint gid [[thread_position_in_grid]]) {
  const half x = a[gid];
  const half y = b[gid];
  out[gid] = x * y + 1.0h;
  half4 v = half4(x, y, x + y, 2.0h);
  half2 lo = v.xy;
  half2 hi = v.zw;
  vout[gid] = half4(hi, lo) * half4(1.0h);
}

// Shim functions called directly on elements read through pointers.
kernel void test_proxy_calls(device const float* x [[buffer(0)]],
                             device const uint* w [[buffer(1)]],
                             device float* out [[buffer(2)]],
                             uint gid [[thread_position_in_grid]]) {
  const half2 h = as_type<half2>(w[gid]);
  out[gid * 4] = max(x[gid], 0.0f);
  out[gid * 4 + 1] = fma(x[gid], x[gid], 1.0f);
  out[gid * 4 + 2] = float(h.y);
  out[gid * 4 + 3] = float(extract_bits(w[gid], 4u, 4u));
}

// Reads a lookup table through a constant-space pointer.
kernel void test_constant_table(constant float* table [[buffer(0)]],
                                device float* out [[buffer(1)]],
                                uint gid [[thread_position_in_grid]]) {
  out[gid] = table[gid % 4] * 2.0f;
}
