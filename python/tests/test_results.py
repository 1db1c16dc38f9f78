"""World.statistics, World.constraint_errors, World.render and the built-in scenes from Python:
the numbers are the ones `vkphys run` writes to metrics.csv for the same scene and steps, the
picture is the one `vkphys render` draws, pixel for pixel, and a built-in scene is the one
`vkphys export-scene` writes.

Environment as test_vkphys.py's (tests/CMakeLists.txt sets it).
"""
import csv
import os
import subprocess

import numpy as np
import pytest

import vkphys

SCENES = os.environ["VKPHYS_SCENES"]
TOOL = os.environ["VKPHYS_TOOL"]


def metrics_row(scene, steps, out):
    """metrics.csv's row for step `steps` of `vkphys run` on the CPU."""
    subprocess.run([TOOL, "run", scene, "--backend", "cpu", "--steps", str(steps), "--every",
                    "0", "--out", str(out)], check=True, capture_output=True)
    with open(out / "metrics.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if int(r["step"]) == steps]
    assert len(rows) == 1
    return rows[0]


@pytest.mark.parametrize("scene,measure", [("ragdoll.json", "max_joint_error"),
                                           ("rope_box.json", "max_spring_strain")])
def test_statistics_and_constraint_errors_are_vkphys_runs(scene, measure, tmp_path):
    path = os.path.join(SCENES, scene)
    w = vkphys.World.from_file(path, record_contacts=True)
    w.step(30)
    row = metrics_row(path, 30, tmp_path / "run")
    errors = w.constraint_errors()
    assert errors[measure] > 0  # the scene has what the comparison is about
    for name, value in errors.items():
        # metrics.csv holds %.9g of the double.
        assert value == pytest.approx(float(row[name]), rel=1e-8, abs=1e-12), name
    stats = w.statistics()
    for name in ("colors", "overflow_units", "regrows", "cg_iterations", "cg_unmet", "ode_steps",
                 "ode_redos"):
        assert stats[name] == int(row[name]), name
    for name in ("solver_residual", "solver_residual_angular", "cg_residual", "ode_error"):
        # float32 values: %.9g is exact for them.
        assert np.float32(stats[name]) == np.float32(float(row[name])), name


def test_statistics_before_and_after_a_step():
    w = vkphys.World.from_file(os.path.join(SCENES, "particle_bed.json"))
    before = w.statistics()
    dicts = ("stages", "stage_model_bytes")
    assert all(v == 0 for k, v in before.items() if k not in dicts)
    assert all(b == 0 for b in before["stage_model_bytes"].values())
    w.step(5)
    s = w.statistics()
    c = w.contacts()
    assert s["contact_capacity"] >= c["particle_contacts"] > 0
    assert s["pair_capacity"] >= c["pairs"]
    assert s["device_bytes"] == 0  # the CPU backend holds no device memory
    stages = s["stages"]
    assert {"broadphase", "solve"} <= set(stages)
    assert all(ms >= 0 for ms in stages.values())
    model = s["stage_model_bytes"]
    assert list(model) == list(stages)
    assert model["solve"] > 0  # the contacts' sweeps move bytes


def test_constraint_errors_of_rigid_bodies_need_record_contacts():
    w = vkphys.World.from_file(os.path.join(SCENES, "stack_5.json"))
    w.step(1)
    with pytest.raises(vkphys.Error, match="record_contacts"):
        w.constraint_errors()


def render_or_skip(world, *args, **kwargs):
    """world.render(...), or the test is skipped without a Vulkan device that can draw (failed
    if VKPHYS_REQUIRE_GPU=1)."""
    try:
        return world.render(*args, **kwargs)
    except vkphys.Error as e:
        if os.environ.get("VKPHYS_REQUIRE_GPU") == "1" or "camera" in str(e):
            raise
        pytest.skip(str(e))


def test_render_is_vkphys_renders_picture(tmp_path):
    PIL = pytest.importorskip("PIL.Image")
    path = os.path.join(SCENES, "stack_5.json")
    w = vkphys.World.from_file(path)
    picture = render_or_skip(w, 96, 64, path=tmp_path / "py.png")
    assert picture.shape == (64, 96, 4) and picture.dtype == np.uint8
    # Flat shading: the sky, the plane and the boxes' faces, each lit differently (5 measured).
    assert len(np.unique(picture.reshape(-1, 4), axis=0)) >= 4
    assert (picture[:, :, 3] == 255).all()
    np.testing.assert_array_equal(np.asarray(PIL.open(tmp_path / "py.png").convert("RGBA")),
                                  picture)
    subprocess.run([TOOL, "render", path, "--frames", "1", "--width", "96", "--height", "64",
                    "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    cli = np.asarray(PIL.open(tmp_path / "cli" / "frame_000000.png").convert("RGBA"))
    np.testing.assert_array_equal(cli, picture)


def test_render_camera():
    w = vkphys.World.from_file(os.path.join(SCENES, "stack_5.json"))
    default = render_or_skip(w, 48, 32)
    cam = w.camera()
    assert set(cam) == {"position", "target", "up", "fov_y_deg"}
    np.testing.assert_array_equal(w.render(48, 32, camera=cam), default)
    cam["fov_y_deg"] = cam["fov_y_deg"] / 2  # zoomed in: another picture
    assert not np.array_equal(w.render(48, 32, camera=cam), default)
    with pytest.raises(vkphys.Error, match=r"^render: camera.fov: unknown key"):
        w.render(48, 32, camera={"fov": 30.0})
    with pytest.raises(vkphys.Error):
        w.render(0, 32)


def test_builtin_scene_is_what_export_scene_writes(tmp_path):
    assert "pyramid" in vkphys.builtin_scene_names()
    scene = vkphys.builtin_scene("pyramid", 4)
    out = tmp_path / "pyramid.json"
    subprocess.run([TOOL, "export-scene", "pyramid", "--size", "4", "--out", str(out)],
                   check=True, capture_output=True)
    import json
    assert json.loads(out.read_text()) == scene
    w = vkphys.World.from_dict(scene)
    assert w.body_count == 4 + 3 + 2 + 1 + 1  # the boxes and the plane's static body
    with pytest.raises(vkphys.Error, match=r"^size 2049: wall takes at most 2048$"):
        vkphys.builtin_scene("wall", 2049)
