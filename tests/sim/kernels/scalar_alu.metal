// Scalar ALU counting: each thread executes a fixed, hand-counted number of int and float
// operations on plain scalars (tests/sim/scalar_alu_test.cpp holds the count).
#include <metal_stdlib>
using namespace metal;

kernel void test_scalar_alu(device const uint* in [[buffer(0)]],
                            device uint* out_u [[buffer(1)]],
                            device float* out_f [[buffer(2)]],
                            uint gid [[thread_position_in_grid]]) {
  constexpr uint kShift = uint(1) + 2u;  // constant-evaluated: not counted
  const uint a = in[gid];
  const int b = int(a) - 3;
  uint x = (a << kShift) ^ (a >> 1);
  x = x * 7u + (a % 5u);
  x |= ~a & 0xFFu;
  const float f = float(x);
  float g = f * 0.5f + float(b);
  g = g / 4.0f - f;
  const bool big = g > 10.0f;
  out_u[gid] = select(x + 1u, x, big);
  float acc = 0.0f;
  for (int i = 0; i < 4; ++i) {
    acc += float(i);
  }
  out_f[gid] = fma(g, 2.0f, acc);
}
