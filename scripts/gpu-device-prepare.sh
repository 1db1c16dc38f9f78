#!/usr/bin/env bash
# Prepares .devrun/ for scripts/gpu-device-run.sh: a lent GPU machine (H100 / H200 here) has no
# package registry and its image lacks libglvnd, so the run carries what it needs from this
# Debian 12 machine. Run from the repository root after `cmake --build --preset ci`; then run
#   bash scripts/gpu-device-run.sh [BUDGET_S] [full|final|bench]
# there, carrying .devrun, build/ci/tools/vkphys and build/ci/tests/vkphys_tests.
#   .devrun/lib     the shared libraries the binaries load (ldd), the Vulkan loader and the
#                   validation layer, from this machine
#   .devrun/layers  the validation layer's manifest
#   .devrun/gl      Debian 12's libglvnd and loader packages, unpacked into / there: without
#                   libGLdispatch the NVIDIA ICD loads but returns no vkCreateInstance (-9)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
grep -qx '/.devrun/' .git/info/exclude 2>/dev/null || echo '/.devrun/' >>.git/info/exclude
mkdir -p .devrun/lib .devrun/layers .devrun/gl

libs=(libvulkan.so.1 libVkLayer_khronos_validation.so)
for bin in build/ci/tools/vkphys build/ci/tests/vkphys_tests; do
  [ -x "$bin" ] || { echo "missing $bin: build the ci preset first" >&2; exit 1; }
  while read -r name; do libs+=("$name"); done < <(ldd "$bin" | awk '/=>/ {print $1}' |
    grep -vE '^(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux)[.-]')
done
for l in $(printf '%s\n' "${libs[@]}" | sort -u); do cp -L "/lib/x86_64-linux-gnu/$l" .devrun/lib/; done
cp /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json .devrun/layers/
(cd .devrun/gl && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 libx11-6 libxext6)
du -sh .devrun
