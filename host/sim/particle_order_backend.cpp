// The backends with their particles in Morton order (solver.particle_reorder; the order and why:
// host/sim/particle_order.h).
//
// A wrapper around either backend, so that both hold the same order by the same host code and
// stay bit for bit each other's parity: it loads the inner backend with the scene's particles in
// Morton order, and before every step whose count is a multiple of the setting (the first after
// the load excepted: the load sorted them) it reads the particles' positions, finds their new
// order and has the inner backend renumber them (Backend::renumber_particles: the CPU backend
// relabels a checkpoint and restores from it, the GPU backend moves its buffers on the device,
// host/gpu/particle_renumber.h; the same bits). Everything it hands out is in the scene's order:
// the state of read(), the body indices and per-body arrays of a trace, a NaN's body. A checkpoint
// (CarriedState) keeps the buffers in the slots' order with the order beside them
// (CarriedState::particle_order), so a restored run goes on from the same slots, bit for bit.
//
// The reorder runs before the step rather than after the one before it, so that a checkpoint
// taken between steps holds the state as the uninterrupted run had it there, and the resumed run
// reorders at the same place. The CPU's restore reloads it, which is cheap next to hundreds of
// steps; on a GPU a reload (buffers, lists, recordings made again, the whole state through the
// host) cost more than the order saved, so the GPU only takes the new numbers and a read of the
// positions (the sort itself is still the host's: docs/benchmarks.md gives what each costs).
//
// With solver.particle_reorder 0 (the default) the wrapper passes every call through.
#include <memory>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "host/sim/backend.h"
#include "host/sim/particle_order.h"

namespace vkphys {
namespace {

class ParticleOrderBackend final : public Backend {
 public:
  explicit ParticleOrderBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  std::string name() const override { return inner_->name(); }

  void load(const Scene& scene, std::uint32_t pair_capacity,
            std::uint32_t contact_capacity) override {
    if (!begin(scene)) {
      inner_->load(scene, pair_capacity, contact_capacity);
      return;
    }
    std::span<const glm::vec4> pos(scene.particles.pos_radius);
    const std::vector<std::uint32_t> to = morton_relabel(pos, movable_);
    for (std::size_t k = 0; k < to.size(); ++k) order_[to[k]] = static_cast<std::uint32_t>(k);
    try {
      inner_->load(scene_in_order(scene, order_), pair_capacity, contact_capacity);
    } catch (const std::invalid_argument&) {
      // A scene the load rejects is rejected in any order; loaded as given, the message names
      // the scene's own particle indices rather than the slots'.
      const std::exception_ptr sorted_error = std::current_exception();
      order_.clear();
      inner_->load(scene, pair_capacity, contact_capacity);
      std::rethrow_exception(sorted_error);
    }
  }

  void step(StepTrace* trace) override { steps(1, trace, nullptr); }

  void steps(std::uint32_t n, StepTrace* trace, const std::function<void()>* after_each) override {
    if (order_.empty()) {
      inner_->steps(n, trace, after_each);
      return;
    }
    const std::function<void()> mapped = [&] {
      if (trace) trace_to_scene_order(*trace);
      if (after_each) (*after_each)();
    };
    while (n > 0) {
      const std::uint64_t taken = inner_->steps_taken();
      if (taken % every_ == 0 && taken != reordered_at_) reorder();
      const std::uint32_t part =
          static_cast<std::uint32_t>(std::min<std::uint64_t>(n, every_ - taken % every_));
      n -= part;
      // A trace is the last step's (every step's with after_each, mapped before it runs).
      StepTrace* t = after_each || n == 0 ? trace : nullptr;
      try {
        inner_->steps(part, t, after_each ? &mapped : nullptr);
      } catch (const NonFiniteState& e) {
        throw NonFiniteState(e.stage, scene_body(e.body), e.start_kept);
      }
      if (t && !after_each) trace_to_scene_order(*t);
    }
  }

  std::uint64_t steps_taken() const override { return inner_->steps_taken(); }

  void read(WorldState& out) const override {
    inner_->read(out);
    if (!order_.empty()) particles_to_scene_order(out.particles, order_);
  }

  void read_after_next_step() override { inner_->read_after_next_step(); }

  const StepStats& stats() const override { return inner_->stats(); }

