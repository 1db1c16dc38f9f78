#!/usr/bin/python3
"""`vkphys run --vtk` read back by an independent reader (VTK's own vtkXMLPolyDataReader, Debian's
python3-vtk9): the .pvd series lists every saved frame at its time, and each .vtp holds a vertex
per particle, a surface mesh per rigid body and plane, a line per joint, with the ids, radii,
velocities and angular velocities of the frame's CSV (written by a separate path) and every
body's mesh centred on its position.

Usage: vtk_readback.py VKPHYS SCENES_DIR OUTDIR. Exits 77 (ctest: skipped) without python3-vtk9."""
import csv
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cli_env import SKIP

# Faces per shape: a box's 6 quads; spheres and capsules are 8 rings x 12 segments
# (host/io/vtk_output.h), a capsule with one more ring (the cylinder); a plane is one quad.
FACES = {"box": 6, "sphere": 12 + 6 * 12 + 12, "capsule": 12 + 7 * 12 + 12, "none": 0}


def close(a, b, tol):
    return all(abs(x - y) <= tol * max(1.0, abs(y)) for x, y in zip(a, b))


def check_run(vkphys, scene_file, out, vtk):
    steps, every = 20, 10
    run = subprocess.run([vkphys, "run", str(scene_file), "--backend", "cpu", "--steps",
                          str(steps), "--every", str(every), "--out", str(out), "--vtk",
                          "--force"],  # the folder outlives a ctest run
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    scene = json.loads(scene_file.read_text())
    h = scene["time_step"]
    series = ET.parse(out / "run.pvd").getroot().findall("./Collection/DataSet")
    assert [d.get("file") for d in series] == [f"vtk/frame_{k:06d}.vtp" for k in (0, 10, 20)]
    for d, k in zip(series, (0, 10, 20)):
        assert abs(float(d.get("timestep")) - k * h) < 1e-6, (d.get("timestep"), k * h)

    bodies = scene.get("bodies", [])
    joints = scene.get("joints", [])
    planes = scene.get("planes", [])
    for d, k in zip(series, (0, 10, 20)):
        reader = vtk.vtkXMLPolyDataReader()
        reader.SetFileName(str(out / d.get("file")))
        reader.Update()
        poly = reader.GetOutput()
        rows = list(csv.DictReader(open(out / "frames" / f"frame_{k:06d}.csv")))
        particles = [r for r in rows if r["kind"] == "particle"]
        body_rows = [r for r in rows if r["kind"] == "body"]
        assert poly.GetNumberOfVerts() == len(particles), (poly.GetNumberOfVerts(), len(particles))
        assert poly.GetNumberOfLines() == len(joints)
        faces = sum(FACES[b["shape"]] for b in bodies) + len(planes)
        assert poly.GetNumberOfPolys() == faces, (poly.GetNumberOfPolys(), faces)
        pd = poly.GetPointData()
        ids, kinds = pd.GetArray("id"), pd.GetArray("kind")
        radius, vel, omega = pd.GetArray("radius"), pd.GetArray("velocity"), pd.GetArray(
            "angular_velocity")
        surfaces = {}  # body id -> its points
        seen = set()
        for i in range(poly.GetNumberOfPoints()):
            kind, pid = int(kinds.GetValue(i)), int(ids.GetValue(i))
            x = poly.GetPoint(i)
            if kind == 0:  # particle: position, radius, velocity, id as the CSV row
                row = particles[pid]
                assert int(row["id"]) == pid
                assert close(x, [float(row[c]) for c in "xyz"], 1e-6), (x, row)
                assert abs(radius.GetValue(i) - float(row["radius"])) < 1e-7
                assert close(vel.GetTuple3(i), [float(row[c]) for c in ("vx", "vy", "vz")], 1e-6)
                seen.add(pid)
            elif kind == 1:
                surfaces.setdefault(pid, []).append(x)
                row = body_rows[pid]
                assert close(vel.GetTuple3(i), [float(row[c]) for c in ("vx", "vy", "vz")], 1e-6)
                assert close(omega.GetTuple3(i), [float(row[c]) for c in ("wx", "wy", "wz")],
                             1e-6)
        assert seen == set(range(len(particles)))
        meshed = [i for i, b in enumerate(bodies) if FACES[b["shape"]] > 0]
        assert sorted(surfaces) == meshed, (sorted(surfaces), meshed)
        for b, pts in surfaces.items():  # every mesh is symmetric about its body's centre
            centre = [sum(p[c] for p in pts) / len(pts) for c in range(3)]
            row = body_rows[b]
            assert close(centre, [float(row[c]) for c in "xyz"], 1e-5), (b, centre, row)
        lines = poly.GetLines()
        lines.InitTraversal()
        ends = vtk.vtkIdList()
        for j in range(len(joints)):
            assert lines.GetNextCell(ends) and ends.GetNumberOfIds() == 2
            assert {int(ids.GetValue(ends.GetId(0))), int(ids.GetValue(ends.GetId(1)))} == {j}
            assert all(int(kinds.GetValue(ends.GetId(e))) == 2 for e in (0, 1))
            if joints[j]["type"] in ("ball", "hinge"):  # the two world anchors meet
                a, b = poly.GetPoint(ends.GetId(0)), poly.GetPoint(ends.GetId(1))
                assert sum((x - y) ** 2 for x, y in zip(a, b)) ** 0.5 < 0.05, (j, a, b)
    print(f"{scene_file.name}: {len(series)} frames, {len(bodies)} bodies, {len(joints)} joints,"
          f" {poly.GetNumberOfVerts()} particles read back")


def main() -> int:
    try:
        import vtk
    except ImportError:
        print("skipped: python3-vtk9 is not installed")
        return SKIP
    vkphys, scenes, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    for name in ("ragdoll", "particle_bed"):  # boxes, capsules, a sphere, joints; particles
        check_run(vkphys, scenes / f"{name}.json", out / name, vtk)
    return 0


if __name__ == "__main__":
    sys.exit(main())
