// The Vulkan backend of the world step (host/sim/backend.h): load, step, read and write,
// checkpoints, statistics. The stages run as compute dispatches recorded once into a command
// buffer and replayed every step (host/gpu/step_recording.cpp records it) over the world's
// device buffers (host/gpu/world_buffers.cpp sizes them); this file decides when to size, record
// and redo.
//
// Per step: one submit, one fence wait, and a read of the counter block: pair and contact
// counts, overflow flag, points, colour ranges. The counters and the step constants live in
// device-local memory (every narrowphase pair counts atomically and every invocation reads the
// constants: in host-visible memory, which on a discrete GPU is system memory, each of those is
// a trip over PCIe). The host writes the constants into a host-visible copy that the step's
// first command copies in, and the step's last command copies the counters out to a
// host-visible readback block. Nothing is read back mid-step (the step's GPU-counted work runs
// in indirect dispatches). When a list did not fit, the host restores the step-start state
// (copied aside at the start of every step), grows the list to 1.5x what was needed, rebuilds
// the warm-start table, re-records and redoes the step. So too, re-recorded with more, when
// fewer colours were recorded than the colouring needed, or fewer CG iterations than a solve
// needed (host/sim/ode_control.h, R).
//
// Pipelined steps (steps(n)): step s + 1 is submitted before the host waits for step s, so the
// device never idles while the host reads s's counters, decides and submits; two steps are in
// flight at most. What the host writes for a step or reads after it (constants, kinematic
// paths, the step-start backup, the counter readback) is kept per in-flight slot (kSlots,
// host/gpu/world_buffers.h); the step's recording is shared, each slot's begin and end around
// it. A step undone by its counters is found one step late, with s + 1 already run on what s
// left: s + 1 committed nothing (it sees s's undo flags: WorldCounters::undone_before), so the
// host restores s's start from s's slot, grows or re-records, and redoes s and then s + 1; no
// contact is lost and the bits are those of the steps taken one at a time
// (tests/test_pipelined_steps.cpp). A recording re-chosen after s (colours, fusion, CG
// iterations) waits for s + 1, which ran the old recording: those choices never change the
// result (host/gpu/step_recording.h). The adaptive explicit step, whose ODE step count follows
// each step's error, runs one step at a time. A caller that looks at every step (steps'
// after_each) reads step s's state from s's slot of a ring of transfer buffers while s + 1
// runs; s + 1's commit is held back until the caller is done with s, so that a caller who stops
// there leaves it uncommitted and restorable from its backup.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/gpu/particle_renumber.h"
#include "host/gpu/step_recording.h"
#include "host/gpu/world_buffers.h"
#include "host/gpu/world_kernels.h"
#include "host/sim/ode_control.h"
#include "host/sim/world_setup.h"
#include "host/vk/kernel.h"
#include "kernels/stages.h"

namespace vkphys {
namespace {

class GpuBackend final : public Backend {
 public:
  GpuBackend(vk::Context& ctx, std::optional<Stage> fault, FusedPolicy fused, CgRecording cg,
             WarmStart warm)
      : ctx_(ctx),
        fused_(fused == FusedPolicy::automatic && ctx.info().type == "cpu" ? FusedPolicy::never
                                                                           : fused),
        cg_recording_(cg),
        warm_(warm),
        constants_(fault),
        kernels_(supported(ctx), constants_.values),
        timestamps_(ctx, kStageCount + 1) {
    for (VkFence& fence : fences_) fence = ctx_.create_fence();
    for (VkFence& fence : head_fences_) fence = ctx_.create_fence();
  }

  ~GpuBackend() override {
    // A step may still be in flight after an exception; its command buffers must not be freed
    // under it.
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      if (in_flight_[slot]) vkWaitForFences(ctx_.device(), 1, &fences_[slot], VK_TRUE, UINT64_MAX);
      if (head_in_flight_[slot]) {
        vkWaitForFences(ctx_.device(), 1, &head_fences_[slot], VK_TRUE, UINT64_MAX);
      }
      ctx_.destroy_fence(fences_[slot]);
      ctx_.destroy_fence(head_fences_[slot]);
    }
    free_command_buffer();
    free_state_copy();
    free_trace_copies();
  }

