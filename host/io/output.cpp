#include "host/io/output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <stdexcept>
#include <string>
#include <system_error>

#include "host/io/vtk_output.h"

namespace vkphys::io {

namespace {

// Removes the files named PREFIX* in `folder`, if it exists.
void remove_prefixed(const std::filesystem::path& folder, const std::string& prefix) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) return;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(folder)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(e.path());
  }
}

// Creates DIR/frames. DIR must be new or empty, unless `force`: then what an earlier run wrote
// there (frames, VTK files, metrics) is removed first, and nothing else, so no stale frame is
// left behind.
std::ofstream open_run_folder(const std::filesystem::path& dir, bool force,
                              const char* metrics_header) {
  namespace fs = std::filesystem;
  if (dir.empty()) {
    throw std::invalid_argument("output folder: the path is empty; name a folder (--out DIR)");
  }
  std::error_code ec;
  if (fs::is_directory(dir, ec) && !fs::is_empty(dir, ec)) {
    if (!force) {
      throw std::runtime_error("output folder " + dir.string() +
                               " is not empty; use --force to replace its frames and metrics, "
                               "or another --out");
    }
    fs::remove(dir / "metrics.csv", ec);
    fs::remove(dir / "run.pvd", ec);
    // An earlier run's checkpoint would resume that run, not this one (tools/run.cpp).
    fs::remove(dir / kCheckpointFile, ec);
    fs::remove(dir / kRunPlanFile, ec);
    fs::remove(dir / kPictureFile, ec);
    remove_prefixed(dir / "frames", "frame_");
    remove_prefixed(dir / "vtk", "frame_");
    remove_prefixed(dir / "vtk", "contacts_");
  }
  fs::create_directories(dir / "frames", ec);
  if (ec) {
    throw std::runtime_error("cannot create output folder " + dir.string() + ": " + ec.message());
  }
  std::ofstream metrics(dir / "metrics.csv");
  if (!metrics) throw std::runtime_error("cannot write " + (dir / "metrics.csv").string());
  metrics << metrics_header;
  return metrics;
}

// A file descriptor closed on every path out.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void fail(const std::filesystem::path& path, int err) {
  throw std::runtime_error(
      fmt::format("cannot write {}: {}", path.string(), std::generic_category().message(err)));
}

}  // namespace

