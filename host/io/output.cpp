#include "host/io/output.h"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>
#include <string>

#include "host/io/vtk_output.h"

namespace vkphys::io {

namespace {

std::ofstream open_run_folder(const std::filesystem::path& dir, const char* metrics_header) {
  std::error_code ec;
  std::filesystem::create_directories(dir / "frames", ec);
  if (ec) {
    throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
  }
  std::ofstream metrics(dir / "metrics.csv");
  if (!metrics) throw std::runtime_error("cannot write " + (dir / "metrics.csv").string());
  metrics << metrics_header;
  return metrics;
}

}  // namespace

void write_text_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

RunWriter::RunWriter(const std::filesystem::path& dir, bool vtk, double time_step)
    : dir_(dir),
      metrics_(open_run_folder(
          dir,
          "step,time,kinetic,kinetic_linear,kinetic_rotational,potential,energy,px,py,pz,lx,ly,"
          "lz,max_speed,max_angular_speed,max_penetration,pairs,manifolds,points,"
          "particle_contacts,rows,colors,overflow_units,regrows,step_ms,max_rigid_penetration,"
          "mean_rigid_penetration,max_joint_error,mean_joint_error\n")),
      vtk_(vtk),
      time_step_(time_step) {
  if (!vtk_) return;
  std::error_code ec;
  std::filesystem::create_directories(dir / "vtk", ec);
  if (ec) {
    throw std::runtime_error("cannot create output folder " + (dir / "vtk").string() + ": " +
                             ec.message());
  }
}

void RunWriter::frame(std::uint64_t step, const Scene& scene, const WorldState& state) {
  const std::size_t n = scene.bodies.size();
  if (state.pos.size() < n || state.rot.size() < n || state.vel.size() < n ||
      state.omega.size() < n) {
    throw std::invalid_argument("RunWriter::frame: the state holds fewer bodies than the scene");
  }
  std::filesystem::path path = dir_ / "frames" / fmt::format("frame_{:06d}.csv", step);
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << "id,kind,shape,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,radius,inv_mass\n";
  std::string line;
  for (std::size_t i = 0; i < n; ++i) {
    const glm::vec4& x = state.pos[i];
    const glm::vec4& q = state.rot[i];
    const glm::vec4& v = state.vel[i];
    const glm::vec4& w = state.omega[i];
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "{},body,{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
                   "{:.9g},{:.9g},{:.9g},{:.9g},0,{:.9g}\n",
                   i, shape_name(scene.bodies[i].shape), x.x, x.y, x.z, q.x, q.y, q.z, q.w, v.x,
                   v.y, v.z, w.x, w.y, w.z, x.w);
    out << line;
  }
  const Particles& p = state.particles;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const glm::vec4& x = p.pos_radius[i];
    const glm::vec4& v = p.vel_invmass[i];
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "{},particle,sphere,{:.9g},{:.9g},{:.9g},0,0,0,1,{:.9g},{:.9g},{:.9g},0,0,0,"
                   "{:.9g},{:.9g}\n",
                   i, x.x, x.y, x.z, v.x, v.y, v.z, x.w, v.w);
    out << line;
  }
  if (!out) throw std::runtime_error("cannot write " + path.string());
  if (!vtk_) return;
  const std::string name = fmt::format("vtk/frame_{:06d}.vtp", step);
  write_text_file(dir_ / name, vtp_frame(scene, state));
  vtk_frames_.emplace_back(time_step_ * static_cast<double>(step), name);
  write_text_file(dir_ / "run.pvd", pvd_collection(vtk_frames_));  // a valid series at any stop
}

void RunWriter::metrics(std::uint64_t step, double time, const Metrics& m, const StepStats& stats,
                        double step_ms, const ConstraintErrors& errors) {
  metrics_ << fmt::format(
      "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
      "{:.9g},{:.9g},{:.9g},{},{},{},{},{},{},{},{},{:.4f},{:.9g},{:.9g},{:.9g},{:.9g}\n",
      step, time, m.kinetic(), m.kinetic_linear, m.kinetic_rotational, m.potential, m.energy(),
      m.momentum.x, m.momentum.y, m.momentum.z, m.angular_momentum.x, m.angular_momentum.y,
      m.angular_momentum.z, m.max_speed, m.max_angular_speed, m.max_penetration, stats.pairs,
      stats.manifolds, stats.points, stats.particle_contacts, stats.rows, stats.colors,
      stats.overflow_units, stats.regrows, step_ms, errors.max_rigid_penetration,
      errors.mean_rigid_penetration, errors.max_joint_error, errors.mean_joint_error);
  metrics_.flush();
}

}  // namespace vkphys::io