  // `ctx`, unless its device lacks what the step's kernels use (checked before their pipelines
  // are made, which would fail less clearly).
  static vk::Context& supported(vk::Context& ctx) {
    auto require = [&](bool has, const char* what, const char* bit, const char* user) {
      if (has) return;
      throw vk::Unavailable("Vulkan device " + ctx.info().name + " has no subgroup " + what +
                            " in compute shaders (" + bit + "), which the GPU step's " + user +
                            "; use --backend cpu");
    };
    require(ctx.info().subgroup_arithmetic, "arithmetic", "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT",
            "narrowphase counts with");
    require(ctx.info().subgroup_ballot, "ballots", "VK_SUBGROUP_FEATURE_BALLOT_BIT",
            "colouring lists its uncoloured units with");
    return ctx;
  }

  std::string name() const override { return "gpu (" + ctx_.info().name + ")"; }

  void load(const Scene& scene, std::uint32_t pair_capacity,
            std::uint32_t contact_capacity) override {
    if (scene.settings.solver.scheme == SolverScheme::sequential) {
      throw std::invalid_argument(
          "solver.scheme = \"sequential\" runs on the CPU backend only (use colored or jacobi "
          "on the GPU)");
    }
    finish_all();       // a step that an exception left in flight (its buffers go below)
    renumber_.reset();  // its sets name buffers made for the last scene
    scene_ = scene;
    world_ = build_world(scene);
    n_ = world_.bodies();
    r_ = world_.rigid;
    j_ = world_.joints();
    cap_ = default_capacities(world_);
    if (pair_capacity) cap_.pairs = pair_capacity;
    if (contact_capacity) cap_.contacts = contact_capacity;
    const kern::WorldParams params = make_world_params(scene_, world_, cap_);  // validates first
    gpu_.size_world(ctx_, scene_, world_, params);
    free_state_copy();
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      state_transfer_[slot] =
          vk::Buffer(ctx_, (2u * std::uint64_t(n_) + 2u * r_) * sizeof(glm::vec4), 0, true);
      state_copy_cb_[slot] = record_state_copy(slot);
    }
    state_copied_ = false;
    ode_ = {};
    recorded_.colors = scene_.settings.solver.max_colors;
    color_window_ = {};
    recorded_.fuse_coloring = recorded_.fuse_sweeps = fused_ == FusedPolicy::always;
    recorded_.carry_warm_start =
        warm_ == WarmStart::carried && carries_warm_start(scene_.settings.solver, world_);
    stats_ = {};
    step_index_ = 0;
    redos_for_ = ~std::uint64_t{0};
    allocate_lists();
  }

  void read_after_next_step() override { copy_state_next_ = true; }

  void step(StepTrace* trace) override { steps(1, trace, nullptr); }

