// Backend comparison: two backends run the same scene with the same solver scheme and the
// per-step differences of position, orientation, velocity and angular velocity are recorded
// over rigid bodies and particles (`vkphys compare`). Bitwise equality is not expected: the run
// is judged against fixed tolerances and against its rounding envelope, how far the CPU
// reference carries the same scene from initial states nudged by one ulp.
#pragma once

#include <cstdint>
#include <functional>
#include <glm/glm.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/metrics.h"
#include "vkphys/difference.h"

namespace vkphys {

// (Tolerance is public: vkphys/difference.h.)

// The angle [rad] in [0, pi] of the rotation conj(q_a) q_b that takes orientation a to b.
// q and -q are the same rotation: the result is 0 for q_b = -q_a. Quaternions are normalised
// first; NaN in, NaN out.
double orientation_error(glm::vec4 qa, glm::vec4 qb);

// The differences of one body kind: the first `count` rigid bodies, or every particle (position
// and velocity only). Means are over that kind.
struct KindErrors {
  StepError rigid, particles;
};
KindErrors state_error_by_kind(const WorldState& a, const WorldState& b,
                               std::size_t count = std::numeric_limits<std::size_t>::max());

// Differences over the first `count` rigid bodies (by default all) and every particle (position
// and velocity; their means are over bodies and particles together, the orientation and
// angular-velocity means over bodies); throws std::invalid_argument if the states differ in size
// or have fewer than `count` bodies. A NaN in either state makes the maxima NaN.
StepError state_error(const WorldState& a, const WorldState& b,
                      std::size_t count = std::numeric_limits<std::size_t>::max());

// The quantities of `e` past tolerance, comma-separated ("position, rotation"); empty if none.
// NaN counts as past tolerance.
std::string past_tolerance(const StepError& e, const Tolerance& tol);

// `scene` with the position of every body and particle moved by one ulp, each coordinate up,
// down or not at all as splitmix64(`seed`) draws it: a run that differs from the original by
// rounding alone. With `velocities`, the linear and angular velocities are nudged as well (the
// one-step checks: one step's rounding acts on the velocities, where two particles falling
// together leave a relative velocity that is a small difference of large numbers).
Scene nudged_scene(Scene scene, std::uint64_t seed, bool velocities = false);

// `scene` at time `t0` = steps h of a run whose state is `state`: the bodies' and particles'
// positions, orientations and velocities replaced by the state's, scheduled impulses moved
// earlier by t0 (those before it dropped); kinematic paths start again from the current pose. A
// fresh load of it has no warm-start history, so two backends loaded with it start from
// identical data.
Scene scene_at(Scene scene, const WorldState& state, std::uint32_t steps);

// `scene` as a CPU run has it after `steps` steps (a fresh run), as a scene (scene_at).
Scene reference_scene_at(const Scene& scene, std::uint32_t steps);

// The world body index's shape (a scene body's, a plane body's, a particle's sphere).
Shape world_shape(const Scene& scene, std::uint32_t body);

// One stage output of one step, compared between two traces from identical inputs.
struct StageCheck {
  Stage stage;
  std::string what;  // "contact points and gaps"
  double diff = 0;   // largest difference (lists of integers: entries that differ)
  double limit = 0;  // what rounding allows
  bool past() const { return !(diff <= limit); }
};

// Every stage's outputs of `a` against `b` (traces of one step of `scene` on two backends
// loaded with it), in pipeline order: broadphase (pair and particle-contact lists: exact;
// particle contact normals and gaps: 1e-5), narrowphase (point counts and feature ids: exact;
// normals, points and gaps: 1e-5, capsule-box 2e-3 and 4e-4: its golden-section search pins a
// closest point down only to about the square root of float precision), coloring (colours:
// exact, coloured scheme only), predict (v*: 1e-6 m/s; w* after the gyroscopic term's Newton
// steps: 1e-5 rad/s) and solve (impulses: 1e-4 of the step's largest, since an iterative solve
// passes each rounding difference of a big impulse on to the small ones around it).
//   TraceMatch::point_sets compares each manifold's points as a set (nearest point, no feature
// ids) and leaves the manifolds' impulses out: two side-by-side boxes of one size tie between
// reference faces, and rounding may pick the other one, which reorders the same points (seen
// in pyramid_20 at step 150); the sweep order changes with it, and a pile's redundant contact
// impulses are not determined (pair sums still differed by 20x the limit there). `compare`'s
// one-step checks use it and hold the velocities after the step instead; the parity tests hold
// the slots.
enum class TraceMatch { slots, point_sets };
std::vector<StageCheck> compare_traces(const Scene& scene, const StepTrace& a, const StepTrace& b,
                                       TraceMatch match = TraceMatch::slots);

// The first check past its limit, in pipeline order.
std::optional<StageCheck> first_past(const std::vector<StageCheck>& checks);

struct CompareOptions {
  Tolerance tol;
  // CPU runs of the scene nudged by one ulp (nudged_scene, seeds 1..n) measure the rounding
  // envelope; 0: the fixed tolerances alone.
  std::uint32_t seeds = 3;
  // A run may differ from the reference by this many times the whole run's envelope.
  double factor = 2.0;
  // One-step checks at this many steps spread over the run (the first at step 0): both backends
  // are loaded with the reference's state there and take one traced step, and every stage's
  // output is held to compare_traces' limits (the solve's: or `factor` times how far one ulp of
  // starting state moves the reference's own solve, if that is more). Chaos needs many steps to
  // amplify rounding, so a kernel that computes something else shows here however chaotic the scene
  // is (a pour's rounding envelope reaches 15 cm within 40 steps and hides a wrong contact normal
  // from the trajectory check). 0: none.
  std::uint32_t checks = 6;
  // On a divergence, find the first stage whose output differs: compare_traces one step from
  // the reference's state one step before it. Checks and diagnosis reload both backends after
  // the run.
  bool diagnose = true;
};

// One one-step check: the step whose reference state both backends started from, and every
// stage's comparison.
struct Checkpoint {
  std::uint32_t step = 0;
  std::vector<StageCheck> stages;
};

// Where a run first leaves what is allowed.
struct Divergence {
  std::uint32_t step = 0;  // 1-based
  std::string what;        // every quantity past its limit there, "position, velocity"
  // The first of them: its name, the body, the difference, the whole run's envelope, the fixed
  // tolerance and the limit (max(tolerance, factor x envelope)).
  std::string quantity;
  BodyRef body;
  double error = 0, envelope = 0, tolerance = 0, limit = 0;
  // The first stage whose output differed one step from the reference's state at step - 1
  // (empty if none did: then the difference needs more than one step, e.g. warm starting).
  std::optional<StageCheck> stage;
};

struct CompareResult {
  std::vector<StepError> steps;   // index k: after step k + 1, over every body kind
  std::vector<KindErrors> kinds;  // the same per body kind
  // With seeds: the envelope per step (the largest of the nudged runs' differences from b) over
  // every body kind and per kind.
  std::vector<StepError> envelope;
  std::vector<KindErrors> envelope_kinds;
  StepError envelope_max;  // the envelope's maxima over the whole run
  Tolerance allowed;       // the limits the run was held to
  std::optional<Divergence> divergence;
  std::vector<Metrics> metrics_a, metrics_b;  // each backend's state per step (index 0: loaded)
  std::vector<Checkpoint> checkpoints;
  std::optional<std::size_t> failed_checkpoint;  // the first with a stage past its limit
  bool passed() const { return !divergence && !failed_checkpoint; }
  // A one-line verdict: "within the fixed tolerances", "within the rounding envelope" (the
  // envelope passed a tolerance and decided), or where the run leaves them and the first
  // one-step check with a stage past its limit.
  std::string verdict;
};

// Runs `steps` steps of `scene` on both backends (already loaded with it; b is the reference)
// and compares the scene's bodies and every particle after each; `on_step` (if set) is called
// with each finished step.
//   The rounding envelope: a chaotic scene (tumbling boxes, a particle pour) amplifies rounding
// until two correct runs part, so fixed tolerances cannot tell rounding from a bug there. The
// CPU runs the scene `seeds` more times, nudged by one ulp, and each step's difference from b is
// the envelope. The run is held to max(tolerance, factor x the whole run's envelope) per
// quantity (the moment a chaotic run parts is itself a matter of rounding, so the whole run's
// envelope is used, not the one so far). A backend that differs only by rounding passes; one that
// computes something else (a wrong row, a lost warm start) parts from b long before the nudged
// runs do.
CompareResult compare_backends(Backend& a, Backend& b, const Scene& scene, std::uint32_t steps,
                               const CompareOptions& opt,
                               const std::function<void(std::uint32_t)>& on_step = {});

// "body 12 (box)", "plane body 14 (scene plane 0)", "particle 7".
std::string describe(const Scene& scene, BodyRef body);

}  // namespace vkphys
