#!/usr/bin/python3
"""`vkphys render`: PNG frames a standard decoder (Pillow) opens, of the asked size, showing the
scene (not only background), changing as the run goes on; --video without ffmpeg says how to get
it. `vkphys run --png` draws the same picture of the same step as `vkphys render` (both frame the
loaded state, both simulate on the GPU backend).

Usage: render_cli.py VKPHYS SCENE OUTDIR. Exits 77 (ctest: skipped) without Pillow, or without a
Vulkan device unless VKPHYS_REQUIRE_GPU=1."""
import shutil
import subprocess
import sys
from pathlib import Path

from cli_env import SKIP, vulkan_missing


def main() -> int:
    vkphys, scene, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    try:
        from PIL import Image
    except ImportError:
        print("skipped: Pillow (python3-pil) is not installed")
        return SKIP
    missing = vulkan_missing(vkphys)
    if missing is not None:
        return missing
    run = subprocess.run([vkphys, "render", scene, "--frames", "3", "--every", "40", "--out",
                          str(out), "--width", "96", "--height", "64"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    frames = [Image.open(out / f"frame_{k:06d}.png").convert("RGB") for k in range(3)]
    background = frames[0].getpixel((0, 0))
    for f in frames:
        assert f.size == (96, 64), f.size
        drawn = sum(1 for px in f.getdata() if px != background)
        assert drawn > 96 * 64 // 50, f"only {drawn} pixels are not background"
    assert list(frames[0].getdata()) != list(frames[2].getdata()), "the scene moved"
    if not shutil.which("ffmpeg"):
        video = subprocess.run([vkphys, "render", scene, "--frames", "1", "--out", str(out),
                                "--width", "32", "--height", "32", "--video", str(out / "v.mp4")],
                               capture_output=True, text=True, timeout=600)
        assert video.returncode == 2 and "apt-get install ffmpeg" in video.stderr, video.stderr
    run_dir = out / "run"
    run = subprocess.run([vkphys, "run", scene, "--steps", "40", "--every", "0", "--out",
                          str(run_dir), "--force", "--png"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    picture = Image.open(run_dir / "last.png").convert("RGB")
    drawn = subprocess.run([vkphys, "render", scene, "--frames", "2", "--every", "40", "--out",
                            str(out / "full")], capture_output=True, text=True, timeout=600)
    assert drawn.returncode == 0, drawn.stdout + drawn.stderr
    frame = Image.open(out / "full" / "frame_000001.png").convert("RGB")
    assert picture.size == frame.size == (640, 480), (picture.size, frame.size)
    differ = sum(1 for a, b in zip(picture.getdata(), frame.getdata()) if a != b)
    assert differ <= 640 * 480 // 1000, f"{differ} pixels differ from render's frame of step 40"
    assert sum(1 for px in picture.getdata() if px != background) > 640 * 480 // 50
    print(f"3 frames decoded; run --png matches render's step 40 ({differ} pixels differ)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
