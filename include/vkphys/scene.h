/// \file
/// A scene: everything a run needs, independent of backend and of the file it came from.
///
/// Scenes come from versioned JSON files (host/io/scene_file.h, documented in
/// docs/scene-format.md) or are built in code by tests. Particles are stored structure-of-arrays
/// in exactly the layout the GPU uses for them (kernels/world_layout.h: body_pos (x, radius),
/// body_vel (v, 1/m)), so uploading is a copy.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <optional>
#include <string>
#include <vector>

namespace vkphys {

struct Material {
  std::string name = "default";
  float restitution = 0.0f;  ///< Newton's coefficient e in [0, 1]
  float friction = 0.0f;     ///< Coulomb coefficient mu >= 0
  float spook_k = 1.0e8f;    ///< SPOOK spring constant k [N/m] > 0 (large: rigid)
  float spook_d = 4.0f;      ///< SPOOK relaxation d [steps] >= 0
};

struct Plane {
  glm::vec3 normal{0.0f, 1.0f, 0.0f};  ///< unit normal, pointing into the free half-space
  float offset = 0.0f;                 ///< points x with dot(normal, x) = offset
  std::uint32_t material = 0;
};

/// How the rigid-body solver sweeps its constraint rows (ARCHITECTURE.md, "Rigid bodies").
enum class SolverScheme : std::uint32_t {
  sequential = 0,  ///< plain projected Gauss-Seidel in scene order (CPU backend only)
  colored = 1,     ///< graph-coloured PGS: one parallel sweep per colour, then an overflow colour
  jacobi = 2,      ///< all constraints at once, per-body averaging (mass splitting)
};

/// How impacts faster than the restitution threshold bounce (rigid bodies).
enum class RestitutionModel : std::uint32_t {
  bias = 0,    ///< target velocity max(T, -e u_n) inside the solve (seed 000 section 8.2)
  newton = 1,  ///< a Newton-Coulomb impulse pass before the solve (seed 001 eqs 1-7)
};

/// How friction impulses are bounded (rigid bodies).
enum class FrictionModel : std::uint32_t {
  cone = 0,        ///< |lambda_t| <= mu lambda_n with the point's current normal impulse
  scaled_box = 1,  ///< |lambda_t,i| <= mu m g h per axis, m the reduced mass / points (seed 001)
};

inline const char* scheme_name(SolverScheme s) {
  switch (s) {
    case SolverScheme::sequential:
      return "sequential";
    case SolverScheme::colored:
      return "colored";
    case SolverScheme::jacobi:
      return "jacobi";
  }
  return "?";
}

/// The implicit integrator's CG preconditioner: the inverse 3x3 diagonal blocks, or exact solves
/// along two families of lines through the springs (a grid cloth's rows and columns), added.
enum class CgPreconditioner : std::uint32_t {
  block_jacobi = 0,
  lines = 1,
};

/// How particles' forces (gravity, fields, drag, force springs) are integrated over a step or
/// substep (ARCHITECTURE.md, "Force springs and explicit integrators"). Rigid bodies always take
/// the symplectic step.
enum class Integrator : std::uint32_t {
  symplectic = 0,  ///< v += h f/m, then x += h v (SPOOK's leapfrog; substeps refine it)
  euler = 1,       ///< seed 003's explicit Euler on (x, v): one force evaluation
  midpoint = 2,    ///< seed 003's midpoint method (RK2): two evaluations
  rk4 = 3,         ///< seed 003's classical Runge-Kutta: four evaluations
  /// seed 003's backward Euler (second-order form) for force springs, solved by preconditioned
  /// conjugate gradient (solver.cg_tolerance, solver.cg_max_iterations; kernels/implicit.h)
  implicit = 4,
};

inline const char* integrator_name(Integrator i) {
  switch (i) {
    case Integrator::symplectic:
      return "symplectic";
    case Integrator::euler:
      return "euler";
    case Integrator::midpoint:
      return "midpoint";
    case Integrator::rk4:
      return "rk4";
    case Integrator::implicit:
      return "implicit";
  }
  return "?";
}

/// Step doubling for the explicit integrators (seed 003 section 3): every ODE step of size h
/// is also taken as two of h/2, and the largest difference of a particle's state (x [m],
/// v [m/s]) between the two is its error. A step whose error passes `tolerance` is redone with
/// twice the ODE steps; the next step takes half as many when the error at twice the size,
/// 2^(p+1) times larger (p the method's order), would still be within half the tolerance.
struct AdaptiveStep {
  float tolerance = 0.0f;         ///< 0: off (a fixed step); > 0: the error bound
  std::uint32_t max_steps = 256;  ///< ODE steps per (sub)step at most, in [1, 4096]
};

/// Strain limiting of the force springs (Provot 1995), kernels/strain_limit.inl: after each
/// substep's rows, `passes` Jacobi passes take back, along each force spring that the substep's
/// end would stretch past (1 + stretch) times its rest length, the relative velocity that does
/// it, shared by the ends' inverse masses.
struct StrainLimit {
  float stretch = 0.0f;       ///< the largest L / rest - 1 left at a substep's end; 0: off
  std::uint32_t passes = 16;  ///< Jacobi passes per substep, in [1, 64]
};

struct SolverSettings {
  std::uint32_t iterations = 8;  ///< sweeps of the rows per substep
  float relaxation = 1.0f;       ///< scales each impulse increment, (0, 1]
  /// Jacobi scheme only: a further factor on the impulse increments of the contact manifolds
  /// split exactly two ways (a dynamic body in two units, none in more): weighted Jacobi, in
  /// (0, 1]. Without it two stacked cubes walk away and a heavy box on a light one is thrown off
  /// (ARCHITECTURE.md, "Weighted Jacobi"). Version-1 files run with 1, as they did.
  float jacobi_contact_relaxation = 0.75f;
  float restitution_threshold = 0.5f;  ///< approach speed [m/s] above which restitution applies
  bool friction = true;                ///< Coulomb friction rows on or off
  float warm_start = 1.0f;             ///< share of last step's impulses to start from, [0, 1]
  /// Rigid bodies only: a pair whose bodies moved less than 1 mm relative to each other at every
  /// contact point and turned less than 2 degrees since its manifold was found keeps that
  /// manifold instead of running the pair test again (Jolt's body pair cache; ARCHITECTURE.md,
  /// "The manifold cache").
  bool contact_cache = true;
  /// Joints between rigid bodies that form a tree (no loop through dynamic bodies: a chain, a
  /// rag-doll) have their equality rows solved directly, all at once, in every sweep (Baraff's
  /// linear-time solve; ARCHITECTURE.md, "Joint trees"), a ball's locked limit axes with them;
  /// their one-sided limit rows stay with the sweep.
  bool joint_trees = true;
  /// Rigid bodies: a pair's speculative contact distance grows with the distance its bodies can
  /// close within the step, max(contact_margin, e_a + e_b), e_i = H (|v| + |a| H + |w| L) capped
  /// at the body's bounding diameter, and the broadphase boxes with it, so a fast body meets a
  /// surface in the step that reaches it instead of a step later, inside or past it
  /// (ARCHITECTURE.md, "Speculative reach"). On in version-2 scenes and scenes built in code,
  /// off for version-1 files (which predate it).
  bool speculative_reach = true;
  /// Rigid bodies only:
  SolverScheme scheme = SolverScheme::colored;
  RestitutionModel restitution = RestitutionModel::bias;
  FrictionModel friction_model = FrictionModel::cone;
  bool split_impulse = false;  ///< seed 000 section 8.1: position correction not kept as velocity
  bool gyroscopic = true;      ///< the -w x (I w) term in the angular velocity update
  std::uint32_t max_colors = 24;  ///< colours before the overflow colour, in [1, 30]
  /// Contact stiffness cap [Hz]: a contact's SPOOK k is at most m_eff (2 pi f)^2, m_eff the pair's
  /// reduced mass, with f this but at most half the substep rate (0 disables the cap). See
  /// ARCHITECTURE.md, "Contact stiffness".
  float contact_hertz = 35.0f;
  /// Substeps per step (Box2D v3's soft step with SPOOK rows): the contacts and their rows are
  /// found once per step, then each substep of h / substeps integrates the forces, solves
  /// `iterations` sweeps with targets from the bodies' current separation, integrates the
  /// positions and runs `relax_iterations` sweeps without position correction. The sweeps per
  /// step, substeps x (iterations + relax_iterations), are the budget to compare with other
  /// engines' iterations.
  std::uint32_t substeps = 1;
  std::uint32_t relax_iterations = 0;
  /// Newton restitution: sweeps of the impact pass. Each sweep starts from the impacts of the
  /// sweeps before it, so a row of n touching bodies struck at one end passes the blow on to its
  /// far end within a step when the sweeps reach every contact in order: one sweep when the
  /// sequential order follows the row, up to n against it (coloured: a colour per sweep).
  std::uint32_t impact_passes = 1;
  /// Particles' force integration (force springs need an explicit one or the symplectic step).
  Integrator integrator = Integrator::symplectic;
  AdaptiveStep adaptive;     ///< explicit integrators only
  StrainLimit strain_limit;  ///< force springs, any integrator
  /// The implicit integrator's conjugate gradient: it stops when the residual's norm is at most
  /// cg_tolerance times the right-hand side's (relative, in (0, 1)), or after cg_max_iterations
  /// iterations (in [1, 1000]); the step statistics report the iterations and the residual.
  float cg_tolerance = 1.0e-4f;
  std::uint32_t cg_max_iterations = 100;
  /// Its preconditioner (kernels/world_implicit.inl, "Lines"): the lines by default, which take
  /// the bench's 64 x 64 drape in 76 CG iterations a step where block Jacobi takes 190, in
  /// half the CPU time, and meet the tolerance at its landing, where block Jacobi does not.
  CgPreconditioner cg_preconditioner = CgPreconditioner::lines;
  /// Particles: 0 keeps them in the scene's order; N > 0 holds those that nothing names by index
  /// (no spring, triangle, kinematic path or scheduled impulse) in the Morton order of their
  /// positions, sorted at load and again before every Nth step, so that neighbours in space are
  /// neighbours in memory (host/sim/particle_order.h). Inputs and outputs stay in the scene's
  /// order; the results differ from the scene's order's by the order the solver meets the
  /// contacts in. A pile poured or listed in no spatial order gains most (docs/benchmarks.md).
  std::uint32_t particle_reorder = 0;
};

/// Quadratic (aerodynamic) drag on every body and particle, seed 002 eq 23 (reconstructed in the
/// digest): F = -1/2 rho C_D S |v| v at the centre of mass, S the area the body shows the flow
/// (a sphere's pi r^2; a box's and a capsule's projected area along v).
struct QuadraticDrag {
  float density = 0.0f;       ///< fluid density rho [kg/m^3]; 0: off (air: 1.2)
  float coefficient = 0.47f;  ///< drag coefficient C_D (a sphere: 0.47)
};

/// How a central field pulls toward its centre c (x the body's position, r = |x - c|).
enum class CentralLaw : std::uint32_t {
  inverse_square = 0,  ///< a = -strength (x - c) / r^3: gravity of a point mass, strength = G M
  linear = 1,          ///< a = -strength (x - c): a harmonic trap, strength = k/m [1/s^2]
};

/// A central force field acting on every body and particle (per unit mass, like gravity).
struct CentralField {
  float strength = 0.0f;  ///< 0: off; units by law: [m^3/s^2] or [1/s^2]
  glm::vec3 center{0.0f};
  CentralLaw law = CentralLaw::inverse_square;
};

/// Wind on the scene's triangles (Scene::triangles: the cloths' and soft bodies' surfaces),
/// kernels/aero.h: per triangle, with u the wind's velocity relative to the triangle's mean
/// vertex velocity, n its unit normal and A its area, drag F_D = 1/2 rho C_D A |n . u| u along u
/// and lift F_L = 1/2 rho C_L A (n . u) (|u| n - (n . u) u / |u|) across it, a third on each
/// vertex. Particles not on a triangle feel no wind.
struct Wind {
  glm::vec3 velocity{0.0f};  ///< the air's velocity [m/s]
  float density = 1.2f;      ///< rho [kg/m^3] (air at 20 C, sea level)
  /// C_D of a flat plate normal to the flow: 1.17 for a square plate (Hoerner, Fluid-Dynamic
  /// Drag, 1965, ch. 3).
  float drag = 1.17f;
  /// C_L: the flat-plate normal-force model's value, C_L = C_D,90 (Viterna and Corrigan 1982;
  /// kernels/aero.h), so the lift peaks at 45 degrees at 1/2 rho (C_L / 2) A |u|^2.
  float lift = 1.17f;
  /// C_f: the skin-friction coefficient of each face (the shear 1/2 rho C_f |u_t|^2 of the flow
  /// along the sheet, both faces wetted; kernels/aero.h). 0, the default, is the pressure model
  /// alone; a smooth flat plate has about 1.328 / sqrt(Re) laminar, 0.074 Re^-1/5 turbulent
  /// (0.002 to 0.005 for a 1 m flag in a few m/s).
  float skin_friction = 0.0f;
};

struct Settings {
  glm::vec3 gravity{0.0f, -9.81f, 0.0f};
  float time_step = 1.0f / 60.0f;  ///< h [s]
  float drag = 0.0f;               ///< linear drag coefficient c [kg/s], f = -c v, on every body
  QuadraticDrag quadratic_drag;
  CentralField central;
  std::optional<Wind> wind;     ///< none: no wind (and no aerodynamic force on triangles)
  float contact_margin = 0.0f;  ///< speculative distance [m]; < 0 means 5% of the max radius
  float cell_size = 0.0f;       ///< grid cell [m]; 0 means 2 max radius + margin
  SolverSettings solver;
};

struct Particles {
  std::vector<glm::vec4> pos_radius;   ///< (x, y, z, radius)
  std::vector<glm::vec4> vel_invmass;  ///< (vx, vy, vz, 1/m), 1/m = 0 for static
  std::vector<std::uint32_t> material;
  /// Optional, one per particle when given: particles of one nonzero group never collide with
  /// each other (a cloth's own vertices; they still collide with everything else).
  std::vector<std::uint32_t> group;
  /// Optional, one per particle when given: a thickness t [m], 0 for none. Against other
  /// particles (not planes or rigid bodies) a particle with a thickness shows the radius
  /// max(radius, t/2), so two of them touch at distance t; and two particles of one nonzero
  /// group that both have a thickness collide with each other unless a spring joins them
  /// (self-collision). At rest no two unjoined particles of a group may be closer than t.
  std::vector<float> thickness;

