#!/usr/bin/env bash
# Strict compile of one kernel program: C++14 rules, no standard library, no exceptions, no
# RTTI, no dynamic allocation, against the declarations-only Metal header in this folder;
# then the call-graph check for recursion and function pointers. Loop pragmas of Apple's
# compiler (`#pragma clang loop unroll(full)`) are unknown to GCC and ignored.
#
# usage: check_kernel.sh CXX CALLGRAPH_CHECK KERNEL.metal WORK_DIR
set -euo pipefail
cxx="$1"
checker="$2"
kernel="$3"
work="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$work"
stem="$(basename "$kernel" .metal)"
# -fcallgraph-info writes <object stem>.ci next to the object.
"$cxx" -std=c++14 -x c++ -c -O0 -nostdinc -nostdinc++ -fno-exceptions -fno-rtti \
  -Wall -Werror -Wno-attributes -Wno-literal-suffix -Wno-unused-parameter \
  -Wno-unused-variable -Wno-unused-function -Wno-unknown-pragmas \
  -include "$here/strict_prelude.h" -I "$here" \
  -fcallgraph-info -o "$work/$stem.o" "$kernel"
"$checker" "$work/$stem.ci"
echo "$stem: compiles in strict mode; no recursion, no function pointers"
