// The compare report (host/io/compare_report.h): what the page holds for a run that passes and
// for one that fails with a GPU fault (the stage named); its SVG plots (vkphys/plot.h) are
// tested in tests/test_api_tools.cpp. tests/report_in_browser.py opens a report made by
// `vkphys compare` in headless Chromium.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "host/io/compare_report.h"
#include "host/io/svg_plot.h"
#include "host/sim/compare.h"
#include "tests/gpu_env.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/text_count.h"

namespace vkphys::test {
namespace {

// Three boxes on a floor beside twenty particles.
Scene boxes_and_particles() {
  Scene s = empty_rigid_scene(-10.0f);
  s.name = "boxes & particles";
  s.planes.push_back(Plane{});
  for (int i = 0; i < 3; ++i) {
    s.bodies.push_back(make_box({0.0f, 0.5f + 1.0f * float(i), 0.0f}, glm::vec3(0.5f), 1.0f));
  }
  for (int i = 0; i < 20; ++i) {
    s.particles.add({3.0f + 0.25f * float(i % 5), 0.2f + 0.25f * float(i / 5), 0.0f},
                    glm::vec3(0.0f), 0.1f, 0.1f, 0);
  }
  return s;
}

io::CompareReport report_of(const Scene& s, const CompareResult& r, const CompareOptions& opt,
                            const std::string& a, const std::string& b) {
  io::CompareReport rep;
  rep.scene = &s;
  rep.scene_file = "scenes/example.json";
  rep.backend_a = a;
  rep.backend_b = b;
  rep.options = opt;
  rep.result = &r;
  return rep;
}

TEST(CompareReport, PassingRunHoldsVerdictFiguresAndSettings) {
  const Scene s = boxes_and_particles();
  auto a = make_cpu_backend(), b = make_cpu_backend();
  a->load(s);
  b->load(s);
  CompareOptions opt;
  opt.diagnose = false;
  const CompareResult r = compare_backends(*a, *b, s, 25, opt);
  ASSERT_TRUE(r.passed()) << r.verdict;
  ASSERT_EQ(r.checkpoints.size(), 6u);
  ASSERT_EQ(r.metrics_a.size(), 26u);
  const std::string html = io::compare_report_html(report_of(s, r, opt, "cpu A", "cpu B"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("class=\"verdict ok\">" + io::xml_escape(r.verdict) + "</div>"),
            std::string::npos);
  EXPECT_EQ(count(html, "First divergence"), 0u);
  EXPECT_EQ(count(html, "<tr><td>"), 6u) << "a row per one-step check";
  EXPECT_EQ(count(html, "</td><td>OK</td>"), 6u);
  // Rigid bodies: position, velocity, orientation, angular velocity; particles: position and
  // velocity; both backends: total and kinetic energy, linear and angular momentum.
  EXPECT_EQ(count(html, "<svg "), 10u);
  EXPECT_EQ(count(html, "rigid bodies: max "), 4u);
  EXPECT_EQ(count(html, "particles: max "), 2u);
  EXPECT_EQ(count(html, "rounding envelope (1-ulp seeds)"), 6u);
  EXPECT_NE(html.find("boxes &amp; particles"), std::string::npos) << "the name, escaped";
  EXPECT_EQ(html.find("boxes & particles"), std::string::npos);
  EXPECT_NE(html.find("<th>compared</th><td>cpu A</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>reference</th><td>cpu B</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>steps</th><td>25</td>"), std::string::npos);
  EXPECT_NE(html.find("3 CPU runs with every position nudged by 1 ulp"), std::string::npos);
  EXPECT_NE(html.find("<th>scene file</th><td>scenes/example.json</td>"), std::string::npos);
}

TEST(CompareReport, AFaultNamesItsStepBodyAndStage) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s = boxes_and_particles();
  auto gpu = make_gpu_backend(ctx, Stage::solve);
  auto cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  const CompareOptions opt;
  const CompareResult r = compare_backends(*gpu, *cpu, s, 25, opt);
  ASSERT_TRUE(r.divergence.has_value()) << r.verdict;
  ASSERT_TRUE(r.divergence->stage.has_value()) << r.verdict;
  const std::string html = io::compare_report_html(report_of(s, r, opt, gpu->name(), "cpu"));
  EXPECT_NE(html.find("class=\"verdict fail\">FAIL at step "), std::string::npos);
  EXPECT_EQ(count(html, "<h2>First divergence</h2>"), 1u);
  EXPECT_NE(html.find("<th>step</th><td>" + std::to_string(r.divergence->step) + "</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>body</th><td>" + io::xml_escape(describe(s, r.divergence->body))),
            std::string::npos);
  EXPECT_NE(html.find("<th>stage</th><td>solve ("), std::string::npos);
  EXPECT_NE(html.find("<tr><td>0</td><td>FAIL: solve ("), std::string::npos)
      << "the one-step check from the start already names the stage";
  EXPECT_NE(html.find("leaves at step " + std::to_string(r.divergence->step)), std::string::npos)
      << "the figures mark the step";
}

}  // namespace
}  // namespace vkphys::test
