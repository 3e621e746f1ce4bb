// The kernel pre-pass: translates one .metal file into C++ for the engine.
//
// What it does (docs/kernel-dialect.md has the full rules):
//  - inlines quoted #includes (recursively, honouring #pragma once) with #line markers;
//  - address-space qualified pointers `device T*` / `constant T*` / `threadgroup T*` become
//    metal::space_ptr<T, Space>; references lose the qualifier (`constant T&` -> `const T&`);
//    program-scope `constant` variables become `const`; `thread` is dropped;
//  - kernel-scope `threadgroup T name[..];` becomes a view of the threadgroup arena, by
//    declaration index, and the kernel's declaration sizes are emitted as a layout struct;
//  - in function code (bodies, parameter lists, return types) the scalar type names `int`,
//    `uint`, `float`, ... become metal::counted_* so their ALU work is counted; template
//    parameters and arguments, address-space pointees, struct members and namespace-scope
//    constants stay built-in;
//  - half literals (`1.0h`) become metal::half values, reinterpret_cast of address-space
//    pointers becomes metal::reinterpret_pointer;
//  - each kernel (and each explicit template instantiation with [[host_name]]) gets an
//    entry function binding its attributed parameters and a static registration.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace marlin::prepass {

class TranslateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Translation {
  std::string cpp;
  std::vector<std::string> dependencies;  // the .metal file and every inlined include
};

// The batched build (`batch`): the C++ of the kernels' batched entry points, which run a
// batch of alike threadgroups as one (sim/runtime/batch_lane.h). It is the plain build's
// translation with `metal` spelled `metal_batch` (the batched shim, <metal_batch_stdlib>), in
// function code also the vector type names, template type parameters and half literals
// batched, and batched entry points and registrations instead of the plain ones.
struct TranslateOptions {
  bool batch = false;
};

// Throws TranslateError("<file>:<line>: <what>") on unsupported or malformed input.
Translation translate_file(const std::string& path, TranslateOptions options = {});

}  // namespace marlin::prepass
