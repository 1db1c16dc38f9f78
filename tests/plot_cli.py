#!/usr/bin/python3
"""`vkphys plot RUN_DIR`: a run's metrics as SVG figures. Runs a scene with joints and contacts
on the CPU backend, plots it, and reads the SVGs back as XML: every figure is there, each series
has a point per metrics row, and the joint-error and penetration series hold the run's values.
A folder without metrics.csv is refused with a message naming the file; a torn last row (a killed
run) is left out with a note, a short row elsewhere is refused naming its line. `vkphys bench --plot`
(CPU backend, two small pyramids): a figure per workload, backend and scheme with every stage
and the whole step against size.

Usage: plot_cli.py VKPHYS SCENE OUTDIR."""
import csv
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"svg": "http://www.w3.org/2000/svg"}
FIGURES = {"energy": ["kinetic", "potential", "energy"], "momentum": ["px", "py", "pz"],
           "angular_momentum": ["lx", "ly", "lz"],
           "penetration": ["max_penetration", "max_rigid_penetration", "mean_rigid_penetration"],
           "joint_error": ["max_joint_error", "mean_joint_error"],
           "spring_strain": ["max_spring_strain", "mean_spring_strain"],
           "solver_work": ["cg_iterations", "ode_steps", "ode_redos"],
           "solver_error": ["cg_residual", "ode_error"],
           "solver_residual": ["solver_residual", "solver_residual_angular"],
           "contacts": ["pairs", "manifolds", "reused_manifolds", "points", "particle_contacts"],
           "colors": ["colors", "overflow_units", "regrows"], "step_ms": ["step_ms"]}


def main() -> int:
    vkphys, scene, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    steps = 40
    run = subprocess.run([vkphys, "run", scene, "--backend", "cpu", "--steps", str(steps),
                          "--out", str(out), "--force"],  # the folder outlives a ctest run
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = list(csv.DictReader(open(out / "metrics.csv")))
    assert len(rows) == steps + 1
    assert max(float(r["max_joint_error"]) for r in rows) > 0.0, "a rag-doll's joints give"
    assert max(float(r["max_rigid_penetration"]) for r in rows) > 0.0, "it lands on the floor"
    plot = subprocess.run([vkphys, "plot", str(out)], capture_output=True, text=True, timeout=60)
    assert plot.returncode == 0, plot.stdout + plot.stderr
    for name, series in FIGURES.items():
        path = out / "plots" / f"{name}.svg"
        assert str(path) in plot.stdout.split("\n"), (path, plot.stdout)
        svg = ET.parse(path).getroot()
        lines = svg.findall("svg:polyline", NS)
        labels = [t.text for t in svg.findall("svg:text", NS)]
        assert len(lines) == len(series), (name, len(lines))
        for label, line in zip(series, lines):
            assert label in labels, (name, label)
            assert len(line.get("points").split()) == steps + 1, (name, label)
    bad = subprocess.run([vkphys, "plot", str(out / "plots")], capture_output=True, text=True)
    assert bad.returncode == 2 and "metrics.csv" in bad.stderr, bad.stderr
    # A run killed while writing a row leaves it without its line end: left out, with a note.
    # A short row anywhere else is an error naming its line.
    text = (out / "metrics.csv").read_text()
    torn = out / "torn"
    torn.mkdir(exist_ok=True)
    (torn / "metrics.csv").write_text(text + text.splitlines()[-1][:20])
    plot = subprocess.run([vkphys, "plot", str(torn)], capture_output=True, text=True)
    assert plot.returncode == 0, plot.stdout + plot.stderr
    assert f"line {steps + 3}: an incomplete last row" in plot.stderr, plot.stderr
    svg = ET.parse(torn / "plots" / "energy.svg").getroot()
    assert all(len(line.get("points").split()) == steps + 1
               for line in svg.findall("svg:polyline", NS))
    lines = text.splitlines(keepends=True)
    lines[5] = lines[5][:20] + "\n"
    (torn / "metrics.csv").write_text("".join(lines))
    short = subprocess.run([vkphys, "plot", str(torn)], capture_output=True, text=True)
    assert short.returncode == 2 and "metrics.csv line 6: " in short.stderr, short.stderr
    bench = subprocess.run([vkphys, "bench", "pyramid", "--sizes", "3,5", "--steps", "2",
                            "--warmup", "1", "--backend", "cpu", "--plot", str(out / "bench")],
                           capture_output=True, text=True, timeout=600)
    assert bench.returncode == 0, bench.stdout + bench.stderr
    path = out / "bench" / "bench_pyramid_cpu_colored.svg"
    assert f"plot: {path}" in bench.stdout, bench.stdout
    svg = ET.parse(path).getroot()
    labels = [t.text for t in svg.findall("svg:text", NS)]
    assert "pyramid: cpu backend, colored" in labels, labels
    lines = svg.findall("svg:polyline", NS)
    stages = ["setup", "broadphase", "narrowphase", "coloring", "predict", "prepare", "solve",
              "integrate", "wall"]
    assert len(lines) == len(stages) and all(s in labels for s in stages), labels
    # A stage that takes no time at some size (0 ms) is left off the log axis: at most 2 points.
    assert all(len(line.get("points").split()) <= 2 for line in lines)
    assert len(lines[-1].get("points").split()) == 2, "the whole step at both sizes"
    print(f"{len(FIGURES)} figures of {steps + 1} rows; bench: {len(lines)} series")
    return 0


if __name__ == "__main__":
    sys.exit(main())
