#include "host/io/compare_report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "host/io/output.h"
#include "host/io/scene_file.h"
#include "host/io/svg_plot.h"

namespace vkphys::io {

namespace {

using Field = double StepError::*;

std::vector<double> steps_axis(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t k = 0; k < n; ++k) x[k] = static_cast<double>(k + 1);
  return x;
}

template <class T, class F>
std::vector<double> column(const std::vector<T>& rows, F f) {
  std::vector<double> out;
  out.reserve(rows.size());
  for (const T& r : rows) out.push_back(f(r));
  return out;
}

// One figure: a quantity's GPU-CPU maximum for one body kind, the envelope, and the limit.
std::string error_figure(const CompareResult& r, bool particles, Field field, double limit,
                         const char* quantity, const char* unit, const std::string& a_name) {
  Plot p;
  p.title =
      fmt::format("{}: max {} difference", particles ? "particles" : "rigid bodies", quantity);
  p.x_label = "step";
  p.y_label = fmt::format("[{}] (log)", unit);
  p.log_y = true;
  const std::vector<double> x = steps_axis(r.steps.size());
  auto of_kind = [particles, field](const KindErrors& k) {
    return (particles ? k.particles : k.rigid).*field;
  };
  p.series.push_back({a_name + " - reference", x, column(r.kinds, of_kind), plot_color(0), false});
  if (!r.envelope_kinds.empty()) {
    p.series.push_back({"rounding envelope (1-ulp seeds)", x, column(r.envelope_kinds, of_kind),
                        plot_color(2), true});
  }
  p.series.push_back(
      {"limit", {1.0, static_cast<double>(x.size())}, {limit, limit}, plot_color(3), true});
  if (r.divergence) {
    p.markers.push_back({static_cast<double>(r.divergence->step),
                         fmt::format("leaves at step {}", r.divergence->step), plot_color(3)});
  }
  return svg_plot(p);
}

std::string metric_figure(const CompareResult& r, const char* title, const char* unit,
                          double (*value)(const Metrics&), const std::string& a_name,
                          const std::string& b_name) {
  Plot p;
  p.title = title;
  p.x_label = "step";
  p.y_label = unit;
  std::vector<double> x(r.metrics_a.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(k);
  p.series.push_back({a_name, x, column(r.metrics_a, value), plot_color(0), false});
  p.series.push_back({b_name, x, column(r.metrics_b, value), plot_color(1), true});
  return svg_plot(p);
}

std::string row(const std::string& key, const std::string& value) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", xml_escape(key), xml_escape(value));
}

}  // namespace

