#!/usr/bin/python3
"""`vkphys view`'s controls, driven as a user drives them: X keyboard and mouse events (xdotool,
through the XTEST extension) sent to its window on an X server in memory (Xvfb), read back from
the window's title (the status line: step count, paused) and from its screenshot at exit.

  space pauses (the step count holds), S and the right arrow take exactly one step each while
  paused, R restarts (step 0), space resumes, Q quits with status 0;
  the wheel zooms in (the sphere covers more pixels);
  a left drag on empty space orbits the camera (a particle beside the sphere moves across the
  picture while the sphere, at the orbit's target, stays at the centre);
  a left drag that starts on the sphere grabs it with the mouse spring and pulls it along (it
  leaves the centre of the picture in the drag's direction).

Usage: view_keys.py VKPHYS OUTDIR. Exits 77 (ctest: skipped) without Pillow, xvfb-run or
xdotool, or without a Vulkan device unless VKPHYS_REQUIRE_GPU=1."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cli_env import SKIP, vulkan_missing

ORANGE = (0.95, 0.55, 0.2)  # rigid bodies (host/gpu/scene_pass.cpp kind_color)
BLUE = (0.25, 0.5, 0.95)  # particles
W, H = 320, 240


def xdotool(*args, tries=1):
    """Runs xdotool; a command that fails is tried again (`tries` times in all, 0.5 s apart):
    under load xdotool has returned 1 with no message for a key sent to a live window."""
    for attempt in range(tries):
        run = subprocess.run(["xdotool"] + [str(a) for a in args], capture_output=True,
                             text=True, timeout=60)
        if run.returncode == 0:
            return run.stdout.strip()
        time.sleep(0.5)
    raise AssertionError(f"xdotool {' '.join(map(str, args))}: status {run.returncode} "
                         f"{tries} times: {run.stderr}")


class View:
    """One `vkphys view` on the CPU backend in a W x H window, until Q."""

    def __init__(self, vkphys, scene, shot):
        self.shot = shot
        self.proc = subprocess.Popen([vkphys, "view", str(scene), "--backend", "cpu",
                                      "--frames", "100000", "--width", str(W), "--height", str(H),
                                      "--screenshot", str(shot)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # By the scene's own name, which its window's title holds from the start: the window of
        # the View before may linger a moment after its process exits.
        self.window = xdotool("search", "--sync", "--onlyvisible", "--name", Path(scene).stem)
        self.window = self.window.split()[0]
        # With no window focused, xdotool's focus query fails (focus is PointerRoot) and some
        # of its commands exit 1 after they have done their work: give this window the focus.
        xdotool("windowfocus", self.window, tries=3)
        self.wait(lambda t: self.step(t) is not None, "a status line")

    def title(self):
        return xdotool("getwindowname", self.window, tries=3)

    @staticmethod
    def step(title):
        m = re.search(r": step (\d+) \|", title)
        return int(m.group(1)) if m else None

    def wait(self, ok, what, seconds=60.0):
        """Polls the title until ok(title); the title is refreshed every 250 ms."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = self.title()
            if ok(t):
                return t
            time.sleep(0.1)
        raise AssertionError(f"waited {seconds} s for {what}; title: {self.title()}")

    def settle(self):
        """Two title refreshes: what the last input did is in the title now."""
        time.sleep(0.8)
        return self.title()

    def key(self, name):
        xdotool("key", "--window", self.window, name)

    def drag(self, x0, y0, x1, y1):
        xdotool("mousemove", "--window", self.window, x0, y0, tries=3)
        time.sleep(0.3)
        xdotool("mousedown", 1)
        for k in range(1, 11):
            xdotool("mousemove", "--window", self.window, x0 + (x1 - x0) * k // 10,
                    y0 + (y1 - y0) * k // 10, tries=3)  # to a place: a retry is harmless
            time.sleep(0.05)
        time.sleep(1.0)  # held: a grab keeps pulling
        xdotool("mouseup", 1)

    def quit(self):
        assert self.proc.poll() is None, self.proc.communicate()
        # Q until the process exits. xdotool's own status is not the test: it has exited 1 for a
        # Q that was delivered, and a second Q then finds the window gone (BadWindow). Quitting
        # twice is quitting, so a retry cannot change what is tested.
        for attempt in range(5):
            subprocess.run(["xdotool", "key", "--window", self.window, "q"], capture_output=True,
                           timeout=60)
            try:
                out, err = self.proc.communicate(timeout=120 if attempt == 4 else 15)
                break
            except subprocess.TimeoutExpired:
                continue
        assert self.proc.returncode == 0, out + err
        from PIL import Image
        return Image.open(self.shot).convert("RGB"), out


def near(px, color, tol):
    return all(abs(px[k] - 255.0 * color[k]) <= tol for k in range(3))


def pixels(img, color):
    """The pixels of one object colour: their count and mean position."""
    xs, ys = [], []
    for y in range(img.size[1]):
        for x in range(img.size[0]):
            if near(img.getpixel((x, y)), color, 0.3 * 255):
                xs.append(x)
                ys.append(y)
    if not xs:
        return 0, None
    return len(xs), (sum(xs) / len(xs), sum(ys) / len(ys))


def scene(out, name, particles):
    """A sphere at the origin in zero gravity, seen from 6 m along +z, with particles."""
    s = {"format": "vkphys-scene", "version": 2, "name": name, "gravity": [0, 0, 0],
         "time_step": 1 / 60,
         "camera": {"position": [0, 0, 6], "target": [0, 0, 0]},
         "bodies": [{"shape": "sphere", "radius": 0.5, "position": [0, 0, 0], "mass": 1}]}
    if particles:
        s["particles"] = [{"type": "lattice", "origin": [1.5, 0, 0], "count": [1, 1, 1],
                           "spacing": 0.6, "radius": 0.25, "mass": 1}]
    path = out / f"{name}.json"
    path.write_text(json.dumps(s))
    return path


def inside(vkphys, out):
    keys = View(vkphys, scene(out, "test_keys", False), out / "keys.png")
    keys.wait(lambda t: (View.step(t) or 0) >= 5, "5 steps")
    keys.key("space")
    title = keys.settle()
    assert "paused" in title, title
    held = View.step(title)
    title = keys.settle()
    assert View.step(title) == held, (held, title)
    keys.key("s")
    assert View.step(keys.settle()) == held + 1
    keys.key("Right")
    assert View.step(keys.settle()) == held + 2
    keys.key("r")
    title = keys.settle()
    assert View.step(title) == 0 and "paused" in title, title
    keys.key("space")
    keys.wait(lambda t: (View.step(t) or 0) >= 3 and "paused" not in t, "running again")
    _, stdout = keys.quit()
    print(f"keys: paused at step {held}, S and the right arrow stepped to {held + 2}, "
          f"R restarted at 0; exit: {stdout.strip().splitlines()[-2]}")

    plain, _ = View(vkphys, scene(out, "test_plain", True), out / "plain.png").quit()
    n0, c0 = pixels(plain, ORANGE)
    b0, p0 = pixels(plain, BLUE)
    assert n0 > 100 and b0 > 20, (n0, b0)
    assert abs(c0[0] - W / 2) < 3 and abs(c0[1] - H / 2) < 3, c0

    zoom = View(vkphys, scene(out, "test_zoom", True), out / "zoom.png")
    for _ in range(5):
        xdotool("mousemove", "--window", zoom.window, 20, 20)
        xdotool("click", 4)  # wheel up: zoom in
    zoom.settle()
    img, _ = zoom.quit()
    n1, _ = pixels(img, ORANGE)
    print(f"zoom: sphere {n0} -> {n1} pixels")
    assert n1 > 1.5 * n0, (n0, n1)

    orbit = View(vkphys, scene(out, "test_orbit", True), out / "orbit.png")
    orbit.drag(20, 200, 120, 200)  # empty space, bottom left
    orbit.settle()
    img, _ = orbit.quit()
    _, c2 = pixels(img, ORANGE)
    _, p2 = pixels(img, BLUE)
    print(f"orbit: sphere at {c2}, particle {p0} -> {p2}")
    assert abs(c2[0] - W / 2) < 3 and abs(c2[1] - H / 2) < 3, c2
    assert p2 is None or abs(p2[0] - p0[0]) > 10, (p0, p2)

    grab = View(vkphys, scene(out, "test_grab", False), out / "grab.png")
    grab.drag(W // 2, H // 2, W // 2 + 60, H // 2)  # on the sphere, to the right
    grab.settle()
    img, _ = grab.quit()
    _, c3 = pixels(img, ORANGE)
    print(f"grab: sphere pulled from the centre to {c3}")
    assert c3 is None or c3[0] > W / 2 + 10, c3
    return 0


def main() -> int:
    vkphys, out = sys.argv[1], Path(sys.argv[2])
    if len(sys.argv) > 3 and sys.argv[3] == "--inside":
        return inside(vkphys, out)
    out.mkdir(parents=True, exist_ok=True)
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("skipped: Pillow (python3-pil) is not installed")
        return SKIP
    for tool, package in (("xvfb-run", "xvfb xauth"), ("xdotool", "xdotool")):
        if not shutil.which(tool):
            print(f"skipped: {tool} is not installed (apt-get install {package})")
            return SKIP
    missing = vulkan_missing(vkphys)
    if missing is not None:
        return missing
    run = subprocess.run(["xvfb-run", "-a", "-s", f"-screen 0 {W * 2}x{H * 2}x24", sys.executable,
                          __file__, vkphys, str(out), "--inside"],
                         capture_output=True, text=True, timeout=900)
    print(run.stdout + run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
