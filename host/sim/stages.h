// The particle step as a list of stages, identical on both backends.
//
//   predict ─► hash ─► sort ─► cell ranges ─► count contacts ─► scan ─► write contacts
//      ─► prepare ─► solve (Jacobi × iterations) ─► integrate
//
// predict      v* = v + h M^-1 f, keep v_k (kernels/integrate.h)
// hash         key = grid-cell hash, value = index (kernels/grid.h)
// sort         stable radix sort of (key, value) (host/gpu/primitives.h, host/cpu/primitives.h)
// cell ranges  bucket -> [start, end) in the sorted order (kernels/cell_range.inl)
// count        directed contacts per particle: planes, then 27 neighbour cells
// scan         exclusive scan of the counts -> offsets; total, overflow flag, indirect args
// write        contacts stored at their offsets, in the count pass's order (contacts_find.inl)
// prepare      SPOOK velocity targets from v_k (kernels/contact_row.h)
// solve        projected Jacobi with mass splitting (kernels/contacts_solve.inl)
// integrate    x' = x + h v'
#pragma once

#include <array>
#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

namespace vkphys {

enum class Stage : std::uint32_t {
  predict,
  hash,
  sort,
  cell_ranges,
  count_contacts,
  scan,
  write_contacts,
  prepare,
  solve,
  integrate,
};
inline constexpr std::size_t kStageCount = 10;
const char* stage_name(Stage s);

struct StepStats {
  std::uint32_t contacts = 0;          // directed contacts (each touching pair counts twice)
  std::uint32_t contact_capacity = 0;  // capacity after this step
  std::uint32_t regrows = 0;           // times this step was redone after an overflow
  std::uint32_t dispatches = 0;        // compute dispatches per step (GPU); 0 on the CPU
  std::array<double, kStageCount> stage_ms{};  // per-stage time of the last step
};

// Every intermediate buffer of one step, for stage-by-stage backend comparison.
struct StepTrace {
  std::vector<glm::vec4> predicted_vel;
  std::vector<std::uint32_t> sorted_keys, sorted_values;
  std::vector<std::uint32_t> cell_start, cell_end;
  std::vector<std::uint32_t> contact_offset;  // N + 1 entries
  std::vector<glm::uvec2> contact_bodies;
  std::vector<glm::vec4> contact_geom, contact_target, contact_lambda;
  std::vector<glm::vec4> vel, pos;
};

}  // namespace vkphys
