// Violation: recursion.
#include <metal_stdlib>
using namespace metal;
inline uint depth(uint n) { return n == 0 ? 0 : 1 + depth(n - 1); }
kernel void recurses(device uint* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
  out[gid] = depth(gid);
}
