#include "host/io/rigid_output.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "host/io/output.h"

namespace vkphys::io {

RigidRunWriter::RigidRunWriter(const std::filesystem::path& dir)
    : dir_(dir),
      metrics_(open_run_folder(
          dir,
          "step,time,kinetic,kinetic_linear,kinetic_rotational,potential,energy,px,py,pz,lx,ly,"
          "lz,max_speed,max_angular_speed,pairs,manifolds,points,rows,colors,overflow_units,"
          "regrows,step_ms\n")) {}

void RigidRunWriter::frame(std::uint64_t step, const Scene& scene, const RigidState& state) {
  const std::size_t n = scene.bodies.size();
  if (state.pos.size() < n || state.rot.size() < n || state.vel.size() < n ||
      state.omega.size() < n) {
    throw std::invalid_argument(
        "RigidRunWriter::frame: the state holds fewer bodies than the scene");
  }
  std::filesystem::path path = dir_ / "frames" / fmt::format("frame_{:06d}.csv", step);
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << "id,shape,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz\n";
  std::string line;
  for (std::size_t i = 0; i < n; ++i) {
    const glm::vec4& x = state.pos[i];
    const glm::vec4& q = state.rot[i];
    const glm::vec4& v = state.vel[i];
    const glm::vec4& w = state.omega[i];
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
                   "{:.9g},{:.9g},{:.9g}\n",
                   i, shape_name(scene.bodies[i].shape), x.x, x.y, x.z, q.x, q.y, q.z, q.w, v.x,
                   v.y, v.z, w.x, w.y, w.z);
    out << line;
  }
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void RigidRunWriter::metrics(std::uint64_t step, double time, const RigidMetrics& m,
                             const RigidStats& stats, double step_ms) {
  metrics_ << fmt::format(
      "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
      "{:.9g},{:.9g},{},{},{},{},{},{},{},{:.4f}\n",
      step, time, m.kinetic(), m.kinetic_linear, m.kinetic_rotational, m.potential, m.energy(),
      m.momentum.x, m.momentum.y, m.momentum.z, m.angular_momentum.x, m.angular_momentum.y,
      m.angular_momentum.z, m.max_speed, m.max_angular_speed, stats.pairs, stats.manifolds,
      stats.points, stats.rows, stats.colors, stats.overflow_units, stats.regrows, step_ms);
  metrics_.flush();
}

}  // namespace vkphys::io
