// The CPU backend's working arrays: a vector for each buffer the GPU backend binds that the
// world's own arrays (WorldArrays, host/sim/world_setup.h) do not hold, sized as the GPU sizes
// its buffers, and the kern::WorldEnv that points the kernel functions at them. The step's
// logic, which runs the kernels over these in the GPU's order, is host/cpu/cpu_backend.cpp.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "host/cpu/world_env.h"
#include "host/sim/world_setup.h"

namespace vkphys {

struct CpuBuffers {
  // Every array of a freshly loaded `world`, warm-start data empty; size_lists sizes the pair
  // and contact lists.
  void load(const WorldArrays& world, const kern::WorldParams& params, bool implicit);
  // The pair and contact lists at `cap`, empty but for last step's pairs and particle contacts,
  // which keep their slots and places (the caller rebuilds the warm-start hash table from
  // them). `ordered`: the coloured scheme's gather into colour order has its copies.
  void size_lists(const WorldArrays& world, const kern::WorldParams& params, const Capacities& cap,
                  bool ordered);
  // The kernels' view of `world` and these arrays under `params`.
  kern::WorldEnv env(const kern::WorldParams& params, WorldArrays& world);

  std::vector<glm::vec4> drive_paths, drive_impulses;  // this step's (host/sim/drive.h)
  std::vector<glm::vec4> ode_state, ode_deriv, cg_vec, cg_dv, cg_partial, cg_scalar, cg_factor,
      cg_blocks;
  std::vector<glm::vec4> start, omega_start, iinv, aabb, vel_pos, sweep_ref, tree_blocks,
      pair_normal, point_geom, point_lambda, point_prep, prev_lambda, joint_rows, joint_lambda,
      unit_dv, pc_geom, pc_target, pc_lambda, pc_copy_lambda, prev_pc_lambda, pair_frame, point_ref,
      prev_frame, sweep_yz, joint_frames;
  std::vector<glm::uvec4> pair_info, prev_info, walk_ranges;
  std::vector<glm::uvec2> range, pc_bodies, pc_copy_bodies;
  std::vector<std::uint32_t> color, keys, values, offsets, hash, unit_color, grid_keys, grid_values,
      cell_start, cell_end, pc_offsets, pc_origin, prev_pc_offsets, prev_pc_other, ode_touched,
      walk;
};

}  // namespace vkphys
