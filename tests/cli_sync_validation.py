#!/usr/bin/python3
"""The commands that drive the GPU themselves, under the validation layer's synchronization
validation (`--sync-validation`): every `vkphys bench` workload on the GPU backend (both GPU
schemes, the pyramid also fused into one workgroup), `vkphys render`, `vkphys run --png` and
`vkphys view` in a window on Xvfb (its swapchain, present and render passes). The library's own
GPU paths are held to the same in tests/test_gpu_sync_validation.cpp; these commands record
their own command buffers (bench's timestamps, view's frames) and so are checked here.

Each command must exit 0 (the CLI exits 3 when the layer reported anything: tools/main.cpp),
print no VULKAN VALIDATION ERROR, and show, in the loader's own log (VK_LOADER_DEBUG=layer),
that the validation layer was inserted into its device, so a missing layer cannot pass as a
clean run.

Usage: cli_sync_validation.py VKPHYS SCENES OUTDIR. Exits 77 (ctest: skipped) without the layer
(vulkan-validationlayers) or a Vulkan device, unless VKPHYS_REQUIRE_GPU=1."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cli_env import SKIP, vulkan_missing

LAYER = "VK_LAYER_KHRONOS_validation"
MANIFEST = Path("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json")

# (workload, size): small, so each bench takes seconds under the layer on lavapipe.
BENCHES = [("particles", "300"), ("mixed", "300"), ("pyramid", "5"), ("pyramids", "2"),
           ("boxes", "70"), ("cloth", "12"), ("cloth_self", "12"), ("cloth_hang", "12"),
           ("flag", "12")]


def check(vkphys, args, what, prefix=()):
    env = dict(os.environ, VK_LOADER_DEBUG="layer")
    run = subprocess.run(list(prefix) + [vkphys, "--sync-validation"] + args, env=env,
                         capture_output=True, text=True, timeout=600)
    out = run.stdout + run.stderr
    errors = [line for line in out.splitlines() if "VULKAN VALIDATION ERROR" in line]
    assert run.returncode == 0 and not errors, f"{what}: status {run.returncode}\n" + "\n".join(
        errors[:5] or out.splitlines()[-20:])
    inserted = [line for line in out.splitlines() if "Insert" in line and "device layer" in line
                and LAYER in line]
    assert inserted, f"{what}: the loader's log shows no {LAYER} in the device:\n" + out[-2000:]
    print(f"{what}: status 0, no validation error")


def main() -> int:
    vkphys, scenes, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    missing = vulkan_missing(vkphys)
    if missing is not None:
        return missing
    if not MANIFEST.exists():
        if os.environ.get("VKPHYS_REQUIRE_GPU") == "1":
            print(f"no {MANIFEST} (apt-get install vulkan-validationlayers), and "
                  "VKPHYS_REQUIRE_GPU=1")
            return 1
        print(f"skipped: no {MANIFEST} (apt-get install vulkan-validationlayers)")
        return SKIP
    for workload, size in BENCHES:
        check(vkphys, ["bench", workload, "--sizes", size, "--backend", "gpu", "--scheme", "all",
                       "--warmup", "2", "--steps", "2"], f"bench {workload} {size}")
    check(vkphys, ["bench", "pyramid", "--sizes", "5", "--backend", "gpu", "--fused", "always",
                   "--warmup", "2", "--steps", "2"], "bench pyramid 5, fused")
    shutil.rmtree(out / "render", ignore_errors=True)
    check(vkphys, ["render", str(scenes / "cloth_drape.json"), "--frames", "3", "--width", "160",
                   "--height", "120", "--out", str(out / "render")], "render cloth_drape")
    shutil.rmtree(out / "run", ignore_errors=True)
    check(vkphys, ["run", str(scenes / "stack_5.json"), "--backend", "gpu", "--steps", "5",
                   "--png", "--out", str(out / "run")], "run stack_5 --png")
    if shutil.which("xvfb-run"):
        for backend in ("gpu", "cpu"):
            check(vkphys, ["view", str(scenes / "cloth_drape.json"), "--backend", backend,
                           "--frames", "10", "--width", "160", "--height", "120",
                           "--screenshot", str(out / f"view_{backend}.png")],
                  f"view cloth_drape ({backend})",
                  prefix=("xvfb-run", "-a", "-s", "-screen 0 320x240x24"))
    else:
        print("view: not checked (xvfb-run is not installed: apt-get install xvfb xauth)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
