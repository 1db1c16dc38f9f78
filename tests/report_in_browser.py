#!/usr/bin/python3
"""The compare report opens in a real browser: `vkphys compare` writes it, headless Chromium
renders it to a PNG, and the picture shows the verdict box in its colour and the plots' lines.

Usage: report_in_browser.py VKPHYS SCENE OUTDIR. Exits 77 (ctest: skipped) without chromium or
Pillow (scripts/setup.sh installs both), or without a Vulkan device unless VKPHYS_REQUIRE_GPU=1."""
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cli_env import SKIP, vulkan_missing


def main() -> int:
    vkphys, scene, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from PIL import Image
    except ImportError:
        print("skipped: Pillow (python3-pil) is not installed")
        return SKIP
    if not browser:
        print("skipped: chromium is not installed")
        return SKIP
    missing = vulkan_missing(vkphys)
    if missing is not None:
        return missing
    out.mkdir(parents=True, exist_ok=True)
    report = out / "report.html"
    run = subprocess.run([vkphys, "compare", scene, "--steps", "30", "--report", str(report)],
                         capture_output=True, text=True, timeout=600)
    print(run.stdout[-2000:], run.stderr[-2000:])
    assert run.returncode == 0, f"vkphys compare exited {run.returncode}"
    assert f"report: {report}" in run.stdout

    # Well-formed (the page is written as XHTML-compatible HTML), with its parts.
    root = ET.parse(report).getroot()
    ns = {"svg": "http://www.w3.org/2000/svg"}
    svgs = root.findall(".//svg:svg", ns)
    assert len(svgs) == 8, f"{len(svgs)} figures (4 rigid-body errors, 4 energy and momentum)"
    verdict = root.find(".//*[@id='verdict']")
    assert verdict is not None and verdict.text.startswith("OK: "), verdict
    assert "ok" in verdict.get("class").split()
    for svg in svgs:
        lines = svg.findall("svg:polyline", ns)
        assert lines and all(len(p.get("points").split()) >= 2 for p in lines), "empty plot"

    png = out / "report.png"
    shot = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", "--window-size=1400,2600",
                           f"--screenshot={png}", report.resolve().as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert shot.returncode == 0 and png.exists(), shot.stderr[-2000:]
    img = Image.open(png).convert("RGB")
    assert img.size == (1400, 2600), img.size
    top = img.crop((0, 0, 1400, 300))
    colours = {c for _, c in top.getcolors(1400 * 300)}
    # The verdict box: the OK border #2ca02c and background #e6f4e6 (anti-aliasing aside).
    assert (0x2C, 0xA0, 0x2C) in colours, "no green verdict border in the page's top"
    assert (0xE6, 0xF4, 0xE6) in colours, "no green verdict background in the page's top"
    # The plots: the compared backend's line (#1f77b4) and the envelope's (#2ca02c) somewhere.
    counts = {c: n for n, c in img.getcolors(1400 * 2600)}
    assert counts.get((0x1F, 0x77, 0xB4), 0) > 200, "no plotted GPU line"
    assert counts.get((0xFF, 0x7F, 0x0E), 0) > 200, "no plotted CPU line (energy, momentum)"
    print(f"report rendered: {png} ({len(svgs)} figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
