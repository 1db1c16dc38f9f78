#!/usr/bin/env python3
"""Runs a scene with the vkphys Python module and plots its energy over time with matplotlib.

usage: plot_energy.py [SCENE] [--steps N] [--backend cpu|gpu] [--out energy.png]

The default scene is scenes/bounce.json: a ball dropped on a floor with restitution 0.8. Its
total energy is flat while it flies and drops at each bounce; Newton's law makes each apex
e^2 = 0.64 of the one before (measured from the lowest the ball went), which the script prints.
Needs PYTHONPATH to hold the built module (build/ci/python, see README) and python3-matplotlib.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import numpy as np  # noqa: E402

import vkphys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCENE = os.path.join(HERE, "..", "scenes", "bounce.json")


def energy_series(scene, steps, backend="cpu"):
    """Time, kinetic, potential and total energy [J] at each step (step 0 included)."""
    world = vkphys.World.from_file(scene, backend=backend)
    rows = []
    for _ in range(steps + 1):
        m = world.metrics()
        rows.append((world.time, m["kinetic"], m["potential"]))
        world.step()
    t, kinetic, potential = (np.array(c) for c in zip(*rows))
    return t, kinetic, potential, kinetic + potential


def apexes(potential):
    """The potential energy at the start and at each later apex (a local maximum), measured
    from the lowest the run went (about the resting level)."""
    rest = potential.min()
    tops = [potential[0] - rest]
    for k in range(1, len(potential) - 1):
        if potential[k - 1] <= potential[k] > potential[k + 1]:
            tops.append(potential[k] - rest)
    return tops


def plot(t, kinetic, potential, total, out, title):
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.plot(t, kinetic, label="kinetic")
    ax.plot(t, potential, label="potential")
    ax.plot(t, total, label="total", color="black", linewidth=2)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("energy [J]")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scene", nargs="?", default=DEFAULT_SCENE)
    ap.add_argument("--steps", type=int, default=720)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--out", default="energy.png")
    args = ap.parse_args(argv)
    try:
        t, kinetic, potential, total = energy_series(args.scene, args.steps, args.backend)
    except vkphys.Error as e:
        sys.exit(f"plot_energy.py: {e}")
    plot(t, kinetic, potential, total, args.out, os.path.basename(args.scene))
    tops = apexes(potential)
    for k in range(1, len(tops)):
        print(f"apex {k}: {tops[k]:.4f} J above rest, {tops[k] / tops[k - 1]:.4f} of the one "
              f"before")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
