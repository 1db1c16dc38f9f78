#!/usr/bin/python3
"""docs/tutorial.md runs as written: every ```sh block, in order, in one empty folder, with the
build's vkphys first on PATH; each must exit 0, and every file the "Files:" line after it names
must then exist and hold what its kind says (a PNG's signature, an XML root, a CSV header, an
HTML page). The tutorial must cover a scene file, run, render, --vtk, plot and compare.

Usage: tutorial_cli.py VKPHYS TUTORIAL.md OUTDIR. Exits 77 (ctest: skipped) without a Vulkan
device (the tutorial uses the GPU backend) unless VKPHYS_REQUIRE_GPU=1."""
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cli_env import vulkan_missing


def steps(text):
    """(shell text, [files]) per ```sh block, the files from the first "Files:" paragraph after
    it (before the next block)."""
    out = []
    blocks = list(re.finditer(r"^```sh\n(.*?)^```$", text, re.M | re.S))
    for i, b in enumerate(blocks):
        end = blocks[i + 1].start() if i + 1 < len(blocks) else len(text)
        after = text[b.end():end]
        m = re.search(r"^Files: (.*?)(?:\n\n|\Z)", after, re.M | re.S)
        assert m, f"block {i} has no Files: line after it:\n{b.group(1)}"
        out.append((b.group(1), re.findall(r"`([^`]+)`", m.group(1))))
    return out


def check_file(path):
    assert path.is_file() and path.stat().st_size > 0, f"{path} is missing or empty"
    data = path.read_bytes()
    if path.suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n"), path
    elif path.suffix in (".vtp", ".pvd", ".svg"):
        ET.fromstring(data)  # well-formed XML
    elif path.suffix == ".csv":
        assert data.split(b"\n", 1)[0].count(b",") >= 3, path
    elif path.suffix == ".html":
        assert b"<html" in data.lower(), path
    elif path.suffix == ".json":
        json.loads(data)


def main() -> int:
    vkphys, doc, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]), Path(sys.argv[3])
    missing = vulkan_missing(str(vkphys))
    if missing is not None:
        return missing
    shutil.rmtree(out, ignore_errors=True)  # the tutorial starts in an empty folder
    out.mkdir(parents=True)
    env = dict(os.environ, PATH=f"{vkphys.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    blocks = steps(doc.read_text())
    shell = "\n".join(code for code, _ in blocks)
    for needed in ("cat > ", "vkphys run ", "vkphys render ", "--vtk", "vkphys plot ",
                   "vkphys compare "):
        assert needed in shell, f"the tutorial has no `{needed.strip()}`"
    for code, files in blocks:
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", code], cwd=out, env=env,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, f"{code}\nexit {run.returncode}\n{run.stdout}{run.stderr}"
        for f in files:
            check_file(out / f)
        print(f"ran `{code.splitlines()[0]}`: {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
