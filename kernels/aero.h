// Wind on cloth: the aerodynamic force on one triangle of a surface, the one function both
// backends evaluate (kernels/world_ode.inl gathers it per vertex).
//
// The model is the flat-plate pressure model of cloth aerodynamics (Keckeisen, Kimmerle,
// Thomaszewski and Wacker, "Modelling effects of wind fields in cloth animations", WSCG 2004;
// Bullet's btSoftBody face aerodynamics has the same two terms). A triangle of area A and unit
// normal n moves with the mean velocity of its three vertices through air of density rho that
// moves with the wind w. The air's velocity relative to the triangle is
//   u = w - (v_a + v_b + v_c) / 3,   |u| its speed, u^ = u / |u|,
// and theta is the angle between n and u^: cos(theta) = n . u^ (sign aside).
//
// Drag acts along u, in proportion to the area the triangle shows the flow, A |cos(theta)|:
//   F_D = 1/2 rho C_D A |u|^2 |cos(theta)| u^ = 1/2 rho C_D A |n . u| u.
// Face-on (n parallel to u) this is the plate's drag 1/2 rho C_D A |u|^2; edge-on it is 0.
//
// Lift acts perpendicular to u, in the plane of n and u, towards the side the normal leans to.
// With n' = sign(n . u) n the normal facing downstream, that direction is the part of n'
// perpendicular to u, n' - (n' . u^) u^, of length sin(theta). The lift is
//   F_L = 1/2 rho C_L A |u|^2 |cos(theta)| sin(theta) l^,   l^ = (n' - (n' . u^) u^) / sin(theta)
//       = 1/2 rho C_L A |u|^2 |cos(theta)| sign(n . u) (n - cos(theta) u^)
//       = 1/2 rho C_L A (n . u) (|u| n - (n . u) u^).
// It vanishes face-on (sin = 0) and edge-on (cos = 0) and peaks at 45 degrees with
// 1/2 rho C_L A |u|^2 / 2. Where the lift's |cos| sin shape comes from: a flat plate past stall
// feels a pressure force normal to itself, C_N = C_D,90 sin(alpha) with alpha = 90 deg - theta
// the angle of attack (Viterna and Corrigan 1982, "Fixed pitch rotor performance of large
// horizontal axis wind turbines", NASA CP-2230); its part perpendicular to the flow is
// C_D,90 sin(alpha) cos(alpha) = C_D,90 |cos(theta)| sin(theta), this lift with C_L = C_D,90.
//
// Both terms are even in n: n -> -n leaves them unchanged, so the winding of a sheet's triangle
// does not matter, and one triangle of a thin sheet is one plate whichever side the wind strikes
// (a closed surface's is not: below). Both are homogeneous of degree 2 in u, depend on the
// velocities only through u (the same velocity added to the wind and the vertices changes
// nothing) and turn with a rotation of the whole configuration. A degenerate triangle (A = 0)
// or still air relative to it (u = 0) feels nothing.
//
// Skin friction (forces.wind.skin_friction, C_f; 0 by default): the flow along the sheet, the
// part of u in its plane u_t = u - (n . u) n, shears each wetted face with 1/2 rho C_f |u_t|^2
// per unit area along u_t (the flat plate's wall shear stress; Schlichting, Boundary-Layer
// Theory, ch. 2: C_f = 1.328 / sqrt(Re) laminar). A sheet of cloth is wetted on both faces, so
//   F_f = 2 x 1/2 rho C_f A |u_t| u_t = rho C_f A |u_t| u_t.
// It is the only force on a sheet edge-on to the wind, and none face-on; even in n, homogeneous
// of degree 2 in u like the others. The pressure model's drag is the plate's whole drag at
// C_D = 1.17 face-on, where the shear is zero, so the two do not count the same force twice.
//
// Closed surfaces (the skin of a soft body, a closed mesh): the model above is two-sided, every
// triangle a plate the wind strikes from whichever side, which is right for a sheet and wrong
// for a closed surface, whose leeward faces lie in the body's own wake: a cube face-on in a wind
// would feel the plate drag on its front and again on its back, twice the body's drag. World
// setup finds the closed surfaces among the triangles (host/sim/closed_surfaces.h: consistently
// wound closed 2-manifolds, whose signed volume says whether they wind outward) and marks their
// faces one-sided, with the outward normal n_out (n, or -n for an inward-wound surface):
// - Pressure (drag and lift) acts only where the air strikes the outside, u . n_out < 0; a face
//   with u . n_out >= 0 faces downstream and is shielded by the body in front of it: nothing.
//   A windward face feels exactly the two-sided plate's force (the same floats). The cube thus
//   feels 1/2 rho C_D A |u|^2 on its front face and nothing on its back. Not modelled: the base
//   pressure, the suction of the separated wake on the leeward faces, which adds to a bluff
//   body's drag, and the flow's turning around the front edges; C_D is the place to fold them
//   in.
// - Skin friction wets only the outside face: 1/2 rho C_f A |u_t| u_t, half the sheet's value,
//   on every face, windward or leeward (the flow runs along the sides and the wake's recirculation
//   along the back; the model keeps the attached-flow shear on all of them).
// A two-sided triangle (VKPHYS_WIND_TWO_SIDED) keeps the sheet's model bit for bit.
//
// The force is applied at the triangle's vertices in equal thirds (its centroid), so the model
// adds no torque about the centroid: the centre of pressure of a plate at an angle of attack
// moves towards its leading edge, which a cloth's many triangles resolve only across triangles.
//
// Stability: the force is taken explicitly at the step's start state. Its damping rate on a
// vertex of mass m carrying the area a (a third of each of its triangles) is about
// rho C_D a |u| / m = rho C_D |u| / sigma for an areal density sigma, so a step h is stable while
// h rho C_D |u| / sigma < 2 (a 0.2 kg/m^2 cloth in a 10 m/s wind: 70/s, h < 1/35 s; take
// substeps beyond that).
#ifndef VKPHYS_KERNELS_AERO_H
#define VKPHYS_KERNELS_AERO_H
#include "kernels/common.h"

