#!/usr/bin/python3
"""`vkphys run --vtk` read back by an independent reader (VTK's own vtkXMLPolyDataReader, Debian's
python3-vtk9): the .pvd series lists every saved frame at its time, and each .vtp holds a vertex
per particle, a surface mesh per rigid body and plane, a line per joint, a cloth's triangles as
polygons over its vertices' points (two per grid cell; the first over vertices (0, 0), (1, 0),
(1, 1), at the frame's CSV positions and, in the first frame, at the corners the scene file's
origin, u and v give), with the ids, radii, velocities and angular velocities of the frame's CSV
(written by a separate path) and every body's mesh centred on its position. `--vtk-contacts`: a 1 kg box and a 1 kg particle resting on
a plane give each saved step's contacts file as many points as that step's metrics row counts
(4 manifold points at the box's bottom corners, 1 particle contact under the particle), unit
normals along +y, the right body ids, and normal impulses >= 0 that hold each body up: a resting
body's impulses sum to m g h per step; a run stopped and resumed lists the same series.

Usage: vtk_readback.py VKPHYS SCENES_DIR OUTDIR. Exits 77 (ctest: skipped) without python3-vtk9."""
import csv
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cli_env import SKIP, vulkan_missing

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
    h = scene.get("time_step", 1 / 60)  # the format's default
    series = ET.parse(out / "run.pvd").getroot().findall("./Collection/DataSet")
    assert [d.get("file") for d in series] == [f"vtk/frame_{k:06d}.vtp" for k in (0, 10, 20)]
    for d, k in zip(series, (0, 10, 20)):
        assert abs(float(d.get("timestep")) - k * h) < 1e-6, (d.get("timestep"), k * h)

    bodies = scene.get("bodies", [])
    joints = scene.get("joints", [])
    planes = scene.get("planes", [])
    cloths = scene.get("cloths", [])
    assert not (cloths and scene.get("soft_bodies")), "the vertex numbering below is cloths only"
    triangles = sum(2 * (c["resolution"][0] - 1) * (c["resolution"][1] - 1) for c in cloths)
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
        faces = sum(FACES[b["shape"]] for b in bodies) + len(planes) + triangles
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
        if cloths:  # the triangles come first among the polygons, the first cloth's first
            c = cloths[0]
            nu, nv = c["resolution"]
            first = len(particles) - sum(x["resolution"][0] * x["resolution"][1] for x in cloths)
            polys = poly.GetPolys()
            polys.InitTraversal()
            tri = vtk.vtkIdList()
            assert polys.GetNextCell(tri) and tri.GetNumberOfIds() == 3
            want = [first, first + 1, first + nu + 1]
            assert [int(ids.GetValue(tri.GetId(e))) for e in range(3)] == want
            assert all(int(kinds.GetValue(tri.GetId(e))) == 0 for e in range(3))
            for e, (i, j) in enumerate(((0, 0), (1, 0), (1, 1))):
                x = poly.GetPoint(tri.GetId(e))
                row = particles[want[e]]
                assert close(x, [float(row[q]) for q in "xyz"], 1e-6), (k, e, x, row)
                if k == 0:  # where the generator put the vertex
                    at = [c["origin"][q] + i / (nu - 1) * c["u"][q] + j / (nv - 1) * c["v"][q]
                          for q in range(3)]
                    assert close(x, at, 1e-6), (e, x, at)
    print(f"{scene_file.name}: {len(series)} frames, {len(bodies)} bodies, {len(joints)} joints,"
          f" {poly.GetNumberOfVerts()} particles, {triangles} cloth triangles read back")


# A 1 kg cube of side 1 m and a 1 kg particle of radius 0.1 m resting on the plane y = 0.
RESTING = {
    "format": "vkphys-scene", "version": 2, "name": "resting_contacts",
    "planes": [{"normal": [0, 1, 0]}],
    "bodies": [{"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 0.5, 0],
                "mass": 1}],
    "particles": [{"type": "particle", "position": [2, 0.1, 0], "radius": 0.1, "mass": 1}],
}


