"""The Python module: worlds from files and dicts, zero-copy NumPy views, results equal to the
`vkphys run` command line bit for bit, checkpoints, and misuse raising vkphys.Error.

Environment (tests/CMakeLists.txt sets it): PYTHONPATH holds the built module, VKPHYS_TOOL is the
vkphys command line, VKPHYS_SCENES the scenes/ folder.
"""
import csv
import math
import os
import subprocess

import numpy as np
import pytest

import vkphys

SCENES = os.environ["VKPHYS_SCENES"]
TOOL = os.environ["VKPHYS_TOOL"]


def gpu_or_skip():
    """A GPU World can be made here, or the test is skipped (failed if VKPHYS_REQUIRE_GPU=1)."""
    try:
        vkphys.World.from_file(os.path.join(SCENES, "bounce.json"), backend="gpu")
    except vkphys.Error as e:
        if os.environ.get("VKPHYS_REQUIRE_GPU") == "1":
            raise
        pytest.skip(str(e))


def cli_frame(scene, backend, steps, out):
    """The last frame `vkphys run` writes: (bodies, particles) as float32 columns."""
    subprocess.run([TOOL, "run", scene, "--backend", backend, "--steps", str(steps),
                    "--every", "0", "--out", str(out)], check=True, capture_output=True)
    with open(out / "frames" / f"frame_{steps:06d}.csv", newline="") as f:
        rows = list(csv.DictReader(f))

    def cols(kind, names):
        return np.array([[float(r[n]) for n in names] for r in rows if r["kind"] == kind],
                        dtype=np.float32).reshape(-1, len(names))

    bodies = {"x": cols("body", ["x", "y", "z"]), "q": cols("body", ["qx", "qy", "qz", "qw"]),
              "v": cols("body", ["vx", "vy", "vz"]), "w": cols("body", ["wx", "wy", "wz"])}
    particles = {"x": cols("particle", ["x", "y", "z"]), "v": cols("particle", ["vx", "vy", "vz"])}
    return bodies, particles


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("scene", ["stack_5.json", "particle_bed.json"])
def test_python_steps_what_vkphys_run_steps(scene, backend, tmp_path):
    if backend == "gpu":
        gpu_or_skip()
    path = os.path.join(SCENES, scene)
    w = vkphys.World.from_file(path, backend=backend)
    w.step(30)
    bodies, particles = cli_frame(path, backend, 30, tmp_path / "run")
    n = len(bodies["x"])  # the frame holds the scene's bodies, not the planes' static bodies
    assert n > 0
    # %.9g in the frame is exact for float32: equal bits, not a tolerance.
    np.testing.assert_array_equal(w.body_positions[:n, :3], bodies["x"])
    np.testing.assert_array_equal(w.body_orientations[:n], bodies["q"])
    np.testing.assert_array_equal(w.body_velocities[:n, :3], bodies["v"])
    np.testing.assert_array_equal(w.body_angular_velocities[:n, :3], bodies["w"])
    np.testing.assert_array_equal(w.particle_positions[:, :3], particles["x"])
    np.testing.assert_array_equal(w.particle_velocities[:, :3], particles["v"])


def box_on_plane(height):
    return {"format": "vkphys-scene", "version": 2, "name": "box_on_plane",
            "planes": [{"normal": [0, 1, 0], "offset": 0}],
            "bodies": [{"shape": "box", "half_extents": [0.5, 0.5, 0.5],
                        "position": [0, height, 0], "mass": 1}]}


def test_views_follow_the_state_without_copies():
    w = vkphys.World.from_dict(box_on_plane(3.0))
    x = w.body_positions
    address = x.__array_interface__["data"][0]
    assert not x.flags.writeable and not x.flags.owndata
    w.step(10)
    h = np.float32(1.0 / 60.0)
    # Semi-implicit Euler: y_k = y0 - g h^2 k (k + 1) / 2 while the box falls freely.
    assert x[0, 1] == pytest.approx(3.0 - 9.81 * float(h) ** 2 * 55, abs=2e-5)
    assert w.body_positions.__array_interface__["data"][0] == address
    del w  # the view keeps its World alive
    assert x[0, 1] < 3.0


