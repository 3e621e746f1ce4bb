// Forced first into the strict compile of every kernel program (see metal_stdlib here).
// Metal's address-space and function qualifiers become plain C++; `1.0h` literals are declared;
// dynamic allocation is deleted so any new-expression fails to compile.
#pragma once
// Treated as a system header so the deliberate reserved-suffix and deleted-operator-new
// declarations do not warn.
#pragma GCC system_header

#define kernel
#define device
#define threadgroup
#define thread
#define constant const

namespace metal {
struct half;
}
metal::half operator""h(long double value);
metal::half operator""h(unsigned long long value);

void* operator new(unsigned long size) = delete;
void* operator new[](unsigned long size) = delete;