  void write(const WorldState& state) override {
    if (order_.empty()) {
      inner_->write(state);
      return;
    }
    WorldState slots = state;
    particles_to_slot_order(slots.particles, order_);
    inner_->write(slots);
  }

  CarriedState save() const override {
    CarriedState s = inner_->save();
    s.particle_order = order_;
    return s;
  }

  void restore(const Scene& scene, const CarriedState& state) override {
    if (!begin(scene)) {
      if (!state.particle_order.empty()) {
        throw std::invalid_argument(
            "the checkpoint holds its particles reordered (solver.particle_reorder), and this "
            "scene's solver.particle_reorder is 0");
      }
      inner_->restore(scene, state);
      return;
    }
    // A checkpoint from a run without the reorder holds the scene's order.
    if (!state.particle_order.empty()) {
      check_particle_order(state.particle_order, movable_);
      order_ = state.particle_order;
    }
    inner_->restore(scene_in_order(scene, order_), state);
  }

  // For a caller that numbers the particles itself: only with the order off.
  void renumber_particles(const Scene& scene, const std::vector<std::uint32_t>& to) override {
    if (!order_.empty()) {
      throw std::logic_error(
          "renumber_particles on a backend that holds its particles in "
          "Morton order (solver.particle_reorder)");
    }
    inner_->renumber_particles(scene, to);
  }

  bool check_stages(bool on) override { return inner_->check_stages(on); }

 private:
  // Takes the scene's setting: false when its particles stay in the scene's order; otherwise
  // the identity order, to be sorted by the caller.
  bool begin(const Scene& scene) {
    scene_ = scene;
    every_ = scene.settings.solver.particle_reorder;
    rigid_ = static_cast<std::uint32_t>(scene.bodies.size() + scene.planes.size());
    reordered_at_ = 0;  // the load's order is the first step's
    order_.clear();
    movable_.clear();
    if (every_ == 0 || scene.particles.size() == 0) return false;
    movable_ = movable_particles(scene);
    order_.resize(scene.particles.size());
    std::iota(order_.begin(), order_.end(), 0u);
    return true;
  }

  void reorder() {
    reordered_at_ = inner_->steps_taken();
    WorldState now;
    inner_->read(now);
    const std::vector<std::uint32_t> to = morton_relabel(now.particles.pos_radius, movable_);
    if (is_identity(to)) return;
    std::vector<std::uint32_t> order(order_.size());
    for (std::size_t k = 0; k < to.size(); ++k) order[to[k]] = order_[k];
    order_ = std::move(order);
    inner_->renumber_particles(scene_in_order(scene_, order_), to);
  }

  std::uint32_t scene_body(std::uint32_t body) const {
    return body < rigid_ || body - rigid_ >= order_.size() ? body : rigid_ + order_[body - rigid_];
  }

  // Per-body arrays back to the scene's order; the lists keep the step's order.
  void trace_to_scene_order(StepTrace& t) const {
    for (glm::uvec4& pair : t.pairs) {
      pair.x = scene_body(pair.x);
      pair.y = scene_body(pair.y);
    }
    for (glm::uvec2& ab : t.pcontact_bodies) ab = glm::uvec2(scene_body(ab.x), scene_body(ab.y));
    auto bodies = [&](auto& v) {
      if (v.size() != rigid_ + order_.size()) return;
      auto moved = v;
      for (std::size_t k = 0; k < order_.size(); ++k) moved[rigid_ + order_[k]] = v[rigid_ + k];
      v = std::move(moved);
    };
    bodies(t.predicted_vel);
    bodies(t.split_range);
  }

  std::unique_ptr<Backend> inner_;
  Scene scene_;                         // as the caller gave it: particles in the scene's order
  std::uint32_t every_ = 0;             // solver.particle_reorder
  std::uint32_t rigid_ = 0;             // rigid bodies (scene bodies, then plane bodies)
  std::uint64_t reordered_at_ = 0;      // the step count of the last reorder
  std::vector<unsigned char> movable_;  // movable_particles(scene_)
  std::vector<std::uint32_t> order_;    // per slot, its particle's scene index; empty: off
};

}  // namespace

std::unique_ptr<Backend> with_particle_order(std::unique_ptr<Backend> inner) {
  return std::make_unique<ParticleOrderBackend>(std::move(inner));
}

}  // namespace vkphys