  std::size_t size() const { return pos_radius.size(); }
  void add(glm::vec3 x, glm::vec3 v, float radius, float mass, std::uint32_t mat) {
    pos_radius.emplace_back(x, radius);
    vel_invmass.emplace_back(v, mass > 0.0f ? 1.0f / mass : 0.0f);
    material.push_back(mat);
    if (!group.empty()) group.push_back(0u);
    if (!thickness.empty()) thickness.push_back(0.0f);
  }
};

/// Rigid-body shapes. The numbering orders narrowphase pairs: a pair (a, b) always has
/// shape(a) <= shape(b), so there is one pair test for each unordered pair of shapes.
enum class Shape : std::uint32_t { plane = 0, sphere = 1, capsule = 2, box = 3, none = 4 };

/// The shape's name as scene files and outputs spell it.
inline const char* shape_name(Shape s) {
  switch (s) {
    case Shape::plane:
      return "plane";
    case Shape::sphere:
      return "sphere";
    case Shape::capsule:
      return "capsule";
    case Shape::box:
      return "box";
    case Shape::none:
      return "none";
  }
  return "?";
}

/// A rigid body. Its frame is centred at the centre of mass with the principal axes of inertia
/// as axes (every shape here is symmetric, so that is the shape's own frame). mass = 0 makes the
/// body static: zero inverse mass and inverse inertia, and nothing else treats it specially.
struct Body {
  Shape shape = Shape::box;
  glm::vec3 half_extents{0.5f};  ///< box half sizes [m]
  float radius = 0.5f;           ///< sphere / capsule radius [m]
  float half_height = 0.5f;      ///< capsule: half the length of its core segment, along local y
  glm::vec3 position{0.0f};
  glm::vec4 orientation{0.0f, 0.0f, 0.0f, 1.0f};  ///< unit quaternion (x, y, z, w), body to world
  glm::vec3 velocity{0.0f};
  glm::vec3 angular_velocity{0.0f};  ///< world frame [rad/s]
  float mass = 1.0f;                 ///< [kg]; 0 = static
  std::uint32_t material = 0;
  glm::vec3 force{0.0f};   ///< constant applied force [N], world frame, at the centre of mass
  glm::vec3 torque{0.0f};  ///< constant applied torque [N m], world frame
};

enum class JointType : std::uint32_t {
  distance = 0,  ///< |p_b - p_a| = length: one row (seeds 000/001)
  ball = 1,      ///< p_a = p_b: three rows (seed 004's pin), optional per-axis angle limits
  hinge = 2,     ///< ball + axis_a parallel to axis_b: five rows, optional angle limit
};

/// A joint between two bodies (a static body stands in for "the world"). Anchors and axes are in
/// each body's own frame. Every joint row has its own SPOOK k and d; limit rows have their own.
struct Joint {
  JointType type = JointType::ball;
  std::uint32_t body_a = 0, body_b = 0;
  glm::vec3 anchor_a{0.0f}, anchor_b{0.0f};
  glm::vec3 axis_a{0.0f, 0.0f, 1.0f}, axis_b{0.0f, 0.0f, 1.0f};  ///< hinge axes
  glm::vec3 ref_a{1.0f, 0.0f, 0.0f}, ref_b{1.0f, 0.0f, 0.0f};    ///< hinge: zero-angle references
  float length = 1.0f;                                           ///< distance joints [m]
  bool limited = false;
  /// Angle limits [rad]. Hinge: x holds the range about the axis. Ball: the relative rotation
  /// conj(q_a) q_b is limited per body-a axis (seed 004 section 8, corrected per the digest).
  glm::vec3 limit_lo{0.0f}, limit_hi{0.0f};
  float spook_k = 1.0e8f, spook_d = 4.0f;  ///< the joint's equality rows
  float limit_k = 1.0e8f, limit_d = 4.0f;  ///< its limit rows
};

/// Which body or particle something acts on.
struct Target {
  bool particle = false;  ///< false: scene body `index`; true: particle `index`
  std::uint32_t index = 0;
};

/// A kinematic body or particle follows a prescribed path with infinite mass: it pushes what it
/// touches and nothing pushes it back (seed 003's controlled particles). Its position at time t
/// is x0 + velocity t + amplitude (sin(2 pi frequency t + phase) - sin(phase)) and its
/// orientation turns at the constant angular_velocity about its centre (x0, q0: its scene
/// position and orientation, its pose at t = 0). Its own mass is ignored while it is driven.
struct KinematicPath {
  Target target;
  glm::vec3 velocity{0.0f};          ///< [m/s]
  glm::vec3 amplitude{0.0f};         ///< [m]
  float frequency = 0.0f;            ///< [Hz]
  float phase = 0.0f;                ///< [rad]
  glm::vec3 angular_velocity{0.0f};  ///< [rad/s], world frame (rigid bodies only)
};

/// An impulse J applied at world point p at time t (the step whose interval [t_k, t_k + h)
/// holds t applies it before its forces): v += J/m, w += I^-1 (p - x) x J.
struct ScheduledImpulse {
  Target target;
  float time = 0.0f;        ///< [s]
  glm::vec3 impulse{0.0f};  ///< [N s]
  glm::vec3 point{0.0f};    ///< [m], world; a particle takes it at its centre
};

/// How a spring acts.
enum class SpringModel : std::uint32_t {
  /// A distance row with its own SPOOK k and d, solved with the contacts: exactly a compliant
  /// spring with damping (seed 001, digest B2.2: at rest under a load F it stretches F / k).
  compliant = 0,
  /// A force, seed 003's damped spring (seed 002 eqs 21-22):
  /// f_a = -[k (|l| - rest) + c (l' . l) / |l|] l / |l|, l = x_a - x_b, f_b = -f_a, integrated
  /// with the scene's solver.integrator (explicit: stable only while h sqrt(k/m) is small).
  force = 1,
};

inline const char* spring_model_name(SpringModel m) {
  return m == SpringModel::force ? "force" : "compliant";
}

/// What a spring's end b indexes (32 bits, so a Spring has no padding and compares bytewise).
enum class SpringEnd : std::uint32_t {
  particle = 0,  ///< a scene particle
  body = 1,      ///< a scene body, at the spring's anchor
};

/// Whether a compliant spring acts both ways or only pulls (32 bits, as SpringEnd).
enum class SpringPull : std::uint32_t {
  both = 0,  ///< pulls when stretched, pushes when compressed
  /// Pulls a toward b only while |x_b - x_a| > rest, never pushes: a tether (long-range
  /// attachment, vkphys/cloth.h add_tethers). Compliant and between two particles only.
  tether = 1,
};

/// A spring between particles a and b (scene particle indices) with rest length `rest` and
/// stiffness k, as a compliant row (SPOOK relaxation d) or as a force (damping c). Cloth, ropes
/// and soft bodies are particles joined by springs (vkphys/cloth.h builds a cloth).
/// With `end_b` body, end b is instead the point `anchor` (in its own frame) of scene body b, which
/// must be dynamic (mass > 0; a kinematic body may be driven): a rope hanging a box. Such a
/// spring is compliant only: it is the same distance row, now with a lever arm on the body
/// (ARCHITECTURE.md, "Particle-body springs").
struct Spring {
  std::uint32_t a = 0, b = 0;
  float rest = 1.0f;                           ///< [m]
  float k = 1.0e4f;                            ///< [N/m]
  float d = 4.0f;                              ///< compliant: SPOOK relaxation [steps]
  SpringModel model = SpringModel::compliant;  ///< a row or a force
  float c = 0.0f;  ///< force: damping along the spring [kg/s] (seed 003's k_d)
  SpringEnd end_b = SpringEnd::particle;  ///< what b indexes
  glm::vec3 anchor{0.0f};  ///< end_b body: the attachment point on body b [m], in b's frame
  SpringPull pull = SpringPull::both;  ///< tether: a one-sided row
  bool to_body() const { return end_b == SpringEnd::body; }
  bool tether() const { return pull == SpringPull::tether; }
};

/// A surface triangle over three scene particles (indices a, b, c), wound counter-clockwise
/// about its front normal (x_b - x_a) x (x_c - x_a). Triangles say which particles form a surface
/// (a cloth, a soft body's skin): pictures draw it as a shaded mesh, the VTK frames write it as
/// polygons, and with Settings::wind each triangle feels the wind (kernels/aero.h; on its outside
/// only where the triangles close a consistently wound surface). They add no mass, spring or
/// contact. The three indices are distinct and below the particle count.
struct Triangle {
  std::uint32_t a = 0, b = 0, c = 0;
};

/// Where pictures of the scene are drawn from (`vkphys render`, `vkphys run --png`, `vkphys
/// view`): a pinhole camera at `position` looking at `target`, with `up` the world direction that
/// points up in the picture (only its part perpendicular to the view direction counts) and a
/// vertical field of view of `fov_y_deg` degrees. It does not affect the simulation.
struct SceneCamera {
  glm::vec3 position{0.0f, 0.0f, 10.0f};  ///< [m]
  glm::vec3 target{0.0f};                 ///< [m], away from position
  glm::vec3 up{0.0f, 1.0f, 0.0f};         ///< not parallel to target - position
  float fov_y_deg = 40.0f;                ///< in (0, 180)
};

struct Scene {
  std::string name = "unnamed";
  Settings settings;
  std::vector<Material> materials{Material{}};
  std::vector<Plane> planes;
  /// Bodies, joints and particles in any mix; the planes become static plane bodies.
  Particles particles;
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  std::vector<Spring> springs;
  /// Surfaces over the particles: add_cloth (vkphys/cloth.h) gives two per grid cell.
  std::vector<Triangle> triangles;
  std::vector<KinematicPath> kinematic;
  std::vector<ScheduledImpulse> impulses;
  /// The pictures' camera; none: the pictures frame the bodies and particles automatically.
  std::optional<SceneCamera> camera;
};

}  // namespace vkphys
