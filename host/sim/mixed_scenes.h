// Scenes of the one world built in code, where particles and rigid bodies meet: the scenes of
// scenes/*.json that mix them (written by `vkphys export-scene`), the coupling tests' rigs and
// the `mixed` benchmark. y up, g = (0, -9.81, 0), 60 Hz, deterministic (fixed splitmix64
// streams for jitter).
#pragma once

#include <cstdint>

#include "vkphys/cloth.h"
#include "vkphys/scene.h"

namespace vkphys {

// Particles (radius 5 cm) poured from above onto a static ramp (a box tilted by `degrees`
// about z) whose lower end spills them into an open box of static walls. `count` particles on
// a jittered lattice above the ramp's upper end.
Scene ramp_scene(std::uint32_t count = 2000, float degrees = 30.0f, float friction = 0.3f);

// The side of particle_bed_scene's layers: side x side particles each.
inline constexpr std::uint32_t kParticleBedSide = 12;

// A heavy box (0.4 m cube, `box_mass` kg) dropped onto a bed of particles (radius 5 cm,
// `layers` deep) filling a closed box of planes; the box comes to rest on the particles.
Scene particle_bed_scene(std::uint32_t layers = 4, float box_mass = 10.0f);

// A kinematic paddle (a thin box) sweeping back and forth on a sinusoidal path through a bed of
// particles in a closed box of planes.
Scene paddle_scene(std::uint32_t count = 3000);

// scenes/cloth_drape.json: a 1.5 m square cloth of n x n vertices (0.1 kg/m^2; springs k 1000,
// 100, 10 N/m, d 4) dropped from 0.2 m above a fixed ball of radius 0.5 m, over the ground at
// y = -0.6; 4 substeps of 2 iterations, drag 0.001 kg/s x (32 / n)^2 (so c / m is the same at
// every n), no contact-stiffness cap (the cap
// scales with a vertex's own mass, not the tension it carries: see ARCHITECTURE.md).
// `self_collision`: the cloth has a thickness of 0.75 spacings (vkphys/cloth.h; the bench's
// cloth_self workload).
Scene cloth_drape_scene(std::uint32_t n = 32, bool self_collision = false);

// scenes/tablecloth.json: the mesh `disc` (scenes/meshes/disc.obj, read_obj_mesh: a disc of
// radius 0.8 m in the x-z plane) as a mesh cloth (0.1 kg/m^2; edge springs 1000 N/m, bend
// springs 10 N/m, d 4) centred 0.7 m above cloth_drape's ball, on its stage; 8 substeps of 2
// iterations (at 4 the irregular mesh keeps fluttering: tests/test_mesh_cloth.cpp).
Scene tablecloth_scene(const TriangleMesh& disc);

// Bullet's cloth bench (../shared/peers/bullet_bench.cpp, `cloth`) in vkphys: a 10 m square
// cloth of n x n vertices, 1 kg in all, horizontal at y = 20 m, pinned at its corners (0, 0)
// and (n-1, 0), falling under g = 9.81 with no drag, nothing to collide with. Structural
// springs and one shear spring per cell on alternating diagonals, as Bullet's patch (its links:
// 12,033 at 64 x 64; no bending), `k` N/m each; 4 substeps of 2 iterations.
Scene cloth_hang_scene(std::uint32_t n = 64, float k = 1.0e6f);

// scenes/flag.json at n x ceil(2n/3) vertices: a 1.5 m x 1 m flag (0.15 kg/m^2; springs k 1000,
// 100, 10 N/m, d 4) hanging from a horizontal pole along z at y = 3 m, pinned at the pole edge's
// two corners, in a 2 m/s wind along x (forces.wind, default air and plate coefficients); drag
// 0.001 kg/s, 4 substeps of 2 iterations. n = 25 is the shipped scene's 25 x 17.
Scene flag_scene(std::uint32_t n = 25);

// scenes/jelly_cube.json: a 0.4 m jelly cube of 5 x 5 x 5 particles (500 kg/m^3; compliant
// edge, face and body springs 800 / 400 / 200 N/m) dropped from 0.3 m onto the ground; 60 Hz,
// 4 substeps of 4 iterations, a 5 cm contact margin (the landing covers 4 cm a step).
Scene jelly_cube_scene();

// scenes/jelly_pyramid.json: a 0.6 m jelly cube of 5 x 5 x 5 particles (10 kg/m^3, 2.16 kg in
// all; compliant edge, face and body springs 200 / 100 / 50 N/m) dropped from 0.3 m onto the
// top of a pyramid of 10 one-metre, 1 kg boxes (base 4, friction 0.5); 60 Hz, 4 substeps of 4
// iterations, a 5 cm contact margin, as the jelly cube's. Soft body on rigid bodies on the
// ground: two-way contacts between particles and dynamic boxes, the jelly twice the top box's
// mass.
Scene jelly_pyramid_scene();

// scenes/rope_box.json: a rope of kRopeParticles particles (kRopeParticleMass kg, radius 2 cm,
// one particle group) kRopeSegment m apart, pinned (static) at its top end at (0, 3, 0), with a
// 0.2 m box of kRopeBoxMass kg hanging from its last particle by a particle-body spring to the
// centre of the box's top face; every segment a compliant spring of kRopeK N/m (d 4) at rest
// length kRopeSegment. The rope and box start straight, `degrees` off vertical in the x-y plane,
// at rest, so the box swings; `drag` [kg/s] is linear drag on every body. 60 Hz, 4 substeps of 4
// iterations, a floor at y = 0 (the box swings 0.8 m above it).
inline constexpr std::uint32_t kRopeParticles = 20;
inline constexpr float kRopeParticleMass = 0.05f;
inline constexpr float kRopeBoxMass = 2.0f;
inline constexpr float kRopeSegment = 0.1f;
inline constexpr float kRopeK = 5000.0f;
Scene rope_box_scene(float degrees = 15.0f, float drag = 0.0f);

// scenes/trampoline.json: a 1 m square cloth of kTrampolineSide^2 vertices (0.1 kg/m^2;
// structural, shear and bend springs kTrampolineK, kTrampolineK / 10 and kTrampolineK / 100 N/m,
// d 4) horizontal at y = 1 m, pinned along its four edges, and a dynamic ball (radius
// kTrampolineBallRadius, kTrampolineBallMass kg) dropped from rest with its bottom
// kTrampolineDrop m above the cloth's centre. 60 Hz, 4 substeps of 24 iterations, no contact
// stiffness cap (a vertex under the ball carries the ball's weight through the cloth's tension,
// not its own: with the cap the ball falls through), a 1 cm contact margin (the ball meets the
// cloth at 2.4 m/s, 1 cm a substep). The ball sinks into the cloth, is stopped and thrown back
// up. The iterations: the ball outweighs a vertex (0.35 g) 1400 times, and at 4 iterations the
// unconverged solve lets the springs pull vertices 3 to 5 cm into the ball, whose SPOOK
// correction then throws it 1.6 times its drop height (tests/test_trampoline.cpp).
inline constexpr std::uint32_t kTrampolineSide = 17;
inline constexpr float kTrampolineK = 4000.0f;
inline constexpr float kTrampolineBallRadius = 0.15f;
inline constexpr float kTrampolineBallMass = 0.5f;
inline constexpr float kTrampolineDrop = 0.3f;
Scene trampoline_scene();

}  // namespace vkphys
