// Violation: dynamic allocation.
#include <metal_stdlib>
using namespace metal;
kernel void allocates(device uint* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
  uint* p = new uint(gid);
  out[gid] = *p;
}
