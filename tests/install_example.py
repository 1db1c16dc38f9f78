#!/usr/bin/env python3
"""Installs vkphys into a temporary prefix, builds examples/ against the installed package in a
fresh build tree (find_package(vkphys CONFIG)) and once more with pkg-config alone, runs them and
checks the physics they print: hello_world's box falls freely, exactly as semi-implicit Euler
does, then rests on the plane; the pyramid stands; the fountain's particles rise exactly to the
step's ballistic apex; the cloth falls as one particle and drapes over its ball. Then the
installed Python module steps a fall from its install folder.

usage: install_example.py CMAKE BUILD_DIR EXAMPLES_DIR WORK_DIR CXX [CXX_FLAGS]
CXX, CXX_FLAGS: the library's own compiler and CMAKE_CXX_FLAGS (the asan preset's clang and
sanitizers), which a program linking a sanitized libvkphys needs too.
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys


def run(*cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def check_hello(out, how):
    """Free fall y_k = y0 - g h^2 k (k + 1) / 2 while clear of the plane, then rest at 0.5 m."""
    y0, g, h, half = 3.0, 9.81, f32(1.0 / 60.0), 0.5
    rows = [(int(k), float(y)) for k, y in re.findall(r"^step (\d+) height (\S+)$", out, re.M)]
    if len(rows) != 30:
        sys.exit(f"{how}: expected 30 heights, got {len(rows)}:\n{out}")
    falling = 0
    for k, y in rows:
        closed = y0 - g * h * h * k * (k + 1) / 2.0
        if closed - half > 0.2:  # well clear of the plane
            falling += 1
            if abs(y - closed) > 5e-5:
                sys.exit(f"{how}: step {k}: height {y}, free fall gives {closed:.6f}")
        elif y < half - 0.15:
            sys.exit(f"{how}: step {k}: height {y}: the box sank into the plane")
    k, y = rows[-1]
    if falling < 5 or abs(y - half) > 1e-3:
        sys.exit(f"{how}: {falling} free-fall rows; at step {k} height {y}, resting gives {half}")
    print(f"{how}: {falling} free-fall heights within 5e-5 m of the closed form, "
          f"rest at {y:.6f} m after {k} steps")


def check_cloth(out):
    """The cloth's centre falls as one particle under symplectic Euler with s substeps,
    y = y0 - g (h/s)^2 n (n + 1) / 2 after n = s k substeps, until it nears the ball; then it
    drapes: its top within 5 mm of the ball's top, no vertex 2 mm into the ball, and less than
    1e-3 of the energy the drop released still moving."""
    y0, g = 2.0, 9.81
    h, s = (float(x) for x in re.search(r"time step (\S+) s, (\d+) substeps", out).groups())
    h = f32(h)
    rows = [(int(k), float(y)) for k, y in re.findall(r"^step (\d+) centre height (\S+)$", out,
                                                      re.M)]
    if len(rows) < 3:
        sys.exit(f"cloth: expected free-fall rows:\n{out}")
    for k, y in rows:
        n = s * k
        closed = y0 - g * (h / s) ** 2 * n * (n + 1) / 2.0
        if abs(y - closed) > 5e-5:
            sys.exit(f"cloth: step {k}: centre height {y}, free fall gives {closed:.6f}")
    top, ball_top = (float(x) for x in re.search(
        r"highest vertex (\S+) m, ball top \+ vertex radius (\S+) m", out).groups())
    deep, kinetic, released = (float(x) for x in re.search(
        r"deepest into the ball (\S+) m, kinetic energy (\S+) J of (\S+) J released",
        out).groups())
    if abs(top - ball_top) > 5e-3 or deep > 2e-3 or kinetic > 1e-3 * released:
        sys.exit(f"cloth: top {top} m against the ball's {ball_top} m, {deep} m deep, "
                 f"kinetic {kinetic} J of {released} J released\n{out}")
    print(f"cloth: {len(rows)} free-fall heights within 5e-5 m; draped with its top "
          f"{ball_top - top:.4f} m below the ball's, {deep:.2e} m deep, {kinetic:.1e} J moving")


def check_python(prefix, cxx_flags):
    """The installed module (lib/python3.X/dist-packages under the prefix) imports with its
    folder on the path and no library path (its RPATH finds libvkphys) and steps a falling sphere
    exactly as semi-implicit Euler does; under the default prefix /usr/local that folder is on
    python3's own path."""
    found = glob.glob(os.path.join(prefix, "lib", "python3.*", "dist-packages", "vkphys*.so"))
    if not found:
        if "-fsanitize" in cxx_flags:  # the module is not built with the sanitizers
            print("python: not built in this preset")
            return
        sys.exit(f"python: no vkphys module installed under {prefix}")
    folder = os.path.dirname(found[0])
    if not os.path.exists(os.path.join(folder, "vkphys.pyi")):
        sys.exit(f"python: no vkphys.pyi beside {found[0]}")
    code = ("import vkphys\n"
            "w = vkphys.World.from_json('{\"format\": \"vkphys-scene\", \"version\": 2, "
            "\"name\": \"fall\", \"gravity\": [0, -9.81, 0], \"time_step\": 0.0166666675, "
            "\"bodies\": [{\"shape\": \"sphere\", \"radius\": 0.5, \"position\": [0, 3, 0], "
            "\"mass\": 1}]}')\n"
            "w.step(10)\n"
            "print(float(w.state(vkphys.Field.body_position)[0, 1]))\n")
    env = dict(os.environ, PYTHONPATH=folder)
    env.pop("LD_LIBRARY_PATH", None)
    y = float(run(sys.executable, "-c", code, env=env))
    h = f32(1.0 / 60.0)
    closed = 3.0 - 9.81 * h * h * 10 * 11 / 2.0
    if abs(y - closed) > 5e-5:
        sys.exit(f"python: height {y} after 10 steps, free fall gives {closed:.6f}")
    relative = os.path.relpath(folder, prefix)
    default = os.path.join("/usr/local", relative)
    if default not in run(sys.executable, "-c", "import sys; print(sys.path)"):
        sys.exit(f"python: {default} is not on {sys.executable}'s path")
    print(f"python: the installed module ({relative}) steps the fall to {y:.6f} m "
          f"(closed form {closed:.6f}); {default} is on python3's path")


