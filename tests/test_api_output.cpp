// The public API's outputs (include/vkphys/recorder.h, picture.h, scene_file.h): a run folder
// written by a Recorder holds what the World held, step by step; a picture shows the world;
// scene files read and write through the library; misuse is a one-line Error.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "tests/run_outputs.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

namespace fs = std::filesystem;
using test::error_of;
using test::read_file;
using test::scene_path;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("vkphys_api_output_" + name);
  fs::remove_all(dir);
  return dir;
}

// metrics.csv as rows of named cells.
std::vector<std::map<std::string, std::string>> csv_rows(const fs::path& file) {
  std::istringstream in(read_file(file));
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    if (header.empty()) {
      header = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

// A Recorder's metrics rows are the World's own numbers at each step: the energies, the kept
// manifolds, the constraint errors; its frames hold the state's bits (%.9g is exact for float).
TEST(ApiOutput, RecorderWritesWhatTheWorldHolds) {
  const fs::path dir = fresh_dir("recorder");
  // Two boxes, one resting on the plane, one on it: their manifolds are kept from step to step.
  Scene s;
  add_plane(s, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
  add_box(s, glm::vec3(0.0f, 0.5f, 0.0f), glm::vec3(0.5f), 1.0f);
  add_box(s, glm::vec3(0.1f, 1.5f, 0.05f), glm::vec3(0.5f), 1.0f);
  World w(s, {.record_contacts = true});
  Recorder rec(dir, w, {.vtk_contacts = true});
  rec.frame(w);
  rec.metrics(w, 0.0);
  std::vector<double> kinetic{w.metrics().kinetic()};
  std::vector<std::uint32_t> reused{0};
  std::vector<double> penetration{0.0};
  for (int k = 1; k <= 20; ++k) {
    w.step();
    rec.metrics(w, 1.5);
    kinetic.push_back(w.metrics().kinetic());
    reused.push_back(w.contacts().reused_manifolds);
    penetration.push_back(w.constraint_errors().max_rigid_penetration);
  }
  rec.frame(w);
  const auto rows = csv_rows(dir / "metrics.csv");
  ASSERT_EQ(rows.size(), 21u);
  std::uint32_t kept = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(std::stoull(rows[k].at("step")), k);
    EXPECT_NEAR(std::stod(rows[k].at("kinetic")), kinetic[k], 1e-8 * (1.0 + kinetic[k]));
    EXPECT_EQ(std::stoul(rows[k].at("reused_manifolds")), reused[k]) << "step " << k;
    EXPECT_NEAR(std::stod(rows[k].at("max_rigid_penetration")), penetration[k], 1e-12);
    kept += reused[k];
  }
  EXPECT_GT(kept, 0u);  // a resting stack keeps its manifolds: the column is not all zero
  EXPECT_EQ(rows[5].at("step_ms"), "1.5000");  // as the caller measured it
  // The last frame: one row per scene body (the plane is not a row), the state's bits.
  std::istringstream frame(read_file(dir / "frames" / "frame_000020.csv"));
  std::string line;
  std::getline(frame, line);  // header
  std::size_t n = 0;
  for (; std::getline(frame, line); ++n) {
    std::vector<std::string> c;
    std::stringstream cs(line);
    for (std::string cell; std::getline(cs, cell, ',');) c.push_back(cell);
    ASSERT_GE(c.size(), 6u);
    EXPECT_EQ(std::stof(c[4]), w.state(Field::body_position)[n].y) << "body " << n;
  }
  EXPECT_EQ(n, w.scene().bodies.size());
  EXPECT_TRUE(fs::exists(dir / "vtk" / "contacts_000020.vtp"));
  EXPECT_TRUE(fs::exists(dir / "vtk" / "contacts_000000.vtp"));  // none yet, but a file
  EXPECT_TRUE(fs::exists(dir / "run.pvd"));
}

// Steps `w` to step `to`, writing every step's metrics row and every fifth step's frame.
void record_to(World& w, Recorder& rec, std::uint64_t to) {
  while (w.steps() < to) {
    w.step();
    rec.metrics(w, 0.0);
    if (w.steps() % 5 == 0) rec.frame(w);
  }
}

// A Recorder takes a run up again from a checkpoint: the resumed folder's outputs are those of
// the run that never stopped, bit for bit (metrics without the step times), although the
// stopped run wrote past its checkpoint.
TEST(ApiOutput, ResumedRecorderContinuesTheRun) {
  const fs::path whole = fresh_dir("whole"), cut = fresh_dir("cut");
  const WorldOptions opt{.record_contacts = true};
  const RecorderOptions vtk{.vtk = true};
  World a = World::from_file(scene_path("stack_5.json"), opt);
  Recorder ra(whole, a, vtk);
  ra.frame(a);
  ra.metrics(a, 0.0);
  record_to(a, ra, 30);

  World b = World::from_file(scene_path("stack_5.json"), opt);
  std::optional<Snapshot> at10;
  {
    Recorder rb(cut, b, vtk);
    rb.frame(b);
    rb.metrics(b, 0.0);
    record_to(b, rb, 10);
    at10 = b.save();
    record_to(b, rb, 17);  // then the process was killed
  }
  World c = World::load(*at10, opt);
  Recorder rc = Recorder::resume(cut, c, vtk);
  record_to(c, rc, 30);
  EXPECT_TRUE(test::same_outputs(test::outputs(whole), test::outputs(cut)));
}

TEST(ApiOutput, RecorderMisuseIsAOneLineError) {
  const fs::path dir = fresh_dir("misuse");
  Scene one;
  add_particle(one, glm::vec3(0.0f, 1.0f, 0.0f), 0.1f, 1.0f);
  World w(one);
  EXPECT_EQ(error_of([&] { (void)Recorder(dir, w, {.vtk_contacts = true}); }),
            "Recorder: vtk_contacts writes the contacts of each frame's step: make the World with "
            "WorldOptions::record_contacts");
  { Recorder first(dir, w); }
  std::ofstream(dir / "notes.txt") << "mine";
  const std::string busy = error_of([&] { (void)Recorder(dir, w); });
  EXPECT_NE(busy.find(dir.string()), std::string::npos) << busy;
  EXPECT_EQ(busy.find('\n'), std::string::npos);
  const fs::path empty = fresh_dir("no_metrics");
  fs::create_directories(empty);
  const std::string missing = error_of([&] { (void)Recorder::resume(empty, w); });
  EXPECT_NE(missing.find("metrics.csv"), std::string::npos) << missing;
}

// A scene read through the library is the scene file's; written back and read again it steps
// to the same bits; a missing file is an Error naming it.
TEST(ApiOutput, SceneFilesReadAndWriteThroughTheLibrary) {
  const Scene s = read_scene_file(scene_path("ragdoll.json"));
  World a(s), b(scene_from_json(scene_to_json(s), "<written>"));
  World c = World::from_file(scene_path("ragdoll.json"));
  a.step(30);
  b.step(30);
  c.step(30);
  EXPECT_TRUE(test::same_bits(a, b));
  EXPECT_TRUE(test::same_bits(a, c));
  EXPECT_NE(scene_summary(s).find(s.name), std::string::npos);
  const std::string missing = error_of([&] { (void)read_scene_file(scene_path("none.json")); });
  EXPECT_NE(missing.find("none.json"), std::string::npos) << missing;
  EXPECT_NE(error_of([&] {
              (void)scene_from_json("{\"version\": 2, \"bodies\": 3}", "<t>");
            }).find("<t>"),
            std::string::npos);
}

// A checkpoint carries its scene.
TEST(ApiOutput, SnapshotHoldsItsScene) {
  World w = World::from_file(scene_path("stack_5.json"));
  w.step(3);
  const Snapshot snap = w.save();
  EXPECT_EQ(scene_to_json(snap.scene()), scene_to_json(w.scene()));
}

// A falling box drawn by a CPU World: the framing camera aims at the box, so the picture's
// centre shows it and its corners the even background; the PNG file holds the picture.
TEST(ApiOutput, RenderShowsTheWorld) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;  // the World draws on a context of its own; this one only decides whether to run
  Scene s;
  add_box(s, glm::vec3(0.0f, 3.0f, 0.0f), glm::vec3(0.5f), 1.0f);
  // With the validation layer, as the test's own context: the process's Vulkan device functions
  // are the last opened device's (vkphys/vkphys.h), and the test context is destroyed through them.
  World w(s, {.validation = true});
  const SceneCamera cam = w.camera();
  EXPECT_EQ(cam.target, glm::vec3(0.0f, 3.0f, 0.0f));
  const Picture p = w.render(64, 48);
  ASSERT_EQ(p.width, 64u);
  ASSERT_EQ(p.height, 48u);
  ASSERT_EQ(p.rgba.size(), 64u * 48u * 4u);
  EXPECT_FALSE(p.device.empty());
  auto px = [&](std::uint32_t x, std::uint32_t y) {
    const std::size_t i = 4 * (std::size_t{y} * p.width + x);
    return glm::u8vec4(p.rgba[i], p.rgba[i + 1], p.rgba[i + 2], p.rgba[i + 3]);
  };
  EXPECT_EQ(px(0, 0), px(63, 47));
  EXPECT_NE(px(32, 24), px(0, 0));
  // Drawn from 30 m off along z, the box is small: the centre still shows it, the picture is
  // another.
  SceneCamera far = cam;
  far.position = cam.target + glm::vec3(0.0f, 0.0f, 30.0f);
  const Picture q = w.render(64, 48, far);
  EXPECT_NE(q.rgba, p.rgba);
  EXPECT_NE(glm::u8vec4(q.rgba[4 * (24 * 64 + 32)], q.rgba[4 * (24 * 64 + 32) + 1],
                        q.rgba[4 * (24 * 64 + 32) + 2], q.rgba[4 * (24 * 64 + 32) + 3]),
            px(0, 0));
  const fs::path file = fresh_dir("png") / "box.png";
  fs::create_directories(file.parent_path());
  p.write_png(file);
  const std::string bytes = read_file(file);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_EQ(error_of([&] { (void)w.render(0, 48); }),
            "render: 0x48 pixels: each side must be in 1..16384");
  SceneCamera blind = cam;
  blind.target = blind.position;
  EXPECT_NE(error_of([&] { (void)w.render(64, 48, blind); }).find("a target away from"),
            std::string::npos);
  Picture torn = p;
  torn.rgba.pop_back();
  EXPECT_NE(error_of([&] { torn.write_png(file); }).find("needs 12288 RGBA bytes, not 12287"),
            std::string::npos);
}

}  // namespace
}  // namespace vkphys
