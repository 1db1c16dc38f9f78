"""Shared by the command-line tests run through Debian's python3 (tests/CMakeLists.txt)."""
import os
import subprocess

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests


def vulkan_missing(vkphys):
    """None when `vkphys info` finds a Vulkan device; otherwise the exit code the test returns:
    1 under VKPHYS_REQUIRE_GPU=1 (CI, where lavapipe is installed), else SKIP."""
    if subprocess.run([vkphys, "info"], capture_output=True).returncode == 0:
        return None
    if os.environ.get("VKPHYS_REQUIRE_GPU") == "1":
        print("no Vulkan device, and VKPHYS_REQUIRE_GPU=1")
        return 1
    print("skipped: no Vulkan device")
    return SKIP
