// Violation: leans on the host C++ standard library.
#include <metal_stdlib>
#include <vector>
using namespace metal;
kernel void uses_vector(device float* out [[buffer(0)]], uint gid [[thread_position_in_grid]]) {
  std::vector<float> v(4);
  out[gid] = v[0];
}
