#!/usr/bin/env bash
# Sets up, builds (preset ci: Release, warnings are errors) and runs the whole test suite.
# GPU tests run on the first Vulkan device (lavapipe on a machine without a GPU) with the
# validation layer on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset ci
cmake --build --preset ci -j"$(nproc)"
ctest --preset ci -j"$(nproc)"
