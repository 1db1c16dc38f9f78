// Field-by-field, bit-for-bit equality of two scenes, for the scene-file round trips and the
// scene files checked against their builders (tests/test_rigid_scenes.cpp,
// tests/test_scene_file_v2.cpp).
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "tests/same_bits.h"
#include "vkphys/scene.h"

namespace vkphys::test {

#define VKPHYS_EXPECT_SAME(a, b) EXPECT_TRUE(::vkphys::test::same_bits((a), (b))) << #a

inline void expect_same_target(const Target& a, const Target& b) {
  EXPECT_EQ(a.particle, b.particle);
  EXPECT_EQ(a.index, b.index);
}

inline void expect_same_settings(const Settings& sa, const Settings& sb) {
  VKPHYS_EXPECT_SAME(sa.gravity, sb.gravity);
  VKPHYS_EXPECT_SAME(sa.time_step, sb.time_step);
  VKPHYS_EXPECT_SAME(sa.drag, sb.drag);
  VKPHYS_EXPECT_SAME(sa.quadratic_drag.density, sb.quadratic_drag.density);
  VKPHYS_EXPECT_SAME(sa.quadratic_drag.coefficient, sb.quadratic_drag.coefficient);
  VKPHYS_EXPECT_SAME(sa.central.strength, sb.central.strength);
  VKPHYS_EXPECT_SAME(sa.central.center, sb.central.center);
  EXPECT_EQ(sa.central.law, sb.central.law);
  ASSERT_EQ(sa.wind.has_value(), sb.wind.has_value());
  if (sa.wind) {
    VKPHYS_EXPECT_SAME(sa.wind->velocity, sb.wind->velocity);
    VKPHYS_EXPECT_SAME(sa.wind->density, sb.wind->density);
    VKPHYS_EXPECT_SAME(sa.wind->drag, sb.wind->drag);
    VKPHYS_EXPECT_SAME(sa.wind->lift, sb.wind->lift);
    VKPHYS_EXPECT_SAME(sa.wind->skin_friction, sb.wind->skin_friction);
  }
  VKPHYS_EXPECT_SAME(sa.contact_margin, sb.contact_margin);
  VKPHYS_EXPECT_SAME(sa.cell_size, sb.cell_size);
  const SolverSettings &a = sa.solver, &b = sb.solver;
  EXPECT_EQ(a.iterations, b.iterations);
  VKPHYS_EXPECT_SAME(a.relaxation, b.relaxation);
  VKPHYS_EXPECT_SAME(a.jacobi_contact_relaxation, b.jacobi_contact_relaxation);
  VKPHYS_EXPECT_SAME(a.restitution_threshold, b.restitution_threshold);
  EXPECT_EQ(a.friction, b.friction);
  VKPHYS_EXPECT_SAME(a.warm_start, b.warm_start);
  EXPECT_EQ(a.scheme, b.scheme);
  EXPECT_EQ(a.restitution, b.restitution);
  EXPECT_EQ(a.friction_model, b.friction_model);
  EXPECT_EQ(a.split_impulse, b.split_impulse);
  EXPECT_EQ(a.gyroscopic, b.gyroscopic);
  EXPECT_EQ(a.max_colors, b.max_colors);
  EXPECT_EQ(a.speculative_reach, b.speculative_reach);
  EXPECT_EQ(a.contact_cache, b.contact_cache);
  EXPECT_EQ(a.joint_trees, b.joint_trees);
  VKPHYS_EXPECT_SAME(a.contact_hertz, b.contact_hertz);
  VKPHYS_EXPECT_SAME(a.substeps, b.substeps);
  VKPHYS_EXPECT_SAME(a.relax_iterations, b.relax_iterations);
  VKPHYS_EXPECT_SAME(a.impact_passes, b.impact_passes);
  EXPECT_EQ(a.particle_reorder, b.particle_reorder);
  EXPECT_EQ(a.integrator, b.integrator);
  if (a.integrator == Integrator::implicit) {
    EXPECT_EQ(a.cg_tolerance, b.cg_tolerance);
    EXPECT_EQ(a.cg_max_iterations, b.cg_max_iterations);
    EXPECT_EQ(a.cg_preconditioner, b.cg_preconditioner);
  }
  VKPHYS_EXPECT_SAME(a.adaptive.tolerance, b.adaptive.tolerance);
  EXPECT_EQ(a.adaptive.max_steps, b.adaptive.max_steps);
  VKPHYS_EXPECT_SAME(a.strain_limit.stretch, b.strain_limit.stretch);
  EXPECT_EQ(a.strain_limit.passes, b.strain_limit.passes);
}

inline void expect_same_body(const Body& x, const Body& y) {
  EXPECT_EQ(x.shape, y.shape);
  VKPHYS_EXPECT_SAME(x.half_extents, y.half_extents);
  VKPHYS_EXPECT_SAME(x.radius, y.radius);
  VKPHYS_EXPECT_SAME(x.half_height, y.half_height);
  VKPHYS_EXPECT_SAME(x.position, y.position);
  VKPHYS_EXPECT_SAME(x.orientation, y.orientation);
  VKPHYS_EXPECT_SAME(x.velocity, y.velocity);
  VKPHYS_EXPECT_SAME(x.angular_velocity, y.angular_velocity);
  VKPHYS_EXPECT_SAME(x.mass, y.mass);
  EXPECT_EQ(x.material, y.material);
  VKPHYS_EXPECT_SAME(x.force, y.force);
  VKPHYS_EXPECT_SAME(x.torque, y.torque);
}

inline void expect_same_joint(const Joint& x, const Joint& y) {
  EXPECT_EQ(x.type, y.type);
  EXPECT_EQ(x.body_a, y.body_a);
  EXPECT_EQ(x.body_b, y.body_b);
  VKPHYS_EXPECT_SAME(x.anchor_a, y.anchor_a);
  VKPHYS_EXPECT_SAME(x.anchor_b, y.anchor_b);
  VKPHYS_EXPECT_SAME(x.axis_a, y.axis_a);
  VKPHYS_EXPECT_SAME(x.axis_b, y.axis_b);
  VKPHYS_EXPECT_SAME(x.ref_a, y.ref_a);
  VKPHYS_EXPECT_SAME(x.ref_b, y.ref_b);
  VKPHYS_EXPECT_SAME(x.length, y.length);
  EXPECT_EQ(x.limited, y.limited);
  VKPHYS_EXPECT_SAME(x.limit_lo, y.limit_lo);
  VKPHYS_EXPECT_SAME(x.limit_hi, y.limit_hi);
  VKPHYS_EXPECT_SAME(x.spook_k, y.spook_k);
  VKPHYS_EXPECT_SAME(x.spook_d, y.spook_d);
  VKPHYS_EXPECT_SAME(x.limit_k, y.limit_k);
  VKPHYS_EXPECT_SAME(x.limit_d, y.limit_d);
}

// Every field of two scenes, bit for bit.
inline void expect_same_scene(const Scene& a, const Scene& b) {
  EXPECT_EQ(a.name, b.name);
  expect_same_settings(a.settings, b.settings);
  ASSERT_EQ(a.materials.size(), b.materials.size());
  for (std::size_t i = 0; i < a.materials.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "material " << i);
    EXPECT_EQ(a.materials[i].name, b.materials[i].name);
    VKPHYS_EXPECT_SAME(a.materials[i].restitution, b.materials[i].restitution);
    VKPHYS_EXPECT_SAME(a.materials[i].friction, b.materials[i].friction);
    VKPHYS_EXPECT_SAME(a.materials[i].spook_k, b.materials[i].spook_k);
    VKPHYS_EXPECT_SAME(a.materials[i].spook_d, b.materials[i].spook_d);
  }
  ASSERT_EQ(a.planes.size(), b.planes.size());
  for (std::size_t i = 0; i < a.planes.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "plane " << i);
    VKPHYS_EXPECT_SAME(a.planes[i].normal, b.planes[i].normal);
    VKPHYS_EXPECT_SAME(a.planes[i].offset, b.planes[i].offset);
    EXPECT_EQ(a.planes[i].material, b.planes[i].material);
  }
  VKPHYS_EXPECT_SAME(a.particles.pos_radius, b.particles.pos_radius);
  VKPHYS_EXPECT_SAME(a.particles.vel_invmass, b.particles.vel_invmass);
  EXPECT_EQ(a.particles.material, b.particles.material);
  EXPECT_EQ(a.particles.group, b.particles.group);
  VKPHYS_EXPECT_SAME(a.particles.thickness, b.particles.thickness);
  ASSERT_EQ(a.springs.size(), b.springs.size());
  for (std::size_t i = 0; i < a.springs.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "spring " << i);
    EXPECT_EQ(a.springs[i].a, b.springs[i].a);
    EXPECT_EQ(a.springs[i].b, b.springs[i].b);
    VKPHYS_EXPECT_SAME(a.springs[i].rest, b.springs[i].rest);
    VKPHYS_EXPECT_SAME(a.springs[i].k, b.springs[i].k);
    VKPHYS_EXPECT_SAME(a.springs[i].d, b.springs[i].d);
    EXPECT_EQ(a.springs[i].model, b.springs[i].model);
    VKPHYS_EXPECT_SAME(a.springs[i].c, b.springs[i].c);
    EXPECT_EQ(a.springs[i].end_b, b.springs[i].end_b);
    VKPHYS_EXPECT_SAME(a.springs[i].anchor, b.springs[i].anchor);
  }
  ASSERT_EQ(a.triangles.size(), b.triangles.size());
  for (std::size_t i = 0; i < a.triangles.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "triangle " << i);
    EXPECT_EQ(a.triangles[i].a, b.triangles[i].a);
    EXPECT_EQ(a.triangles[i].b, b.triangles[i].b);
    EXPECT_EQ(a.triangles[i].c, b.triangles[i].c);
  }
  ASSERT_EQ(a.bodies.size(), b.bodies.size());
  for (std::size_t i = 0; i < a.bodies.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "body " << i);
    expect_same_body(a.bodies[i], b.bodies[i]);
  }
  ASSERT_EQ(a.joints.size(), b.joints.size());
  for (std::size_t i = 0; i < a.joints.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "joint " << i);
    expect_same_joint(a.joints[i], b.joints[i]);
  }
  ASSERT_EQ(a.kinematic.size(), b.kinematic.size());
  for (std::size_t i = 0; i < a.kinematic.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "kinematic path " << i);
    const KinematicPath &x = a.kinematic[i], &y = b.kinematic[i];
    expect_same_target(x.target, y.target);
    VKPHYS_EXPECT_SAME(x.velocity, y.velocity);
    VKPHYS_EXPECT_SAME(x.amplitude, y.amplitude);
    VKPHYS_EXPECT_SAME(x.frequency, y.frequency);
    VKPHYS_EXPECT_SAME(x.phase, y.phase);
    VKPHYS_EXPECT_SAME(x.angular_velocity, y.angular_velocity);
  }
  ASSERT_EQ(a.impulses.size(), b.impulses.size());
  for (std::size_t i = 0; i < a.impulses.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "impulse " << i);
    const ScheduledImpulse &x = a.impulses[i], &y = b.impulses[i];
    expect_same_target(x.target, y.target);
    VKPHYS_EXPECT_SAME(x.time, y.time);
    VKPHYS_EXPECT_SAME(x.impulse, y.impulse);
    VKPHYS_EXPECT_SAME(x.point, y.point);
  }
  ASSERT_EQ(a.camera.has_value(), b.camera.has_value());
  if (a.camera) {
    VKPHYS_EXPECT_SAME(a.camera->position, b.camera->position);
    VKPHYS_EXPECT_SAME(a.camera->target, b.camera->target);
    VKPHYS_EXPECT_SAME(a.camera->up, b.camera->up);
    VKPHYS_EXPECT_SAME(a.camera->fov_y_deg, b.camera->fov_y_deg);
  }
}

}  // namespace vkphys::test
