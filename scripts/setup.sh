#!/usr/bin/env bash
# Installs everything vkphys needs to build, test and run on Debian 12 (as root, apt only).
# Idempotent: packages already present are left alone.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools
  mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libglm-dev libgtest-dev libgmock-dev nlohmann-json3-dev libcli11-dev libfmt-dev zlib1g-dev
  libtinyobjloader-dev   # OBJ meshes of mesh cloths (read_obj_mesh, scene key "mesh_cloths")
  # tests that check outputs with independent programs: a browser for the compare report,
  # Pillow for its screenshot, VTK's own reader for the --vtk frames
  python3 chromium python3-pil python3-vtk9
  clang libclang-rt-14-dev   # the asan preset and the libFuzzer targets (scripts/fuzz.sh)
  # the Python module (python/) and its pytest suite
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-matplotlib   # examples/plot_energy.py and its test
  doxygen   # the API reference (target api_reference, test api_reference)
  libglfw3-dev   # the window of `vkphys view`
  xvfb xauth     # an X server in memory: the `vkphys view` test draws to it (tests/view_cli.py)
  xdotool        # X keyboard and mouse events: the view's controls test (tests/view_keys.py)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup.sh: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup.sh: all build dependencies present"