std::string compare_report_html(const CompareReport& rep) {
  const Scene& s = *rep.scene;
  const CompareResult& r = *rep.result;
  const SolverSettings& sv = s.settings.solver;
  const bool failed = !r.passed();
  std::string h = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
      "<title>vkphys compare: {}</title>\n<style>body{{font-family:sans-serif;margin:2em;"
      "max-width:1400px}} table{{border-collapse:collapse}} th,td{{border:1px solid #ccc;"
      "padding:2px 8px;text-align:left}} .ok{{background:#e6f4e6;border:2px solid #2ca02c}}"
      " .fail{{background:#fbe9e9;border:2px solid #d62728}} .verdict{{padding:.8em;"
      "margin:1em 0}} figure{{display:inline-block;margin:4px}}</style></head><body>\n"
      "<h1>vkphys compare: {}</h1>\n",
      xml_escape(s.name), xml_escape(s.name));
  h += fmt::format("<div id=\"verdict\" class=\"verdict {}\">{}</div>\n", failed ? "fail" : "ok",
                   xml_escape(r.verdict));
  if (!rep.note.empty()) h += fmt::format("<p>{}</p>\n", xml_escape(rep.note));

  h += "<h2>Run</h2>\n<table>\n";
  h += row("scene file", rep.scene_file);
  h += row("scene", scene_summary(s));
  h += row("compared", rep.backend_a);
  h += row("reference", rep.backend_b);
  h += row("steps", std::to_string(r.steps.size()));
  h += row("time step", fmt::format("{:g} s", s.settings.time_step));
  h += row("gravity", fmt::format("({:g}, {:g}, {:g}) m/s^2", s.settings.gravity.x,
                                  s.settings.gravity.y, s.settings.gravity.z));
  h += row("solver",
           fmt::format("{}, {} substep(s) x ({} iterations + {} relax), warm start "
                       "{:g}, contact_hertz {:g}, friction {}",
                       scheme_name(sv.scheme), sv.substeps, sv.iterations, sv.relax_iterations,
                       sv.warm_start, sv.contact_hertz, sv.friction ? "on" : "off"));
  const Tolerance& t = rep.options.tol;
  h += row("tolerances", fmt::format("{:g} m, {:g} rad, {:g} m/s, {:g} rad/s", t.position,
                                     t.rotation, t.velocity, t.angular_velocity));
  h += row("rounding envelope",
           rep.options.seeds
               ? fmt::format("{} CPU runs with every position nudged by 1 ulp; limit = max("
                             "tolerance, {:g} x the whole run's envelope)",
                             rep.options.seeds, rep.options.factor)
               : std::string("none (fixed tolerances only)"));
  const Tolerance& al = r.allowed;
  h += row("limits", fmt::format("{:.3g} m, {:.3g} rad, {:.3g} m/s, {:.3g} rad/s", al.position,
                                 al.rotation, al.velocity, al.angular_velocity));
  h += "</table>\n";

  if (r.divergence) {
    const Divergence& d = *r.divergence;
    h += "<h2>First divergence</h2>\n<table>\n";
    h += row("step", std::to_string(d.step));
    h += row("body", describe(s, d.body));
    h += row("quantity", fmt::format("{}: {:.4g} (envelope {:.4g}, limit {:.4g})", d.quantity,
                                     d.error, d.envelope, d.limit));
    h += row("past their limits", d.what);
    h += row("stage", d.stage ? fmt::format("{} ({}: {:.4g}, rounding allows {:.4g})",
                                            stage_name(d.stage->stage), d.stage->what,
                                            d.stage->diff, d.stage->limit)
                              : std::string("none differs in one step from identical inputs"));
    h += "</table>\n";
  }

  if (!r.checkpoints.empty()) {
    h += "<h2>One-step checks</h2>\n<p>Both backends loaded with the reference's state at the "
         "step and run one traced step; every stage's output against what rounding allows "
         "(<code>compare_traces</code>). Chaos needs many steps to amplify rounding; a wrong "
         "kernel shows in one.</p>\n<table id=\"checks\">\n<tr><th>from step</th><th>result"
         "</th><th>closest to its limit</th></tr>\n";
    for (const Checkpoint& c : r.checkpoints) {
      const std::optional<StageCheck> bad = first_past(c.stages);
      // diff / limit, an exact check that differs counting as far past.
      auto ratio = [](const StageCheck& x) {
        return x.limit > 0.0 ? x.diff / x.limit : (x.diff > 0.0 ? 1e300 : 0.0);
      };
      const StageCheck* closest = nullptr;
      for (const StageCheck& sc : c.stages) {
        if (!closest || ratio(sc) > ratio(*closest)) closest = &sc;
      }
      h += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", c.step,
          bad ? xml_escape(std::string("FAIL: ") + stage_name(bad->stage) + " (" + bad->what + ")")
              : std::string("OK"),
          closest && ratio(*closest) > 0.0
              ? xml_escape(fmt::format("{}: {} {:.3g} (limit {:.3g})", stage_name(closest->stage),
                                       closest->what, closest->diff, closest->limit))
              : std::string("every output identical"));
    }
    h += "</table>\n";
  }

  const bool rigid = !s.bodies.empty(), particles = s.particles.size() > 0;
  h += "<h2>Difference over time against the rounding envelope</h2>\n";
  auto fig = [&h](const std::string& svg) { h += "<figure>" + svg + "</figure>\n"; };
  const std::string& a = rep.backend_a;
  if (rigid) {
    fig(error_figure(r, false, &StepError::max_pos, al.position, "position", "m", a));
    fig(error_figure(r, false, &StepError::max_vel, al.velocity, "velocity", "m/s", a));
    fig(error_figure(r, false, &StepError::max_rot, al.rotation, "orientation", "rad", a));
    fig(error_figure(r, false, &StepError::max_omega, al.angular_velocity, "angular velocity",
                     "rad/s", a));
  }
  if (particles) {
    fig(error_figure(r, true, &StepError::max_pos, al.position, "position", "m", a));
    fig(error_figure(r, true, &StepError::max_vel, al.velocity, "velocity", "m/s", a));
  }
  h += "<h2>Energy and momentum of both backends</h2>\n";
  fig(metric_figure(
      r, "total energy (kinetic + potential)", "[J]", [](const Metrics& m) { return m.energy(); },
      a, rep.backend_b));
  fig(metric_figure(
      r, "kinetic energy", "[J]", [](const Metrics& m) { return m.kinetic(); }, a, rep.backend_b));
  fig(metric_figure(
      r, "|linear momentum|", "[kg m/s]", [](const Metrics& m) { return glm::length(m.momentum); },
      a, rep.backend_b));
  fig(metric_figure(
      r, "|angular momentum| about the origin", "[kg m^2/s]",
      [](const Metrics& m) { return glm::length(m.angular_momentum); }, a, rep.backend_b));
  h += "<p>Made by <code>vkphys compare</code>.</p>\n</body></html>\n";
  return h;
}

void write_compare_report(const std::string& path, const CompareReport& report) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  write_text_file(p, compare_report_html(report));
}

}  // namespace vkphys::io