def main():
    cmake, build, examples, work, cxx = sys.argv[1:6]
    cxx_flags = sys.argv[6] if len(sys.argv) > 6 else ""
    shutil.rmtree(work, ignore_errors=True)
    prefix = os.path.join(work, "prefix")
    run(cmake, "--install", build, "--prefix", prefix)
    tree = os.path.join(work, "build")
    run(cmake, "-S", examples, "-B", tree, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_CXX_COMPILER={cxx}",
        f"-DCMAKE_CXX_FLAGS={cxx_flags}")
    run(cmake, "--build", tree)
    check_hello(run(os.path.join(tree, "hello_world"), "cpu"), "find_package build")

    pyramid = run(os.path.join(tree, "pyramid"), "cpu")
    moved = float(re.search(r"the top box moved (\S+) m", pyramid).group(1))
    if abs(moved) > 0.01:
        sys.exit(f"pyramid: the top box moved {moved} m: the pyramid fell\n{pyramid}")
    print(f"pyramid: the top box moved {moved:.2e} m in 4 s")

    fountain = run(os.path.join(tree, "fountain"), "cpu")
    high, apex = (float(x) for x in re.search(
        r"highest point (\S+) m, symplectic Euler apex (\S+) m", fountain).groups())
    flying = [int(n) for n in re.findall(r"(\d+) in the air", fountain)]
    if abs(high - apex) > 1e-3 or not flying or min(flying) < 50:
        sys.exit(f"fountain: highest {high} m against the step's apex {apex} m, in the air "
                 f"{flying}\n{fountain}")
    print(f"fountain: highest point {high} m, the step's apex {apex} m, {min(flying)}-"
          f"{max(flying)} particles in the air")

    check_cloth(run(os.path.join(tree, "cloth"), "cpu"))

    # pkg-config alone: the .pc file finds its prefix from its own place.
    pc_dirs = [os.path.join(root, d) for root, dirs, _ in os.walk(prefix) for d in dirs
               if d == "pkgconfig"]
    env = dict(os.environ, PKG_CONFIG_PATH=":".join(pc_dirs))
    flags = run("pkg-config", "--cflags", "--libs", "vkphys", env=env).split()
    libdir = next(f[2:] for f in flags if f.startswith("-L"))
    exe = os.path.join(work, "hello_pc")
    run(cxx, *cxx_flags.split(), os.path.join(examples, "hello_world.cpp"), "-o", exe, *flags,
        f"-Wl,-rpath,{libdir}", env=env)
    check_hello(run(exe, "cpu"), "pkg-config build")

    check_python(prefix, cxx_flags)


if __name__ == "__main__":
    main()
