#include "host/io/output.h"

#include <fmt/format.h>

#include <stdexcept>

namespace vkphys::io {

std::ofstream open_run_folder(const std::filesystem::path& dir, const char* metrics_header) {
  std::error_code ec;
  std::filesystem::create_directories(dir / "frames", ec);
  if (ec)
    throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
  std::ofstream metrics(dir / "metrics.csv");
  if (!metrics) throw std::runtime_error("cannot write " + (dir / "metrics.csv").string());
  metrics << metrics_header;
  return metrics;
}

RunWriter::RunWriter(const std::filesystem::path& dir)
    : dir_(dir),
      metrics_(open_run_folder(dir,
                               "step,time,kinetic,potential,energy,px,py,pz,max_penetration,"
                               "max_speed,contacts,regrows,step_ms\n")) {}

void RunWriter::frame(std::uint64_t step, const Particles& state) {
  std::filesystem::path path = dir_ / "frames" / fmt::format("frame_{:06d}.csv", step);
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << "id,x,y,z,vx,vy,vz,radius,inv_mass\n";
  for (std::size_t i = 0; i < state.size(); ++i) {
    const glm::vec4& p = state.pos_radius[i];
    const glm::vec4& v = state.vel_invmass[i];
    out << fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n", i, p.x, p.y,
                       p.z, v.x, v.y, v.z, p.w, v.w);
  }
}

void RunWriter::metrics(std::uint64_t step, double time, const Metrics& m, const StepStats& stats,
                        double step_ms) {
  metrics_ << fmt::format(
      "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{:.4f}\n", step,
      time, m.kinetic, m.potential, m.kinetic + m.potential, m.momentum.x, m.momentum.y,
      m.momentum.z, m.max_penetration, m.max_speed, stats.contacts, stats.regrows, step_ms);
  metrics_.flush();
}

}  // namespace vkphys::io
