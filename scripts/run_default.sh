#!/usr/bin/env bash
# Sets up, builds (preset release) and runs the default scene on the GPU backend (lavapipe when
# the machine has no GPU). Outputs: out/particles_box/{metrics.csv,frames/*.csv} and last.png, a
# picture of the last step drawn by the Vulkan device (the one README.md shows, docs/particles_box.png).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release -j"$(nproc)"
./build/release/tools/vkphys info
./build/release/tools/vkphys run scenes/particles_box.json --backend gpu --steps 300 \
  --out out/particles_box --force --png "$@"
