// Force springs and the integrator choice in scene files and the C++ API: a written scene reads
// back the same, and every bad value is one line naming its field, value and rule.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"

namespace vkphys::test {
namespace {

using nlohmann::json;

json force_scene() {
  return json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "force_springs",
    "gravity": [0, -9.81, 0],
    "solver": {"integrator": "rk4", "adaptive": {"tolerance": 1e-4, "max_steps": 64}},
    "particles": [{"type": "particle", "position": [0, 2, 0], "radius": 0.05, "static": true},
                  {"type": "particle", "position": [0, 1, 0], "radius": 0.05, "mass": 1},
                  {"type": "particle", "position": [1, 1, 0], "radius": 0.05, "mass": 1}],
    "cloths": [{"origin": [3, 1, 0], "u": [1, 0, 0], "v": [0, 0, 1], "resolution": [3, 3],
                "density": 0.2, "springs": {"structural": 200, "shear": 20, "model": "force",
                "c": 0.5}}],
    "springs": [{"particles": [0, 1], "k": 40, "model": "force", "c": 0.1},
                {"particles": [1, 2], "k": 500, "d": 3}]
  })");
}

TEST(SceneForceSprings, ReadsModelsIntegratorAndAdaptiveStep) {
  const Scene s = io::parse_scene(force_scene().dump(), "<test>");
  EXPECT_EQ(s.settings.solver.integrator, Integrator::rk4);
  EXPECT_EQ(s.settings.solver.adaptive.tolerance, 1e-4f);
  EXPECT_EQ(s.settings.solver.adaptive.max_steps, 64u);
  // The cloth's 12 structural and 8 shear springs (no bend given), then the file's two.
  ASSERT_EQ(s.springs.size(), 22u);
  EXPECT_EQ(s.springs[0].model, SpringModel::force);
  EXPECT_EQ(s.springs[0].c, 0.5f);
  EXPECT_EQ(s.springs[20].model, SpringModel::force);
  EXPECT_EQ(s.springs[20].k, 40.0f);
  EXPECT_EQ(s.springs[20].c, 0.1f);
  EXPECT_EQ(s.springs[21].model, SpringModel::compliant);
}

TEST(SceneForceSprings, WrittenSceneReadsBackTheSame) {
  const Scene s = io::parse_scene(force_scene().dump(), "<test>");
  const Scene back = io::parse_scene(io::write_scene_json(s), "<written>");
  expect_same_scene(s, back);
  const Spring& f = back.springs[back.springs.size() - 2];
  EXPECT_EQ(f.model, SpringModel::force);
  EXPECT_EQ(f.c, 0.1f);
  const Spring& c = back.springs.back();
  EXPECT_EQ(c.model, SpringModel::compliant);
  EXPECT_EQ(c.d, 3.0f);
  EXPECT_EQ(back.springs.front().model, SpringModel::force);  // the cloth's
  EXPECT_EQ(back.springs.front().c, 0.5f);
}

TEST(SceneForceSprings, BadValuesNameTheirField) {
  auto with = [](auto edit) {
    json j = force_scene();
    edit(j);
    return error_of(j);
  };
  expect_error(with([](json& j) { j["springs"][0]["model"] = "spring"; }),
               {"springs[0].model = \"spring\"", "must be one of \"compliant\", \"force\""});
  expect_error(with([](json& j) { j["springs"][0]["d"] = 4; }),
               {"springs[0].d = 4", "a force spring (model \"force\") takes c"});
  expect_error(with([](json& j) { j["springs"][1]["c"] = 0.2; }),
               {"springs[1].c = 0.2", "a compliant spring takes d"});
  expect_error(with([](json& j) { j["springs"][0]["c"] = -1; }), {"springs[0].c = -1"});
  expect_error(with([](json& j) { j["cloths"][0]["springs"]["d"] = 2; }),
               {"cloths[0].springs.d = 2", "takes c"});
  expect_error(with([](json& j) { j["solver"]["integrator"] = "rk5"; }),
               {"solver.integrator = \"rk5\"",
                "must be one of \"symplectic\", \"euler\", \"midpoint\", \"rk4\""});
  expect_error(with([](json& j) { j["solver"]["adaptive"]["tolerance"] = 0; }),
               {"solver.adaptive.tolerance = 0"});
  expect_error(with([](json& j) { j["solver"]["adaptive"]["max_steps"] = 5000; }),
               {"solver.adaptive.max_steps = 5000"});
  expect_error(with([](json& j) { j["solver"].erase("integrator"); }),
               {"solver.adaptive", "needs an explicit solver.integrator"});
  json v1 = force_scene();
  v1["version"] = 1;
  v1.erase("cloths");
  v1.erase("springs");
  v1["solver"].erase("adaptive");
  expect_error(error_of(v1), {"solver.integrator", "needs \"version\": 2"});
}

// The C++ API's checks, on load (host/sim/particle_links.cpp, world_params.cpp), name the spring or
// setting.
TEST(SceneForceSprings, ApiRefusesBadSpringsAndSettings) {
  Scene s;
  s.particles.add(glm::vec3(0.0f), glm::vec3(0.0f), 0.05f, 1.0f, 0);
  s.particles.add({1.0f, 0.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 1.0f, 0);
  Spring spring{0, 1, 1.0f, 10.0f, 4.0f, SpringModel::force, -0.5f};
  s.springs = {spring};
  EXPECT_EQ(load_error(s),
            "spring 0: k 10.000000 and c -0.500000 must be finite, k > 0 and c >= 0");
  s.springs[0].model = SpringModel::compliant;
  EXPECT_EQ(load_error(s),
            "spring 0: c = -0.500000 is a force spring's damping; a compliant spring takes d");
  s.springs[0].c = 0.0f;
  s.settings.solver.adaptive.tolerance = 1e-3f;
  EXPECT_EQ(load_error(s),
            "solver.adaptive needs an explicit solver.integrator (euler, midpoint or rk4); the "
            "symplectic step is refined with solver.substeps, the implicit one needs no error "
            "control");
  s.settings.solver.integrator = Integrator::rk4;
  s.settings.solver.adaptive.max_steps = 0;
  EXPECT_EQ(load_error(s), "solver.adaptive.max_steps = 0: must be in [1, 4096]");
  s.settings.solver.adaptive.max_steps = 8;
  s.settings.solver.integrator = static_cast<Integrator>(7);
  EXPECT_EQ(load_error(s),
            "solver.integrator = 7: must be symplectic, euler, midpoint, rk4 or implicit");
}

}  // namespace
}  // namespace vkphys::test