def test_after_each_sees_every_step_and_an_exception_stops_there():
    scene = os.path.join(SCENES, "particle_bed.json")
    backends = ["cpu"]
    if os.environ.get("VKPHYS_REQUIRE_GPU") == "1":
        backends.append("gpu")
    for backend in backends:
        one = vkphys.World.from_file(scene, backend=backend)
        alone = []
        for _ in range(12):
            one.step()
            alone.append(one.particle_positions.copy())
        many = vkphys.World.from_file(scene, backend=backend)
        seen = []

        def each():
            seen.append(many.steps)
            assert np.array_equal(many.particle_positions, alone[many.steps - 1])
            if many.steps == 9:
                raise KeyError("stop here")

        with pytest.raises(KeyError, match="stop here"):
            many.step(30, each)
        assert seen == list(range(1, 10))
        assert many.steps == 9
        many.step(3)
        assert np.array_equal(many.particle_positions, alone[11])


def test_dict_json_and_file_agree():
    scene = box_on_plane(2.0)
    a = vkphys.World.from_dict(scene)
    import json
    b = vkphys.World.from_json(json.dumps(scene))
    a.step(90)
    b.step(90)
    assert a.compare(b)["max_pos"] == 0.0
    assert a.body_positions[0, 1] == pytest.approx(0.5, abs=1e-3)  # at rest on the plane
    assert a.contacts()["points"] == 4
    assert a.metrics()["potential"] == pytest.approx(9.81 * 0.5, abs=1e-2)


def test_written_state_is_what_the_step_starts_from():
    w = vkphys.World.from_dict(box_on_plane(2.0))
    moved = np.array(w.body_positions)  # a copy to edit
    moved[0, 0] = 0.25
    w.body_positions = moved
    assert w.body_positions[0, 0] == np.float32(0.25)
    assert w.body_positions[0, 3] == np.float32(1.0)  # 1/m stays
    other = vkphys.World.from_dict(box_on_plane(2.0))
    assert w.compare(other)["max_pos"] == pytest.approx(0.25)


def test_snapshot_resumes_bit_identically(tmp_path):
    a = vkphys.World.from_file(os.path.join(SCENES, "particle_bed.json"))
    a.step(20)
    snap = a.save()
    snap.write(tmp_path / "bed.snapshot")
    a.step(20)
    b = vkphys.World.load(vkphys.Snapshot.read(tmp_path / "bed.snapshot"))
    b.step(20)
    assert b.steps == 40
    for f in vkphys.Field.__members__.values():
        np.testing.assert_array_equal(a.state(f), b.state(f))


def test_misuse_raises_one_line_errors():
    with pytest.raises(vkphys.Error, match=r"^step: this World has no scene"):
        vkphys.World().step(1)
    w = vkphys.World.from_dict(box_on_plane(2.0))
    with pytest.raises(vkphys.Error,
                       match=r"^write\(body_position, 9\): index out of range \(2 bodies\)$"):
        w.write(vkphys.Field.body_position, 9, (0, 0, 0, 0))
    bad = np.array(w.body_positions)
    bad[0, 1] = math.nan
    with pytest.raises(vkphys.Error,
                       match=r"^write\(body_position, 0\): \(0, nan, 0, 1\) is not finite$"):
        w.body_positions = bad
    with pytest.raises(vkphys.Error, match=r"expected an array of shape \(n, 4\)"):
        w.body_velocities = np.zeros(3)
    with pytest.raises(IndexError):
        w.body_positions[5]
    with pytest.raises(ValueError):  # the views are read-only: writes go through the World
        w.body_positions[0, 0] = 1.0
    with pytest.raises(vkphys.Error, match=r"^<dict>: "):
        vkphys.World.from_dict({"format": "vkphys-scene", "version": 2, "bodies": [{"shape": "cube"}]})
    assert w.body_positions[0, 1] == np.float32(2.0)  # refused writes changed nothing


def test_sync_validation_checks_the_gpu_step():
    """sync_validation reaches the World (WorldOptions.sync_validation): the validation layer
    then checks every command's memory accesses, finds no hazard in the step, and leaves the
    step's bits alone (the reference runs under the plain layer). contacts() counts the kept
    manifolds among the manifolds. The process-wide count (validation_errors_reported) stays
    where it was."""
    gpu_or_skip()
    path = os.path.join(SCENES, "stack_5.json")
    before = vkphys.validation_errors_reported()
    try:
        checked = vkphys.World.from_file(path, backend="gpu", sync_validation=True)
    except vkphys.Error as e:
        if "VK_LAYER_KHRONOS_validation is not installed" in str(e):
            pytest.skip(str(e))
        raise
    plain = vkphys.World.from_file(path, backend="gpu", validation=True)
    checked.step(40)
    plain.step(40)
    assert checked.validation_errors == 0 and plain.validation_errors == 0
    assert vkphys.validation_errors_reported() == before
    for f in vkphys.Field.__members__.values():
        np.testing.assert_array_equal(checked.state(f), plain.state(f))
    c = checked.contacts()
    assert c["manifolds"] > 0 and c["manifolds"] >= c["reused_manifolds"]
    cpu = vkphys.World.from_file(path, sync_validation=True)  # the CPU backend ignores it
    cpu.step(1)
    assert cpu.validation_errors == 0