def check_contacts(vkphys, out, vtk, backend, resumed):
    """`resumed`: the run stops at step 40 and `vkphys resume` takes it to 60 (the series then
    comes from the files on disk)."""
    out.mkdir(parents=True, exist_ok=True)
    scene_file = out / "resting.json"
    scene_file.write_text(json.dumps(RESTING))
    steps, every, h, g = 60, 20, 1 / 60, 9.81
    first = ["--steps", "40", "--checkpoint-every", "20"] if resumed else ["--steps", str(steps)]
    commands = [[vkphys, "run", str(scene_file), "--backend", backend, "--every", str(every),
                 "--out", str(out / "run"), "--vtk-contacts", "--force"] + first]
    if resumed:
        commands.append([vkphys, "resume", str(out / "run"), "--steps", str(steps)])
    for command in commands:
        run = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
    saved = list(range(0, steps + 1, every))
    series = ET.parse(out / "run" / "run.pvd").getroot().findall("./Collection/DataSet")
    listed = [(d.get("file"), d.get("part")) for d in series]
    assert listed == [x for k in saved for x in ((f"vtk/frame_{k:06d}.vtp", "0"),
                                                 (f"vtk/contacts_{k:06d}.vtp", "1"))], listed
    metrics = {int(r["step"]): r for r in csv.DictReader(open(out / "run" / "metrics.csv"))}
    box, plane, particle = 0, 1, 2  # world indices: bodies, planes, particles
    for k in saved:
        reader = vtk.vtkXMLPolyDataReader()
        reader.SetFileName(str(out / "run" / "vtk" / f"contacts_{k:06d}.vtp"))
        reader.Update()
        poly = reader.GetOutput()
        row = metrics[k]
        expected = int(row["points"]) + int(row["particle_contacts"])
        n = poly.GetNumberOfPoints()
        assert n == expected and poly.GetNumberOfVerts() == n, (k, n, expected)
        if k == 0:
            assert n == 0, n  # before the first step
            continue
        assert (int(row["points"]), int(row["particle_contacts"])) == (4, 1), row
        pd = poly.GetPointData()
        normal, impulse = pd.GetArray("normal"), pd.GetArray("normal_impulse")
        body_a, body_b = pd.GetArray("body_a"), pd.GetArray("body_b")
        sums = {}
        for i in range(n):
            nx, ny, nz = normal.GetTuple3(i)
            assert abs((nx * nx + ny * ny + nz * nz) ** 0.5 - 1) < 1e-5, (k, i, nx, ny, nz)
            lam = impulse.GetValue(i)
            assert lam >= 0, (k, i, lam)
            pair = {int(body_a.GetValue(i)), int(body_b.GetValue(i))}
            assert pair in ({box, plane}, {plane, particle}), (k, i, pair)
            # The normal points from body_a to body_b: up, out of the plane, or down into it.
            up = 1 if int(body_a.GetValue(i)) == plane else -1
            assert abs(ny - up) < 1e-5, (k, i, ny, up)
            x = poly.GetPoint(i)
            assert abs(x[1]) < 2e-3, (k, i, x)  # on the plane, within the solver's sinking
            if particle in pair:
                assert abs(x[0] - 2) < 1e-4 and abs(x[2]) < 1e-4, (k, i, x)
            else:  # a bottom corner of the box
                assert abs(abs(x[0]) - 0.5) < 1e-3 and abs(abs(x[2]) - 0.5) < 1e-3, (k, i, x)
            key = particle if particle in pair else box
            sums[key] = sums.get(key, 0) + lam
        for body, total in sums.items():  # each 1 kg body held up: m g h per step (measured
            # within 4e-5 of it from step 20 on, both backends)
            assert abs(total - g * h) < 1e-4 * g * h, (k, body, total, g * h)
        print(f"{backend}{' resumed' if resumed else ''} step {k}: {n} contacts, box {sums[box]:.6f} N s, particle "
              f"{sums[particle]:.6f} N s (m g h = {g * h:.6f})")


def main() -> int:
    try:
        import vtk
    except ImportError:
        print("skipped: python3-vtk9 is not installed")
        return SKIP
    vkphys, scenes, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    # boxes, capsules, a sphere, joints; particles; a cloth's triangles
    for name in ("ragdoll", "particle_bed", "cloth_drape"):
        check_run(vkphys, scenes / f"{name}.json", out / name, vtk)
    check_contacts(vkphys, out / "contacts_cpu", vtk, "cpu", False)
    check_contacts(vkphys, out / "contacts_cpu_resumed", vtk, "cpu", True)
    missing = vulkan_missing(vkphys)  # the GPU backend's too where there is a Vulkan device
    if missing is None:
        check_contacts(vkphys, out / "contacts_gpu", vtk, "gpu", False)
    elif missing != SKIP:
        return missing
    return 0


if __name__ == "__main__":
    sys.exit(main())