  // Steps [step_index_, end) go through three states: submitted (up to two, one per in-flight
  // slot), waited for (their counters readable in their slot's readback block), accepted. Each
  // loop turn makes sure step s and, pipelining, step s + 1 are submitted, waits for s and reads
  // its counters; then either accepts s, or restores s's start and redoes it, and s + 1 with it
  // (s + 1 ran on what s left and committed nothing: WorldCounters::undone_before).
  // With `after_each`, every step copies its state out into its slot's transfer buffer, a ring
  // of two: after_each reads step s's from its slot while s + 1 runs, and returns before s + 2,
  // which reuses the slot, is submitted. The step ahead is then submitted in two parts
  // (RecordedStep): its commit and end only once after_each is done with the step before, so
  // that a throw from after_each finds it uncommitted.
  void steps(std::uint32_t n, StepTrace* trace, const std::function<void()>* after_each) override {
    if (n == 0) return;
    stage_mean_ = {};
    const bool copy_last = std::exchange(copy_state_next_, false) || after_each;
    state_copied_ = false;
    const SolverSettings& sv = scene_.settings.solver;
    // The adaptive integrator's n follows each step's error, which a step submitted ahead could
    // not see (its result would differ from the step taken alone): it runs one step at a time.
    const bool ahead = !ode_.adaptive(sv);
    const std::uint64_t end = step_index_ + n;
    submitted_ = committed_ = step_index_;
    auto copy_state = [&](std::uint64_t s) { return after_each || (copy_last && s + 1 == end); };
    auto traced = [&](std::uint64_t s) { return trace && (after_each || s + 1 == end); };
    kern::WorldCounters counters;
    while (step_index_ < end) {
      const std::uint64_t s = step_index_;
      if (submitted_ == s) {
        submit_step(s, copy_state(s), traced(s), Part::whole);
        submitted_ = committed_ = s + 1;
      } else if (committed_ == s) {
        submit_step(s, copy_state(s), traced(s), Part::tail);
        committed_ = s + 1;
      }
      if (ahead && submitted_ == s + 1 && submitted_ < end) {
        submit_step(submitted_, copy_state(submitted_), traced(submitted_),
                    after_each ? Part::head : Part::whole);
        ++submitted_;
        if (!after_each) committed_ = submitted_;
      }
      if (redos_for_ != s) {
        redos_for_ = s;
        stats_.regrows = stats_.ode_redos = stats_.cg_redos = stats_.color_redos = 0;
      }
      const std::uint32_t slot = slot_of(s);
      finish(slot);
      std::memcpy(&counters, gpu_.counters_host[slot].mapped(),
                  offsetof(kern::WorldCounters, undone_before));
      if (counters.overflow) {
        redo_from(s);
        cap_ = grown_capacities(cap_, counters.pairs, counters.pcontacts, world_.joints());
        ++stats_.regrows;
        allocate_lists();
        continue;
      }
      fill_world_stats(counters, scene_, world_, cap_, stats_);
      if (counters.redo) {
        // Fewer colours were recorded than the colouring needed: redo with all of them.
        redo_from(s);
        ++stats_.color_redos;
        recorded_.colors = scene_.settings.solver.max_colors;
        rerecord();
        continue;
      }
      const bool over = counters.ode_over != 0u;
      if (ode_.redo(sv, std::bit_cast<float>(counters.ode_error)) != over) {
        throw std::logic_error("the adaptive step's redo and the GPU's ode_over flag disagree");
      }
      if (over) {
        // The adaptive step's error passed its tolerance: redo it with twice the ODE steps (its
        // commit was skipped).
        redo_from(s);
        ++stats_.ode_redos;
        rerecord();
        continue;
      }
      if (ode_.cg_redo(sv, counters.cg_short != 0u)) {
        // A solve ran out of the recorded CG iterations unconverged: redo with the cap.
        redo_from(s);
        ++stats_.cg_redos;
        rerecord();
        continue;
      }
      if (counters.nonfinite != 0u) {
        // After the redos (a smaller adaptive step may stay finite): the step left a body NaN or
        // infinite (flag_nonfinite) and committed nothing: its start, the last finite state, comes
        // back, and the step is not counted.
        redo_from(s);
        throw NonFiniteState::found_by_step(counters.nonfinite, true);
      }
      accept(counters, slot, after_each || s + 1 == end ? trace : nullptr);
      if (after_each) each_step(*after_each);
    }
    state_copied_ = copy_last;
    state_slot_ = slot_of(end - 1);
  }

  std::uint64_t steps_taken() const override { return step_index_; }

  void read(WorldState& out) const override {
    if (!state_copied_) copy_state_out();
    const auto* base = static_cast<const glm::vec4*>(state_transfer_[state_slot_].mapped());
    world_state(scene_, r_, {base, n_}, {base + n_, n_}, {base + 2u * n_, r_},
                {base + 2u * n_ + r_, r_}, out);
  }

  const StepStats& stats() const override { return stats_; }

  void write(const WorldState& state) override {
    std::vector<glm::vec4> pos, vel, rot, omega;
    download_state(pos, vel, rot, omega);  // the w components (radii, 1/m) stay
    write_world_state(state, r_, pos, vel, rot, omega);
    upload_state(pos, vel, rot, omega);
  }

