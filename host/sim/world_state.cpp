// What the backends hand back and take in, in the same shape: the state read and written
// through Backend::read and write, the carried buffers a checkpoint holds, and the statistics
// made from the step's counters (host/sim/world_setup.h). Both backends call these, so the
// layouts convert in one place.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "host/sim/traffic_model.h"
#include "host/sim/world_setup.h"

namespace vkphys {

void world_state(const Scene& scene, std::uint32_t rigid, std::span<const glm::vec4> pos,
                 std::span<const glm::vec4> vel, std::span<const glm::vec4> rot,
                 std::span<const glm::vec4> omega, WorldState& out) {
  out.pos.resize(rigid);
  out.vel.resize(rigid);
  for (std::size_t i = 0; i < rigid; ++i) {
    out.pos[i] = glm::vec4(glm::vec3(pos[i]), vel[i].w);
    out.vel[i] = glm::vec4(glm::vec3(vel[i]), 0.0f);
  }
  out.rot.assign(rot.begin(), rot.end());
  out.omega.assign(omega.begin(), omega.end());
  out.particles.pos_radius.assign(pos.begin() + rigid, pos.end());
  out.particles.vel_invmass.assign(vel.begin() + rigid, vel.end());
  out.particles.material = scene.particles.material;
}

void write_world_state(const WorldState& state, std::uint32_t rigid, std::vector<glm::vec4>& pos,
                       std::vector<glm::vec4>& vel, std::vector<glm::vec4>& rot,
                       std::vector<glm::vec4>& omega) {
  const std::size_t particles = pos.size() - rigid;
  if (state.pos.size() != rigid || state.vel.size() != rigid || state.rot.size() != rigid ||
      state.omega.size() != rigid || state.particles.pos_radius.size() != particles ||
      state.particles.vel_invmass.size() != particles) {
    throw std::invalid_argument("write: the state's sizes differ from the world's (" +
                                std::to_string(rigid) + " rigid bodies, " +
                                std::to_string(particles) + " particles)");
  }
  auto xyz = [](glm::vec4& to, const glm::vec4& from) { to = glm::vec4(glm::vec3(from), to.w); };
  for (std::size_t i = 0; i < rigid; ++i) {
    xyz(pos[i], state.pos[i]);
    xyz(vel[i], state.vel[i]);
    rot[i] = state.rot[i];
    omega[i] = glm::vec4(glm::vec3(state.omega[i]), 0.0f);
  }
  for (std::size_t k = 0; k < particles; ++k) {
    xyz(pos[rigid + k], state.particles.pos_radius[k]);
    xyz(vel[rigid + k], state.particles.vel_invmass[k]);
  }
}

CarriedSizes carried_sizes(const Scene& scene, const WorldArrays& world,
                           const Capacities& capacities) {
  const bool implicit = scene.settings.solver.integrator == Integrator::implicit;
  return {world.bodies(),
          world.rigid,
          world.particles(),
          world.joints(),
          capacities.pairs,
          capacities.contacts,
          implicit ? world.particles() : 0u};
}

void check_carried(const CarriedState& state, const CarriedSizes& z) {
#define VKPHYS_CHECK_CARRIED(T, name, count)                                                       \
  if (state.name.size() != (count)) {                                                              \
    throw std::invalid_argument("checkpoint: " #name " holds " +                                   \
                                std::to_string(state.name.size()) + " entries, the scene needs " + \
                                std::to_string(count) + " (a checkpoint of another scene?)");      \
  }
  VKPHYS_CARRIED_BUFFERS(VKPHYS_CHECK_CARRIED)
#undef VKPHYS_CHECK_CARRIED
}

void fill_world_stats(const kern::WorldCounters& c, const Scene& scene, const WorldArrays& world,
                      const Capacities& cap, StepStats& st) {
  st.bodies = world.bodies();
  st.pairs = c.pairs;
  st.manifolds = c.manifolds;
  st.reused_manifolds = c.reused;
  st.points = c.points;
  st.particle_contacts = c.pcontacts;
  st.cg_iterations = c.cg_iterations;
  st.cg_residual = std::bit_cast<float>(c.cg_residual);
  st.cg_unmet = c.cg_unmet;
  st.solver_residual = std::bit_cast<float>(c.residual);
  st.solver_residual_angular = std::bit_cast<float>(c.residual_w);
  const std::uint32_t points = c.points + std::min(c.pcontacts, cap.contacts);
  st.rows = points * (scene.settings.solver.friction ? 3u : 1u) + world.joint_rows;
  st.pair_capacity = cap.pairs;
  st.contact_capacity = cap.contacts;
  st.colors = 0;
  st.overflow_units = 0;
  st.colored_afresh = c.uncolored;
  if (scene.settings.solver.scheme == SolverScheme::colored) {
    const std::uint32_t maxc = scene.settings.solver.max_colors;
    // The highest colour in use + 1: the colours a sweep runs through. Colours kept from step
    // to step (kernels/world_coloring.inl) can leave one empty below it (its contacts ended);
    // the GPU records this many (choose_colors), and fewer would redo the step.
    for (std::uint32_t k = 0; k < maxc; ++k) {
      if (c.color_end[2 * k] > c.color_start[2 * k] ||
          c.color_end[2 * k + 1] > c.color_start[2 * k + 1]) {
        st.colors = k + 1;
      }
    }
    st.overflow_units = c.color_end[2 * maxc] - c.color_start[2 * maxc] +
                        c.color_end[2 * maxc + 1] - c.color_start[2 * maxc + 1];
  }
  st.stage_bytes = step_traffic(st, scene, world, cap).bytes;
}

}  // namespace vkphys
