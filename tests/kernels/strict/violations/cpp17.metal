// Violation: C++17 (if constexpr), beyond Metal's C++14 base.
#include <metal_stdlib>
using namespace metal;
template <uint N>
kernel void newer(device uint* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
  if constexpr (N > 1) out[gid] = N;
}
template [[host_name("newer2")]] kernel void newer<2>(device uint* out [[buffer(0)]],
                                                      uint gid [[thread_position_in_grid]]);