def test_gpu_devices_name_the_device_a_gpu_world_runs_on():
    """gpu_devices lists what `vkphys info` lists; the first (the default pick) is the one a GPU
    World without device= runs on, and device="0" picks it by index."""
    gpu_or_skip()
    devices = vkphys.gpu_devices()
    assert [d["index"] for d in devices] == list(range(len(devices)))
    first = devices[0]
    assert first["type"] in ("discrete", "integrated", "virtual", "cpu", "other")
    assert first["api_version"] >= (1, 1, 0) and first["max_workgroup_invocations"] >= 64
    info = subprocess.run([TOOL, "info"], capture_output=True, text=True, check=True).stdout
    assert all(d["name"] in info for d in devices)
    path = os.path.join(SCENES, "bounce.json")
    for world in (vkphys.World.from_file(path, backend="gpu"),
                  vkphys.World.from_file(path, backend="gpu", device="0")):
        assert world.backend_name == f"gpu ({first['name']})"


def test_pick_and_pull_grab_a_sphere_and_bring_it_to_the_target():
    """A 0.5 m sphere at rest in zero gravity, picked at its top from above (depth 9.5 m, the
    hit point (0, 0.5, 0) in its frame) and pulled to 2 m above its centre: the critically
    damped spring leaves it within 1 cm of 1.5 m after 2 s (16 time constants); a ray beside it
    picks nothing."""
    scene = {"format": "vkphys-scene", "version": 1, "name": "grab", "gravity": [0, 0, 0],
             "time_step": 1 / 60,
             "bodies": [{"shape": "sphere", "radius": 0.5, "position": [0, 0, 0], "mass": 2}]}
    w = vkphys.World.from_dict(scene)
    assert w.pick((0.6, 10.0, 0.0), (0.0, -1.0, 0.0)) is None
    grab = w.pick((0.0, 10.0, 0.0), (0.0, -2.0, 0.0))
    assert grab["particle"] is False and grab["index"] == 0
    assert grab["depth"] == pytest.approx(9.5, abs=1e-6)
    assert grab["local"] == pytest.approx((0.0, 0.5, 0.0), abs=1e-6)
    force = w.pull(grab, (0.0, 2.0, 0.0))
    assert force == pytest.approx((0.0, 2.0 * 64.0 * 1.5, 0.0), abs=1e-6)
    w.step()
    for _ in range(119):
        w.pull(grab, (0.0, 2.0, 0.0))
        w.step()
    assert w.body_positions[0, 1] == pytest.approx(1.5, abs=1e-2)
    with pytest.raises(vkphys.Error, match="out of range"):
        w.pull({"particle": True, "index": 0, "local": (0, 0, 0), "depth": 0}, (0, 0, 0))


def test_spring_stability_reports_the_bound_and_the_warning():
    """A pinned 1 kg bob on a force spring of 1600 N/m (omega 40 rad/s): symplectic Euler's
    bound is h omega < 2, so a 0.055 s step is past it and 2 substeps would hold it."""
    def scene(h, integrator):
        return {"format": "vkphys-scene", "version": 2, "gravity": [0, 0, 0], "time_step": h,
                "solver": {"integrator": integrator},
                "particles": [{"type": "particle", "position": [0, 0, 0], "radius": 0.05,
                               "static": True},
                              {"type": "particle", "position": [1.001, 0, 0], "radius": 0.05,
                               "mass": 1}],
                "springs": [{"particles": [0, 1], "k": 1600, "model": "force", "rest": 1}]}
    past = vkphys.World.from_dict(scene(0.055, "symplectic")).spring_stability()
    assert past["past"] and not past["assured"]
    assert math.isinf(past["mass_a"]) and past["mass_b"] == 1.0
    assert math.isclose(past["omega"], 40.0) and math.isclose(past["bound"], 0.05)
    assert past["substeps_needed"] == 2
    assert past["warning"].startswith("force spring 0 (k 1600 N/m")
    within = vkphys.World.from_dict(scene(0.045, "symplectic")).spring_stability()
    assert within["assured"] and within["warning"] == ""
    implicit = vkphys.World.from_dict(scene(0.055, "implicit")).spring_stability()
    assert not implicit["checked"] and implicit["warning"] == ""
