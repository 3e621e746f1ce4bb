#!/usr/bin/env bash
# Set-up of marlin-sim on a Debian machine: installs the missing Debian packages, builds in
# Release, then runs one job.
#
#   tools/setup.sh main    install + build + run the main job (marlin-sim --device m4max)
#   tools/setup.sh test    install + build + run the whole test suite through CTest
#   tools/setup.sh build   install + build only
#
# Installing needs root; without it the script prints the exact apt-get line and stops.
# Environment: BUILD_DIR (default: build), JOBS (default: nproc). With CI set, warnings in the
# project's own code are errors.
set -euo pipefail

mode="${1:-main}"
case "$mode" in
  main|test|build) ;;
  *) echo "usage: tools/setup.sh main|test|build" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"

packages=(
  g++ cmake make pkg-config
  libboost-program-options-dev libboost-context-dev libboost-graph-dev
  libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} > 0)); then
  if [[ "$(id -u)" -ne 0 ]]; then
    echo "marlin-sim needs these Debian packages; install them as root, then run this again:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

werror=OFF
if [[ -n "${CI:-}" ]]; then werror=ON; fi
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DMARLIN_WERROR="$werror"
cmake --build "$build_dir" -j "$jobs"

case "$mode" in
  main) "$build_dir/tools/marlin-sim" --device m4max ;;
  test) ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ;;
  build) ;;
esac
