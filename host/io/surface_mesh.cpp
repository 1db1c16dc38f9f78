#include "host/io/surface_mesh.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "host/sim/quat_double.h"

namespace vkphys::io {

std::uint32_t SurfaceMesh::add(glm::dvec3 x, std::uint32_t i, PointKind k, float r, glm::vec3 v,
                               glm::vec3 w) {
  points.push_back(x);
  id.push_back(i);
  kind.push_back(k);
  radius.push_back(r);
  velocity.push_back(v);
  angular_velocity.push_back(w);
  return static_cast<std::uint32_t>(points.size() - 1);
}

namespace {

constexpr int kRings = 8, kSegments = 12;
constexpr double kPlaneHalf = 10.0;

// A latitude-longitude surface in body coordinates: rings at polar angles pi k / kRings, the
// upper hemisphere moved up by `half_height` and the lower one down, the equator split into the
// rims of the cylinder between them (a capsule; 0: a sphere). Faces index into `pts`.
void round_surface(double radius, double half_height, std::vector<glm::dvec3>& pts,
                   std::vector<std::vector<std::uint32_t>>& faces) {
  std::vector<glm::dvec2> rings;  // (y, distance from the axis)
  for (int k = 1; k < kRings; ++k) {
    const double theta = std::numbers::pi * k / kRings;
    const double y = radius * std::cos(theta), rho = radius * std::sin(theta);
    if (2 * k < kRings) {
      rings.push_back({y + half_height, rho});
    } else if (2 * k > kRings) {
      rings.push_back({y - half_height, rho});
    } else {
      rings.push_back({half_height, rho});
      if (half_height > 0.0) rings.push_back({-half_height, rho});
    }
  }
  pts.push_back({0.0, radius + half_height, 0.0});
  for (const glm::dvec2& r : rings) {
    for (int s = 0; s < kSegments; ++s) {
      const double phi = 2.0 * std::numbers::pi * s / kSegments;
      pts.push_back({r.y * std::cos(phi), r.x, r.y * std::sin(phi)});
    }
  }
  pts.push_back({0.0, -radius - half_height, 0.0});
  const auto bottom = static_cast<std::uint32_t>(pts.size() - 1);
  auto at = [](std::size_t ring, int s) {
    return static_cast<std::uint32_t>(1 + ring * kSegments +
                                      static_cast<std::size_t>(s % kSegments));
  };
  for (int s = 0; s < kSegments; ++s) faces.push_back({0, at(0, s + 1), at(0, s)});
  for (std::size_t k = 0; k + 1 < rings.size(); ++k) {
    for (int s = 0; s < kSegments; ++s) {
      faces.push_back({at(k, s), at(k, s + 1), at(k + 1, s + 1), at(k + 1, s)});
    }
  }
  for (int s = 0; s < kSegments; ++s) {
    faces.push_back({at(rings.size() - 1, s), at(rings.size() - 1, s + 1), bottom});
  }
}

// A box's 8 corners and 6 outward quads.
void box_surface(glm::dvec3 h, std::vector<glm::dvec3>& pts,
                 std::vector<std::vector<std::uint32_t>>& faces) {
  for (int i = 0; i < 8; ++i) {
    pts.push_back({(i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z});
  }
  faces = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
}

void add_body(SurfaceMesh& m, const Body& body, std::uint32_t i, const WorldState& st) {
  std::vector<glm::dvec3> pts;
  std::vector<std::vector<std::uint32_t>> faces;
  switch (body.shape) {
    case Shape::box:
      box_surface(glm::dvec3(body.half_extents), pts, faces);
      break;
    case Shape::sphere:
      round_surface(double(body.radius), 0.0, pts, faces);
      break;
    case Shape::capsule:
      round_surface(double(body.radius), double(body.half_height), pts, faces);
      break;
    default:
      return;
  }
  const glm::dvec3 x(st.pos[i]);
  const glm::dvec4 q = glm::normalize(glm::dvec4(st.rot[i]));
  const glm::vec3 v(st.vel[i]), w(st.omega[i]);
  const auto base = static_cast<std::uint32_t>(m.points.size());
  for (const glm::dvec3& p : pts)
    m.add(x + quat_double::rotate(q, p), i, PointKind::surface, 0.0f, v, w);
  for (auto& f : faces) {
    for (std::uint32_t& k : f) k += base;
    m.polys.push_back(f);
  }
}

void add_plane(SurfaceMesh& m, const Plane& p, std::uint32_t i) {
  const glm::dvec3 n = glm::normalize(glm::dvec3(p.normal));
  const glm::dvec3 c = n * static_cast<double>(p.offset);
  const glm::dvec3 t1 = glm::normalize(std::abs(n.x) < 0.9 ? glm::cross(n, {1.0, 0.0, 0.0})
                                                           : glm::cross(n, {0.0, 1.0, 0.0}));
  const glm::dvec3 t2 = glm::cross(n, t1);
  std::vector<std::uint32_t> face;
  for (int k = 0; k < 4; ++k) {
    const double a = (k == 0 || k == 3) ? -kPlaneHalf : kPlaneHalf;
    const double b = k < 2 ? -kPlaneHalf : kPlaneHalf;
    face.push_back(
        m.add(c + a * t1 + b * t2, i, PointKind::plane, 0.0f, glm::vec3(0.0f), glm::vec3(0.0f)));
  }
  m.polys.push_back(face);
}

}  // namespace

SurfaceMesh surface_mesh(const Scene& scene, const WorldState& st, bool particle_spheres) {
  SurfaceMesh m;
  const Particles& p = st.particles;
  std::vector<glm::dvec3> unit;  // a particle's sphere, radius 1, for particle_spheres
  std::vector<std::vector<std::uint32_t>> unit_faces;
  if (particle_spheres) round_surface(1.0, 0.0, unit, unit_faces);
  // point[i]: particle i's point in a triangle (its vertex, or with spheres its cloth point)
  constexpr std::uint32_t kNone = ~0u;
  std::vector<std::uint32_t> point(p.size(), kNone);
  for (const Triangle& t : scene.triangles) {
    for (std::uint32_t i : {t.a, t.b, t.c}) {
      if (i >= p.size()) {
        throw std::invalid_argument("surface_mesh: a triangle names particle " + std::to_string(i) +
                                    " of " + std::to_string(p.size()));
      }
      point[i] = 0;
    }
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    const glm::dvec3 x(p.pos_radius[i]);
    const auto id = static_cast<std::uint32_t>(i);
    const float r = p.pos_radius[i].w;
    const glm::vec3 v(p.vel_invmass[i]);
    if (!particle_spheres) {
      const std::uint32_t k = m.add(x, id, PointKind::particle, r, v, glm::vec3(0.0f));
      m.verts.push_back(k);
      if (point[i] != kNone) point[i] = k;
      continue;
    }
    if (point[i] != kNone) {
      point[i] = m.add(x, id, PointKind::cloth, r, v, glm::vec3(0.0f));
      continue;
    }
    const auto base = static_cast<std::uint32_t>(m.points.size());
    for (const glm::dvec3& u : unit) m.add(x + double(r) * u, id, PointKind::particle, r, v, {});
    for (std::vector<std::uint32_t> f : unit_faces) {
      for (std::uint32_t& k : f) k += base;
      m.polys.push_back(f);
    }
  }
  for (const Triangle& t : scene.triangles) m.polys.push_back({point[t.a], point[t.b], point[t.c]});
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    add_body(m, scene.bodies[i], static_cast<std::uint32_t>(i), st);
  }
  for (std::size_t i = 0; i < scene.planes.size(); ++i) {
    add_plane(m, scene.planes[i], static_cast<std::uint32_t>(i));
  }
  for (std::size_t j = 0; j < scene.joints.size(); ++j) {
    const Joint& jt = scene.joints[j];
    auto end = [&](std::uint32_t b, glm::vec3 local) {
      const glm::dvec3 x =
          glm::dvec3(st.pos[b]) +
          quat_double::rotate(glm::normalize(glm::dvec4(st.rot[b])), glm::dvec3(local));
      return m.add(x, static_cast<std::uint32_t>(j), PointKind::anchor, 0.0f, glm::vec3(st.vel[b]),
                   glm::vec3(st.omega[b]));
    };
    m.lines.push_back({end(jt.body_a, jt.anchor_a), end(jt.body_b, jt.anchor_b)});
  }
  return m;
}

}  // namespace vkphys::io