void write_text_file(const std::filesystem::path& path, std::string_view text,
                     Durability durability) {
  std::filesystem::path partial = path;
  partial += ".partial";
  {
    Fd out(::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (out.fd < 0) fail(partial, errno);
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(out.fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail(partial, n < 0 ? errno : EIO);
      done += static_cast<std::size_t>(n);
    }
    if (durability == Durability::synced && ::fsync(out.fd) != 0) fail(partial, errno);
    if (::close(out.fd) != 0) {
      out.fd = -1;
      fail(partial, errno);
    }
    out.fd = -1;
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  if (durability == Durability::synced) {
    // The rename lives in the folder: flush it too, or a power cut may bring back the old name.
    const std::filesystem::path folder =
        path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    Fd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.fd < 0 || ::fsync(dir.fd) != 0) fail(folder, errno);
  }
}

const char* const kMetricsHeader =
    "step,time,kinetic,kinetic_linear,kinetic_rotational,potential,energy,px,py,pz,lx,ly,"
    "lz,max_speed,max_angular_speed,max_penetration,pairs,manifolds,reused_manifolds,points,"
    "particle_contacts,rows,colors,overflow_units,regrows,step_ms,max_rigid_penetration,"
    "mean_rigid_penetration,max_joint_error,mean_joint_error,max_spring_strain,"
    "mean_spring_strain,cg_iterations,cg_residual,cg_unmet,ode_steps,ode_redos,ode_error,"
    "solver_residual,solver_residual_angular\n";

RunWriter::RunWriter(const std::filesystem::path& dir, bool force, bool vtk, double time_step,
                     bool vtk_contacts)
    : dir_(dir),
      metrics_(open_run_folder(dir, force, kMetricsHeader)),
      vtk_(vtk),
      vtk_contacts_(vtk && vtk_contacts),
      time_step_(time_step) {
  if (!vtk_) return;
  std::error_code ec;
  std::filesystem::create_directories(dir / "vtk", ec);
  if (ec) {
    throw std::runtime_error("cannot create output folder " + (dir / "vtk").string() + ": " +
                             ec.message());
  }
}

void RunWriter::frame(std::uint64_t step, const Scene& scene, const WorldState& state,
                      const StepTrace* trace) {
  const std::size_t n = scene.bodies.size();
  if (state.pos.size() < n || state.rot.size() < n || state.vel.size() < n ||
      state.omega.size() < n) {
    throw std::invalid_argument("RunWriter::frame: the state holds fewer bodies than the scene");
  }
  std::string out = "id,kind,shape,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,radius,inv_mass\n";
  for (std::size_t i = 0; i < n; ++i) {
    const glm::vec4& x = state.pos[i];
    const glm::vec4& q = state.rot[i];
    const glm::vec4& v = state.vel[i];
    const glm::vec4& w = state.omega[i];
    fmt::format_to(std::back_inserter(out),
                   "{},body,{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
                   "{:.9g},{:.9g},{:.9g},{:.9g},0,{:.9g}\n",
                   i, shape_name(scene.bodies[i].shape), x.x, x.y, x.z, q.x, q.y, q.z, q.w, v.x,
                   v.y, v.z, w.x, w.y, w.z, x.w);
  }
  const Particles& p = state.particles;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const glm::vec4& x = p.pos_radius[i];
    const glm::vec4& v = p.vel_invmass[i];
    fmt::format_to(std::back_inserter(out),
                   "{},particle,sphere,{:.9g},{:.9g},{:.9g},0,0,0,1,{:.9g},{:.9g},{:.9g},0,0,0,"
                   "{:.9g},{:.9g}\n",
                   i, x.x, x.y, x.z, v.x, v.y, v.z, x.w, v.w);
  }
  write_text_file(dir_ / "frames" / fmt::format("frame_{:06d}.csv", step), out);
  if (!vtk_) return;
  const double t = time_step_ * static_cast<double>(step);
  const std::string name = fmt::format("vtk/frame_{:06d}.vtp", step);
  write_text_file(dir_ / name, vtp_frame(scene, state));
  vtk_frames_.push_back({t, name, 0});
  if (vtk_contacts_ && trace) {
    const std::string contacts = fmt::format("vtk/contacts_{:06d}.vtp", step);
    write_text_file(dir_ / contacts, vtp_contacts(state, *trace));
    vtk_frames_.push_back({t, contacts, 1});
  }
  write_text_file(dir_ / "run.pvd", pvd_collection(vtk_frames_));  // a valid series at any stop
}

void RunWriter::metrics(std::uint64_t step, double time, const Metrics& m, const StepStats& stats,
                        double step_ms, const ConstraintErrors& errors) {
  metrics_ << fmt::format(
      "{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
      "{:.9g},{:.9g},{:.9g},{},{},{},{},{},{},{},{},{},{:.4f},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},"
      "{:.9g},{},{:.9g},{},{},{},{:.9g},{:.9g},{:.9g}\n",
      step, time, m.kinetic(), m.kinetic_linear, m.kinetic_rotational, m.potential, m.energy(),
      m.momentum.x, m.momentum.y, m.momentum.z, m.angular_momentum.x, m.angular_momentum.y,
      m.angular_momentum.z, m.max_speed, m.max_angular_speed, m.max_penetration, stats.pairs,
      stats.manifolds, stats.reused_manifolds, stats.points, stats.particle_contacts, stats.rows,
      stats.colors, stats.overflow_units, stats.regrows, step_ms, errors.max_rigid_penetration,
      errors.mean_rigid_penetration, errors.max_joint_error, errors.mean_joint_error,
      errors.max_spring_strain, errors.mean_spring_strain, stats.cg_iterations, stats.cg_residual,
      stats.cg_unmet, stats.ode_steps, stats.ode_redos, stats.ode_error, stats.solver_residual,
      stats.solver_residual_angular);
  metrics_.flush();
}

}  // namespace vkphys::io
