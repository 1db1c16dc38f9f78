#!/usr/bin/python3
"""`vkphys view`: without a display it says so in one line and exits 2; under Xvfb (an X server
in memory; lavapipe presents to it) its screenshot of the last presented frame shows the objects
where the camera puts them, like `vkphys render` (tests/test_render.cpp): the framing camera aims
at the centre of a lone object's bounding box, so the picture's centre has its kind's colour, lit
head-on, and a scene without planes leaves the corners background. The first frame comes before
any step (the wall-clock lag is still zero), so it shows the loaded state exactly; a longer run
steps the scene. The Vulkan validation layer is on and must stay silent.

Usage: view_cli.py VKPHYS SCENES_DIR OUTDIR. Exits 77 (ctest: skipped) without Pillow, without
xvfb-run (Debian: apt-get install xvfb xauth), or without a Vulkan device unless
VKPHYS_REQUIRE_GPU=1."""
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from cli_env import SKIP, vulkan_missing

# host/gpu/scene_pass.cpp: kind_color and kBackground.
ORANGE = (0.95, 0.55, 0.2)  # rigid bodies
BLUE = (0.25, 0.5, 0.95)  # particles
BACKGROUND = (0.93, 0.95, 0.98)


def near(px, color, tol):
    return all(abs(px[k] - 255.0 * color[k]) <= tol for k in range(3))


def view(vkphys, args, env=None):
    run = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 640x480x24", vkphys,
                          "--validation", "view"] + args,
                         capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "VALIDATION ERROR" not in run.stderr, run.stderr
    return run


def main() -> int:
    vkphys, scenes, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)

    # No display: one line on stderr, nothing on stdout, exit status 2.
    headless = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    run = subprocess.run([vkphys, "view", str(scenes / "bounce.json"), "--frames", "1"],
                         capture_output=True, text=True, timeout=120, env=headless)
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert run.stdout == "", run.stdout
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and "no display" in lines[0], run.stderr
    print("without a display:", lines[0])

    try:
        from PIL import Image
    except ImportError:
        print("skipped: Pillow (python3-pil) is not installed")
        return SKIP
    if not shutil.which("xvfb-run"):
        print("skipped: xvfb-run is not installed (apt-get install xvfb xauth)")
        return SKIP
    missing = vulkan_missing(vkphys)
    if missing is not None:
        return missing

    # A lone sphere body in zero gravity, no planes, simulated on the CPU: orange centre,
    # background corners.
    sphere = {"format": "vkphys-scene", "version": 1, "name": "lone_sphere",
              "gravity": [0, 0, 0], "time_step": 1 / 60,
              "bodies": [{"shape": "sphere", "radius": 0.5, "position": [1, 2, 3], "mass": 1}]}
    (out / "lone_sphere.json").write_text(json.dumps(sphere))
    shot = out / "sphere.png"
    run = view(vkphys, [str(out / "lone_sphere.json"), "--backend", "cpu", "--frames", "1",
                        "--width", "160", "--height", "120", "--screenshot", str(shot)])
    assert "bodies 1 | particles 0" in run.stdout, run.stdout
    img = Image.open(shot).convert("RGB")
    assert img.size == (160, 120), img.size
    assert near(img.getpixel((80, 60)), ORANGE, 0.06 * 255), img.getpixel((80, 60))
    for corner in [(0, 0), (159, 0), (0, 119), (159, 119)]:
        assert near(img.getpixel(corner), BACKGROUND, 1), (corner, img.getpixel(corner))
    orange = sum(1 for px in img.getdata() if near(px, ORANGE, 0.3 * 255))
    assert orange > 200, f"only {orange} sphere pixels"

    # The shipped bounce scene on the GPU backend: its one particle, blue, at the centre.
    shot = out / "bounce.png"
    run = view(vkphys, [str(scenes / "bounce.json"), "--backend", "gpu", "--frames", "1",
                        "--width", "200", "--height", "150", "--screenshot", str(shot)])
    assert "bodies 0 | particles 1" in run.stdout, run.stdout
    img = Image.open(shot).convert("RGB")
    assert near(img.getpixel((100, 75)), BLUE, 0.06 * 255), img.getpixel((100, 75))

    # Live: 30 frames step the scene (real time, at most 4 steps a frame).
    run = view(vkphys, [str(scenes / "bounce.json"), "--backend", "cpu", "--frames", "30"])
    steps = int(re.search(r"step (\d+) \|", run.stdout).group(1))
    assert 1 <= steps <= 4 * 30, run.stdout
    print(f"screenshots checked; 30 frames took {steps} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