  CarriedState save() const override {
    const CarriedSizes z = carried_sizes(scene_, world_, cap_);
    CarriedState s;
    s.step = step_index_;
    s.pair_capacity = cap_.pairs;
    s.contact_capacity = cap_.contacts;
    std::vector<vk::DownloadPart> parts;  // all in one submission (vk::download)
#define VKPHYS_DOWNLOAD_CARRIED(T, name, count) \
  s.name.resize(count);                         \
  parts.push_back({&gpu_.buf[b_##name], 0, s.name.data(), s.name.size() * sizeof(T)});
    VKPHYS_CARRIED_BUFFERS(VKPHYS_DOWNLOAD_CARRIED)
#undef VKPHYS_DOWNLOAD_CARRIED
    vk::download(ctx_, parts);
    return s;
  }

  void restore(const Scene& scene, const CarriedState& s) override {
    load(scene, s.pair_capacity, s.contact_capacity);
    check_carried(s, carried_sizes(scene_, world_, cap_));
    std::vector<vk::UploadPart> parts;  // all in one submission (vk::upload)
#define VKPHYS_UPLOAD_CARRIED(T, name, count) \
  parts.push_back({&gpu_.buf[b_##name], 0, s.name.data(), s.name.size() * sizeof(T)});
    VKPHYS_CARRIED_BUFFERS(VKPHYS_UPLOAD_CARRIED)
#undef VKPHYS_UPLOAD_CARRIED
    vk::upload(ctx_, parts);
    allocate_lists();  // rebuilds the warm-start table from the restored pairs
    step_index_ = s.step;
  }

  // On the device (host/gpu/particle_renumber.h), between steps: no reload, and nothing but the
  // new numbers goes through the host.
  void renumber_particles(const Scene& scene, const std::vector<std::uint32_t>& to) override {
    const std::uint32_t particles = world_.particles();
    if (to.size() != particles || scene.particles.size() != particles) {
      throw std::invalid_argument("renumber_particles: " + std::to_string(to.size()) +
                                  " new numbers for " + std::to_string(particles) + " particles");
    }
    finish_all();
    if (!renumber_ || !renumber_->fits(particles, cap_.contacts)) {
      renumber_ = std::make_unique<ParticleRenumber>(ctx_, particles, cap_.contacts);
    }
    renumber_->upload(to);
    const bool with_cg = particles > 0 && gpu_.backup_cg == particles * sizeof(glm::vec4);
    ctx_.run_once([&](VkCommandBuffer cb) {
      renumber_->record(cb, gpu_, r_, cap_.pairs, with_cg);
      record_warm_start_table(cb);
    });
    // The host's copies in the new order too: read() takes shapes and materials from the scene.
    scene_ = scene;
    for (std::vector<glm::vec4>* v : {&world_.pos, &world_.vel}) {
      const std::vector<glm::vec4> old(v->begin() + r_, v->end());
      for (std::uint32_t k = 0; k < particles; ++k) (*v)[r_ + to[k]] = old[k];
    }
    const std::vector<glm::uvec4> info(world_.info.begin() + r_, world_.info.end());
    for (std::uint32_t k = 0; k < particles; ++k) world_.info[r_ + to[k]] = info[k];
    state_copied_ = false;
  }

 private:
  static std::uint32_t slot_of(std::uint64_t step) {
    return static_cast<std::uint32_t>(step % kSlots);
  }

  // A step's submissions: whole (begin, main, commit, end), or head (begin, main) and later tail
  // (commit, end): RecordedStep.
  enum class Part { whole, head, tail };

  // Step `s`, or a part of it, into its slot's submission: its kinematic paths and due impulses
  // into the slot's drive block and step constants, then begin, the step and end (and the copy of
  // the state out, when a read follows it, and of the contact lists, when a trace is filled).
  // The step's last part signals the slot's fence, a head its head fence.
  void submit_step(std::uint64_t s, bool copy_state, bool copy_trace, Part part) {
    const std::uint32_t slot = slot_of(s);
    if (copy_trace) make_trace_copies();
    std::array<VkCommandBuffer, 6> cbs{};
    std::uint32_t count = 0;
    auto add = [&](VkCommandBuffer cb) { cbs[count++] = cb; };
    if (part != Part::tail) {
      world_.drive.step(s, drive_paths_, drive_impulses_);
      auto* drive = static_cast<char*>(gpu_.drive_host[slot].mapped());
      const std::size_t paths = drive_paths_.size() * sizeof(glm::vec4);
      if (paths) std::memcpy(drive, drive_paths_.data(), paths);
      if (!drive_impulses_.empty()) {
        std::memcpy(drive + gpu_.buf[b_drive_paths].size(), drive_impulses_.data(),
                    drive_impulses_.size() * sizeof(glm::vec4));
      }
      auto* params = static_cast<kern::WorldParams*>(gpu_.params_host[slot].mapped());
      *params = params_;
      params->drive.z = static_cast<std::uint32_t>(drive_impulses_.size() / 2);
      add(step_.begin[slot]);
      add(step_.main);
      if (part == Part::head) {
        ctx_.submit(std::span(cbs.data(), count), head_fences_[slot]);
        head_in_flight_[slot] = true;
        return;
      }
    }
    add(step_.commit);
    add(step_.end[slot]);
    if (copy_state) add(state_copy_cb_[slot]);
    if (copy_trace) add(trace_copy_cb_[slot]);
    ctx_.submit(std::span(cbs.data(), count), fences_[slot]);
    in_flight_[slot] = true;
  }

  // after_each for the step just accepted (step_index_ - 1), whose state its slot's transfer
  // buffer holds. A throw from it drops the step submitted after it, which has not committed
  // (its commit waits for after_each): the device's state goes back to that step's start, from
  // its slot's backup, so that the steps taken stand alone.
  void each_step(const std::function<void()>& after_each) {
    state_slot_ = slot_of(step_index_ - 1);
    state_copied_ = true;
    try {
      after_each();
    } catch (...) {
      state_copied_ = false;
      if (submitted_ > step_index_) redo_from(step_index_);
      state_copied_ = true;  // the transfer buffer still holds the last step taken
      throw;
    }
    state_copied_ = false;
  }

  // Waits for the slot's submissions, if it has any in flight.
  void finish(std::uint32_t slot) {
    if (head_in_flight_[slot]) {
      head_in_flight_[slot] = false;
      ctx_.wait(head_fences_[slot]);
    }
    if (!in_flight_[slot]) return;
    in_flight_[slot] = false;
    ctx_.wait(fences_[slot]);
  }

  void finish_all() {
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) finish(slot);
  }

  // Step s is to be redone: the step submitted after it, if any, is dropped (it ran on what s
  // left), and s's start state comes back from its slot's backup, with the counters cleared
  // (the dropped steps' undo flags too).
  void redo_from(std::uint64_t s) {
    finish_all();
    submitted_ = committed_ = s;
    ctx_.run_once([&](VkCommandBuffer cb) {
      gpu_.backup_copies(cb, true, world_, slot_of(s));
      gpu_.buf[b_counters].fill(cb, 0u);
    });
  }

  // Step step_index_ stands: its statistics, what the next recording should hold (re-recorded
  // once the step submitted after it has finished), its trace.
  void accept(const kern::WorldCounters& counters, std::uint32_t slot, StepTrace* trace) {
    const SolverSettings& sv = scene_.settings.solver;
    const float error = std::bit_cast<float>(counters.ode_error);
    stats_.ode_steps = sv.integrator == Integrator::symplectic ? 0u : ode_.steps;
    stats_.ode_error = error;
    bool changed = choose_fusion(fused_, counters, scene_, world_, cap_, recorded_);
    changed = ode_.relax(sv, error) || changed;
    if (cg_recording_ == CgRecording::to_need)
      changed = ode_.cg_relax(sv, counters.cg_most) || changed;
    // The colouring passes stop at the recorded colours too; if units are left over, the step
    // is redone with every colour.
    if (sv.scheme == SolverScheme::colored) {
      changed = choose_colors(stats_.colors, color_window_, recorded_) || changed;
    }
    if (changed) {
      finish_all();  // the step ahead ran the old recording: the same bits (step_recording.h)
      rerecord();
    }
    stats_.device_bytes = ctx_.allocated_bytes();
    // The step's own stage times, which its end copied into its slot (step_recording.cpp).
    if (timestamps_.supported()) {
      const std::vector<double> ms = timestamps_.intervals_ms(
          static_cast<const std::uint64_t*>(gpu_.stamps_host[slot].mapped()));
      std::array<double, kStageCount> step_ms{};
      std::copy_n(ms.begin(), std::min(ms.size(), kStageCount), step_ms.begin());
      stage_mean_.add(step_ms, stats_.stage_ms);
    }
    if (trace) {
      fill_trace(*trace, std::min(counters.pairs, cap_.pairs),
                 std::min(counters.pcontacts, cap_.contacts));
    }
    ++step_index_;  // last: a throw above leaves the step untaken, as a throw in its submit
  }

  // (Re)allocates everything sized by the capacities; last step's pairs keep their slots (the
  // warm-start table is rebuilt from them) and last step's particle contacts their places.
  void allocate_lists() {
    params_ = make_world_params(scene_, world_, cap_);
    std::memcpy(gpu_.params_host[0].mapped(), &params_, sizeof params_);
    free_trace_copies();  // copies of the lists replaced below
    WorldBuffers::KeptLists old = gpu_.size_lists(ctx_, scene_, world_, cap_, params_);
    free_command_buffer();
    for (vk::Kernel* k : kernels_.all()) k->reset_sets();
    gpu_.sets.clear();
    ctx_.run_once([&](VkCommandBuffer cb) {
      // The hash insert below reads the new capacities from the step constants.
      gpu_.copy_params_in(cb, 0);
      gpu_.buf[b_counters].fill(cb, 0u);  // no undo flags before the first step (undone_before)
      // The old list into the front of the grown buffer and zeros behind it: the two transfers
      // write disjoint ranges, so they need no barrier between them (two transfer writes to one
      // range may land in either order without one).
      for (const auto& [binding, list] : old) {
        if (list.handle()) vk::copy(cb, list, gpu_.buf[binding], list.size());
        gpu_.buf[binding].fill(cb, 0u, list.size());
      }
      vk::barrier(cb);
      record_warm_start_table(cb);
    });
    record();
  }

  // The rigid pairs' warm-start table (prev_hash) rebuilt from last step's pairs.
  void record_warm_start_table(VkCommandBuffer cb) {
    gpu_.buf[b_prev_hash].fill(cb, VKPHYS_EMPTY_SLOT);
    vk::barrier(cb);
    const std::uint32_t insert[4] = {kern::COMMIT_HASH_INSERT, 1u, 0u, 0u};
    kernels_.commit().dispatch(cb, gpu_.set(kernels_.commit()),
                               vk::groups_for(cap_.pairs, VKPHYS_GROUP_SIZE), insert);
  }

  void record() {
    step_ = record_step(
        {ctx_, kernels_, timestamps_, gpu_, scene_, world_, cap_, params_, ode_, recorded_},
        stats_);
  }

  void rerecord() {
    free_command_buffer();
    record();
  }

  void free_command_buffer() {
    auto free = [&](VkCommandBuffer& cb) {
      if (cb) ctx_.free_command_buffer(cb);
      cb = VK_NULL_HANDLE;
    };
    free(step_.main);
    free(step_.commit);
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      free(step_.begin[slot]);
      free(step_.end[slot]);
    }
  }

  // The contact lists a trace holds (StepTrace), copied out whole (their capacities: the step's
  // counts are not known when the copy is recorded) into the slot's trace_host_ by a command
  // buffer that rides in the step's submission, as the state's copy does. Before, each list was
  // its own download (a staging buffer made and freed, a submit and a wait: twelve a step for a
  // World that records contacts, as `vkphys run` of a rigid scene does), and the step ahead
  // could not run meanwhile, since the lists were read from the device buffers it rewrites.
  std::array<const vk::Buffer*, 11> trace_sources() const {
    return {&gpu_.buf[b_pair_info],
            &gpu_.buf[b_pair_normal],
            &gpu_.buf[b_point_geom],
            &gpu_.buf[b_point_lambda],
            &gpu_.buf[b_unit_color],
            &gpu_.buf[b_joint_lambda],
            &gpu_.predicted,
            &gpu_.buf[b_pcontact_bodies],
            &gpu_.buf[b_pcontact_geom],
            &gpu_.buf[b_pcontact_lambda],
            &gpu_.buf[b_body_range]};
  }

  // The slots' trace buffers and copies, made when a step first fills a trace after a load or a
  // regrow (a World that records no contacts has none). No step is in flight when they go.
  void make_trace_copies() {
    if (trace_copy_cb_[0]) return;
    VkDeviceSize bytes = 0;
    for (const vk::Buffer* b : trace_sources()) bytes += b->size();
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      trace_host_[slot] = vk::Buffer(ctx_, bytes, 0, true);
      VkCommandBuffer cb = ctx_.allocate_command_buffer();
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
      vk::barrier(cb);  // after the step's last writes (see record_state_copy)
      VkDeviceSize at = 0;
      for (const vk::Buffer* b : trace_sources()) {
        copy_region(cb, *b, trace_host_[slot], 0, at, b->size());
        at += b->size();
      }
      vk::barrier_to_host_and_queue(cb);  // before the step ahead rewrites the lists
      vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
      trace_copy_cb_[slot] = cb;
    }
  }

  void free_trace_copies() {
    for (std::uint32_t slot = 0; slot < kSlots; ++slot) {
      if (trace_copy_cb_[slot]) ctx_.free_command_buffer(trace_copy_cb_[slot]);
      trace_copy_cb_[slot] = VK_NULL_HANDLE;
      trace_host_[slot] = vk::Buffer();
    }
  }

  // Step step_index_'s lists from its slot's trace buffer: the stored pairs and contacts.
  void fill_trace(StepTrace& t, std::uint32_t pairs, std::uint32_t contacts) const {
    const auto* base = static_cast<const char*>(trace_host_[slot_of(step_index_)].mapped());
    const std::array<const vk::Buffer*, 11> sources = trace_sources();
    std::size_t part = 0;
    VkDeviceSize at = 0;
    // The next source's first `count` elements (of type T), from `offset` bytes into it.
    auto take = [&]<class T>(std::vector<T>& out, std::size_t count, VkDeviceSize offset = 0,
                             bool next = true) {
      const auto* from = reinterpret_cast<const T*>(base + at + offset);
      out.assign(from, from + count);
      if (next) at += sources[part++]->size();
    };
    const std::size_t p = pairs, v4 = sizeof(glm::vec4);
    take(t.pairs, p);
    take(t.normals, p);
    take(t.points, 4 * p);
    take(t.lambdas, 4 * p);
    take(t.colors, j_ + p + contacts);
    take(t.joint_lambda, 2 * std::size_t{j_});
    take(t.predicted_vel, n_, 0, false);
    take(t.predicted_omega, r_, n_ * v4);
    take(t.pcontact_bodies, contacts);
    take(t.pcontact_geom, contacts);
    take(t.pcontact_lambda, contacts);
    take(t.split_range, n_);
  }

  // The state arrays (pos, vel: n_ each; rot, omega: r_ each) through state_transfer_,
  // host-visible buffers kept from load, one per in-flight slot. Before, each array was its own
  // download or upload, making and freeing a staging buffer and submitting and waiting alone. A
  // World reads the state after every step by default, and on an H200 `vkphys soak` of the
  // 10,000-box pile ran at 10.5 ms a step against the bench's 1.5 for the same step
  // (docs/benchmarks.md, stop 44). Now the copy out rides in the step's own submission when a read
  // follows it (read_after_next_step), and a read copies the arrays straight from the mapped buffer
  // into the caller's: no submit, no wait and no allocation beyond the step's. Otherwise one submit
  // and wait each way. Steps read one by one (steps' after_each) copy into their slot's buffer,
  // so that step s is read while s + 1 runs.
  struct StatePart {
    Binding buf;
    VkDeviceSize at, bytes;
  };
  std::array<StatePart, 4> state_parts() const {
    const VkDeviceSize body = n_ * sizeof(glm::vec4), rigid = r_ * sizeof(glm::vec4);
    return {{{b_body_pos, 0, body},
             {b_body_vel, body, body},
             {b_rigid_rot, 2 * body, rigid},
             {b_rigid_omega, 2 * body + rigid, rigid}}};
  }

  // The state into a transfer buffer in a submission of its own (no step is in flight).
  void copy_state_out() const {
    state_slot_ = 0;
    ctx_.run_once([&](VkCommandBuffer cb) { record_state_parts(cb, true, state_slot_); });
    state_copied_ = true;
  }

  void download_state(std::vector<glm::vec4>& pos, std::vector<glm::vec4>& vel,
                      std::vector<glm::vec4>& rot, std::vector<glm::vec4>& omega) const {
    if (!state_copied_) copy_state_out();
    const auto* base = static_cast<const glm::vec4*>(state_transfer_[state_slot_].mapped());
    pos.assign(base, base + n_);
    vel.assign(base + n_, base + 2u * n_);
    rot.assign(base + 2u * n_, base + 2u * n_ + r_);
    omega.assign(base + 2u * n_ + r_, base + 2u * n_ + 2u * r_);
  }

  // The copies of the state parts into the slot's transfer buffer (`out`) or back, with the
  // barrier that makes them visible to the host after an outward copy.
  void record_state_parts(VkCommandBuffer cb, bool out, std::uint32_t slot) const {
    const vk::Buffer& transfer = state_transfer_[slot];
    for (const StatePart& p : state_parts()) {
      if (out) {
        copy_region(cb, gpu_.buf[p.buf], transfer, 0, p.at, p.bytes);
      } else {
        copy_region(cb, transfer, gpu_.buf[p.buf], p.at, 0, p.bytes);
      }
    }
    if (out) vk::barrier_to_host_and_queue(cb);  // and before the step ahead moves it
  }

  // The copy out as a command buffer of its own, recorded once at load and submitted behind a
  // step that a read follows (read_after_next_step). Its first barrier orders it after the
  // step's last writes to the state: a barrier's first scope is every command submitted before
  // it on the queue, the other command buffers of the same submission included.
  VkCommandBuffer record_state_copy(std::uint32_t slot) {
    VkCommandBuffer cb = ctx_.allocate_command_buffer();
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk::check(vkBeginCommandBuffer(cb, &begin), "vkBeginCommandBuffer");
    vk::barrier(cb);
    record_state_parts(cb, true, slot);
    vk::check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
    return cb;
  }

  void free_state_copy() {
    for (VkCommandBuffer& cb : state_copy_cb_) {
      if (cb) ctx_.free_command_buffer(cb);
      cb = VK_NULL_HANDLE;
    }
  }

  void upload_state(const std::vector<glm::vec4>& pos, const std::vector<glm::vec4>& vel,
                    const std::vector<glm::vec4>& rot, const std::vector<glm::vec4>& omega) {
    state_slot_ = 0;
    auto* base = static_cast<glm::vec4*>(state_transfer_[state_slot_].mapped());
    std::copy(pos.begin(), pos.end(), base);
    std::copy(vel.begin(), vel.end(), base + n_);
    std::copy(rot.begin(), rot.end(), base + 2u * n_);
    std::copy(omega.begin(), omega.end(), base + 2u * n_ + r_);
    ctx_.run_once([&](VkCommandBuffer cb) { record_state_parts(cb, false, state_slot_); });
    state_copied_ = true;  // the transfer buffer holds what the device now has
  }

  vk::Context& ctx_;
  FusedPolicy fused_;  // automatic resolved to never on a CPU Vulkan driver
  CgRecording cg_recording_;
  WarmStart warm_;
  WorldConstants constants_;
  WorldKernels kernels_;
  vk::Timestamps timestamps_;
  StageTimeMean stage_mean_;  // this steps() call's stage times (StepStats::stage_ms)
  Scene scene_;
  WorldArrays world_;
  Capacities cap_;
  kern::WorldParams params_{};  // the step constants as allocate_lists last made them
  std::uint32_t n_ = 0, r_ = 0, j_ = 0;
  RecordChoices recorded_;    // what the recorded step colours, sweeps and fuses
  ColorWindow color_window_;  // the colours recorded (choose_colors)
  OdeControl ode_;  // the explicit integrators' n, the implicit one's R (host/sim/ode_control.h)
  StepStats stats_;
  std::uint64_t step_index_ = 0;  // steps taken since load (the drive schedule's clock)
  std::vector<glm::vec4> drive_paths_, drive_impulses_;
  WorldBuffers gpu_;
  std::unique_ptr<ParticleRenumber> renumber_;  // made at the first renumbering after a load
  // Per in-flight slot, host-visible: pos, vel (n_ each), rot, omega (r_ each), and the command
  // buffer that copies them out behind a step in that slot (record_state_copy).
  std::array<vk::Buffer, kSlots> state_transfer_;
  std::array<VkCommandBuffer, kSlots> state_copy_cb_{};
  bool copy_state_next_ = false;  // read_after_next_step: the next step copies the state out
  // state_transfer_[state_slot_] holds the state read() gives: the device's state as it is now
  // (the last step copied it out, or a read or write since went through it), or inside
  // after_each the state of the step just taken.
  mutable bool state_copied_ = false;
  mutable std::uint32_t state_slot_ = 0;
  // Per in-flight slot: the contact lists a trace holds, and their copy (make_trace_copies).
  std::array<vk::Buffer, kSlots> trace_host_;
  std::array<VkCommandBuffer, kSlots> trace_copy_cb_{};
  RecordedStep step_;  // record_step
  std::array<VkFence, kSlots> fences_{}, head_fences_{};
  // The slot's step (its whole or its tail), its head, was submitted and not waited for.
  std::array<bool, kSlots> in_flight_{}, head_in_flight_{};
  // Within steps(): the steps before submitted_ have been submitted (whole or head), those
  // before committed_ wholly (whole or tail).
  std::uint64_t submitted_ = 0, committed_ = 0;
  // The step whose redos stats_ counts (regrows, ode_redos, cg_redos, color_redos).
  std::uint64_t redos_for_ = ~std::uint64_t{0};
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(vk::Context& ctx, std::optional<Stage> fault,
                                          FusedPolicy fused, CgRecording cg, WarmStart warm) {
  return with_particle_order(std::make_unique<GpuBackend>(ctx, fault, fused, cg, warm));
}

}  // namespace vkphys
