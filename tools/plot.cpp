// `vkphys plot RUN_DIR`: SVG plots of a run's metrics.csv over time (vkphys/plot.h), one
// file per figure in RUN_DIR/plots/.
#include "vkphys/plot.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/commands.h"
#include "vkphys/files.h"

namespace vkphys::tools {

namespace {

// metrics.csv as columns by header name; throws naming the file, line and field that is wrong.
// A last row without its line end is a row the run was writing when it was stopped (a killed
// run that was never resumed: `vkphys resume` rewrites the file whole): it is left out, and
// the note on stderr says so. Any other row must have exactly the header's fields.
std::map<std::string, std::vector<double>> read_columns(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string() + " (is it a run's folder?)");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines;
  std::stringstream all(text);
  for (std::string line; std::getline(all, line);) lines.push_back(line);
  if (!text.empty() && text.back() != '\n' && lines.size() > 1) {
    fmt::print(stderr,
               "{} line {}: an incomplete last row (the run was stopped while writing "
               "it), left out\n",
               path.string(), lines.size());
    lines.pop_back();
  }
  std::vector<std::string> names;
  std::stringstream header(lines.empty() ? std::string() : lines.front());
  for (std::string name; std::getline(header, name, ',');) names.push_back(name);
  std::map<std::string, std::vector<double>> columns;
  for (std::size_t row = 2; row <= lines.size(); ++row) {
    std::stringstream fields(lines[row - 1]);
    std::size_t k = 0;
    for (std::string field; std::getline(fields, field, ','); ++k) {
      if (k >= names.size()) {
        throw std::runtime_error(fmt::format("{} line {}: more fields than the header's {}",
                                             path.string(), row, names.size()));
      }
      try {
        columns[names[k]].push_back(std::stod(field));
      } catch (const std::exception&) {
        throw std::runtime_error(fmt::format("{} line {}: {} = \"{}\" is not a number",
                                             path.string(), row, names[k], field));
      }
    }
    if (k != names.size()) {
      throw std::runtime_error(fmt::format("{} line {}: {} fields, the header has {}",
                                           path.string(), row, k, names.size()));
    }
  }
  return columns;
}

struct Figure {
  const char* file;
  const char* title;
  const char* unit;
  std::vector<const char*> columns;
  bool log_y = false;
};

const std::vector<Figure>& figures() {
  static const std::vector<Figure> list{
      {"energy", "energy", "[J]", {"kinetic", "potential", "energy"}},
      {"momentum", "linear momentum", "[kg m/s]", {"px", "py", "pz"}},
      {"angular_momentum", "angular momentum about the origin", "[kg m^2/s]", {"lx", "ly", "lz"}},
      {"penetration",
       "penetration",
       "[m]",
       {"max_penetration", "max_rigid_penetration", "mean_rigid_penetration"}},
      {"joint_error", "joint error", "[m]", {"max_joint_error", "mean_joint_error"}},
      {"spring_strain",
       "spring strain (length / rest - 1)",
       "[-]",
       {"max_spring_strain", "mean_spring_strain"}},
      {"solver_work",
       "implicit CG iterations and explicit ODE steps per step",
       "count",
       {"cg_iterations", "ode_steps", "ode_redos"}},
      {"solver_error",
       "CG residual |r| / |b| and adaptive ODE error",
       "[-]",
       {"cg_residual", "ode_error"}},
      {"solver_residual",
       "solver residual: the last sweep's largest velocity change",
       "[m/s], [rad/s] (log)",
       {"solver_residual", "solver_residual_angular"},
       true},
      {"contacts",
       "contacts",
       "count",
       {"pairs", "manifolds", "reused_manifolds", "points", "particle_contacts"}},
      {"colors", "colours and overflow", "count", {"colors", "overflow_units", "regrows"}},
      {"step_ms", "time per step (host clock)", "[ms] (log)", {"step_ms"}, true},
  };
  return list;
}

}  // namespace

int cmd_plot(const Options& opt) {
  const std::filesystem::path dir(opt.scene);
  const auto columns = read_columns(dir / "metrics.csv");
  if (!columns.count("time")) {
    throw std::runtime_error((dir / "metrics.csv").string() + ": no \"time\" column");
  }
  const std::vector<double>& t = columns.at("time");
  std::filesystem::create_directories(dir / "plots");
  for (const Figure& f : figures()) {
    Plot p;
    p.title = f.title;
    p.x_label = "time [s]";
    p.y_label = f.unit;
    p.log_y = f.log_y;
    for (const char* c : f.columns) {
      if (!columns.count(c)) continue;
      p.series.push_back({c, t, columns.at(c), plot_color(p.series.size()), false});
    }
    if (p.series.empty()) continue;
    const std::filesystem::path out = dir / "plots" / (std::string(f.file) + ".svg");
    write_file_atomic(out, svg_plot(p));
    std::printf("%s\n", out.c_str());
  }
  return 0;
}

}  // namespace vkphys::tools