// Which faces of a triangle the air reaches (wind_tris[t].w): both (a sheet), or only the
// outside of a closed surface whose winding turns its normal n outward or inward.
#define VKPHYS_WIND_TWO_SIDED 0u
#define VKPHYS_WIND_OUTWARD 1u
#define VKPHYS_WIND_INWARD 2u

KERNELS_BEGIN

// The triangle (x_a, x_b, x_c) moving with (v_a, v_b, v_c) in the wind w; coeffs =
// (1/2 rho C_D, 1/2 rho C_L, rho C_f) [kg/m^3]; sides one of VKPHYS_WIND_*. Returns the whole
// triangle's force F_D + F_L + F_f [N].
KFN vec3 triangle_wind_force(vec3 xa, vec3 xb, vec3 xc, vec3 va, vec3 vb, vec3 vc, vec3 wind,
                             vec3 coeffs, uint sides) {
  vec3 normal2 = cross(xb - xa, xc - xa);  // 2 A n
  float twice_area = length(normal2);
  vec3 u = wind - (va + vb + vc) * (1.0f / 3.0f);
  float speed = length(u);
  if (twice_area <= 0.0f || speed <= 0.0f) return vec3(0.0f);
  vec3 n = normal2 / twice_area;
  float area = 0.5f * twice_area;
  float un = dot(n, u);
  // u . n_out >= 0: a closed surface's face turned downstream, shielded from the pressure.
  bool shielded =
      (sides == VKPHYS_WIND_OUTWARD && un >= 0.0f) || (sides == VKPHYS_WIND_INWARD && un <= 0.0f);
  vec3 force = vec3(0.0f);
  if (!shielded) {
    vec3 drag = (coeffs.x * area * abs(un)) * u;
    vec3 lift = (coeffs.y * area * un) * (speed * n - (un / speed) * u);
    force = drag + lift;
  }
  if (coeffs.z > 0.0f) {      // skipped at C_f = 0, so that the pressure model keeps its bits
    vec3 along = u - un * n;  // u_t
    // One wetted face on a closed surface: half the sheet's two (exactly: a power of two).
    float wetted = sides == VKPHYS_WIND_TWO_SIDED ? coeffs.z : 0.5f * coeffs.z;
    force += (wetted * area * length(along)) * along;
  }
  return force;
}

KERNELS_END
#endif
