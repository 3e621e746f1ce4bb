// Violation: exceptions.
#include <metal_stdlib>
using namespace metal;
kernel void throws(device uint* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
  if (gid > 100) throw 1;
  out[gid] = gid;
}
