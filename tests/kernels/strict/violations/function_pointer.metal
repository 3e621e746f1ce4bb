// Violation: a call through a function pointer.
#include <metal_stdlib>
using namespace metal;
inline uint twice(uint x) { return 2 * x; }
inline uint apply(uint (*f)(uint), uint x) { return f(x); }
kernel void points(device uint* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
  out[gid] = apply(twice, gid);
}
