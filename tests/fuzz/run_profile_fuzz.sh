#!/usr/bin/env bash
# Builds the profile-loader fuzz target with clang++ (libFuzzer, AddressSanitizer,
# UndefinedBehaviorSanitizer) in a temporary directory and runs it for a bounded time, seeded
# with the shipped profiles. Exit status: 0 when no finding, 77 when clang++ or its fuzzer
# runtime is missing (CTest reports the test as skipped), anything else on a finding or a
# build failure. A crashing input is kept as ./profile_fuzz-crash-* in the working directory.
#
# Usage: tests/fuzz/run_profile_fuzz.sh [seconds]   (default 20; env MARLIN_FUZZ_CXX picks the
# compiler)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
seconds="${1:-20}"
cxx="${MARLIN_FUZZ_CXX:-$(command -v clang++ || command -v clang++-14 || true)}"

if [[ -z "${cxx}" ]]; then
  echo "profile fuzz: skipped, clang++ not found (install clang and libclang-rt-14-dev)"
  exit 77
fi

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

# The fuzzer runtime comes in a separate package; check that it links before the real build.
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "${work}/probe.cpp"
if ! "${cxx}" -fsanitize=fuzzer "${work}/probe.cpp" -o "${work}/probe" 2> "${work}/probe.log"; then
  echo "profile fuzz: skipped, ${cxx} cannot link libFuzzer (install libclang-rt-14-dev):"
  head -n 3 "${work}/probe.log"
  exit 77
fi

flags=(-std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -I"${root}" -DMARLIN_PROFILES_DIR="\"${root}/profiles\""
       -DMARLIN_FUZZ_PROFILES_DIR="\"${root}/profiles\"")
sources=("${root}"/model/common/*.cpp "${root}"/model/device/*.cpp
         "${root}/tests/fuzz/profile_fuzz.cpp")

echo "profile fuzz: building with ${cxx}"
objects=()
for source in "${sources[@]}"; do
  object="${work}/$(basename "${source}" .cpp).o"
  "${cxx}" "${flags[@]}" -c "${source}" -o "${object}"
  objects+=("${object}")
done
"${cxx}" "${flags[@]}" "${objects[@]}" -lfmt -o "${work}/profile_fuzz"

mkdir -p "${work}/corpus"
cp "${root}"/profiles/*.json "${work}/corpus/"

echo "profile fuzz: running for ${seconds} s"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
"${work}/profile_fuzz" -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 -dict="${root}/tests/fuzz/profile.dict" \
  -artifact_prefix="${PWD}/profile_fuzz-" "${work}/corpus"
echo "profile fuzz: no finding"
