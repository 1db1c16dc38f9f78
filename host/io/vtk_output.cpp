#include "host/io/vtk_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include "host/io/surface_mesh.h"

namespace vkphys::io {

namespace {

template <class T, class F>
void data_array(std::string& out, const char* type, const char* name, int components,
                const std::vector<T>& values, F write) {
  fmt::format_to(std::back_inserter(out),
                 "<DataArray type=\"{}\" Name=\"{}\" NumberOfComponents=\"{}\" "
                 "format=\"ascii\">\n",
                 type, name, components);
  for (const T& v : values) write(out, v);
  out += "\n</DataArray>\n";
}

void cells(std::string& out, const std::vector<std::vector<std::uint32_t>>& list) {
  out += "<DataArray type=\"UInt32\" Name=\"connectivity\" format=\"ascii\">\n";
  for (const auto& c : list) {
    for (std::uint32_t k : c) fmt::format_to(std::back_inserter(out), "{} ", k);
  }
  out += "\n</DataArray>\n<DataArray type=\"UInt32\" Name=\"offsets\" format=\"ascii\">\n";
  std::size_t offset = 0;
  for (const auto& c : list) {
    offset += c.size();
    fmt::format_to(std::back_inserter(out), "{} ", offset);
  }
  out += "\n</DataArray>\n";
}

}  // namespace

std::string vtp_frame(const Scene& scene, const WorldState& state) {
  const std::size_t n = scene.bodies.size();
  if (state.pos.size() < n || state.rot.size() < n || state.vel.size() < n ||
      state.omega.size() < n || state.particles.size() != scene.particles.size()) {
    throw std::invalid_argument("vtp_frame: the state does not hold the scene's bodies");
  }
  const SurfaceMesh m = surface_mesh(scene, state, false);
  std::vector<std::vector<std::uint32_t>> verts;
  for (std::uint32_t v : m.verts) verts.push_back({v});
  std::string out = fmt::format(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
      "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n<Piece "
      "NumberOfPoints=\"{}\" NumberOfVerts=\"{}\" NumberOfLines=\"{}\" NumberOfStrips=\"0\" "
      "NumberOfPolys=\"{}\">\n<PointData Scalars=\"id\" Vectors=\"velocity\">\n",
      m.points.size(), verts.size(), m.lines.size(), m.polys.size());
  auto u32 = [](std::string& o, std::uint32_t v) {
    fmt::format_to(std::back_inserter(o), "{} ", v);
  };
  auto u8 = [](std::string& o, std::uint8_t v) { fmt::format_to(std::back_inserter(o), "{} ", v); };
  auto f32 = [](std::string& o, float v) { fmt::format_to(std::back_inserter(o), "{:.9g} ", v); };
  auto v3 = [](std::string& o, glm::vec3 v) {
    fmt::format_to(std::back_inserter(o), "{:.9g} {:.9g} {:.9g} ", v.x, v.y, v.z);
  };
  data_array(out, "UInt32", "id", 1, m.id, u32);
  data_array(out, "UInt8", "kind", 1, m.kind, u8);
  data_array(out, "Float32", "radius", 1, m.radius, f32);
  data_array(out, "Float32", "velocity", 3, m.velocity, v3);
  data_array(out, "Float32", "angular_velocity", 3, m.angular_velocity, v3);
  out += "</PointData>\n<Points>\n";
  data_array(out, "Float64", "Points", 3, m.points, [](std::string& o, glm::dvec3 p) {
    fmt::format_to(std::back_inserter(o), "{:.17g} {:.17g} {:.17g} ", p.x, p.y, p.z);
  });
  out += "</Points>\n<Verts>\n";
  cells(out, verts);
  out += "</Verts>\n<Lines>\n";
  cells(out, m.lines);
  out += "</Lines>\n<Polys>\n";
  cells(out, m.polys);
  out += "</Polys>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  return out;
}

std::string vtp_contacts(const WorldState& state, const StepTrace& trace) {
  struct Point {
    glm::vec3 x, n;
    float impulse, gap;
    std::uint32_t a, b;
  };
  std::vector<Point> pts;
  if (trace.normals.size() < trace.pairs.size() || trace.points.size() < 4 * trace.pairs.size() ||
      trace.lambdas.size() < 4 * trace.pairs.size() ||
      trace.pcontact_geom.size() < trace.pcontact_bodies.size() ||
      trace.pcontact_lambda.size() < trace.pcontact_bodies.size()) {
    throw std::invalid_argument("vtp_contacts: the trace's contact lists differ in length");
  }
  for (std::size_t p = 0; p < trace.pairs.size(); ++p) {
    const glm::uvec4 pair = trace.pairs[p];
    for (std::uint32_t k = 0; k < std::min(pair.z, 4u); ++k) {
      const glm::vec4 g = trace.points[4 * p + k];
      pts.push_back({glm::vec3(g), glm::vec3(trace.normals[p]), trace.lambdas[4 * p + k].x, g.w,
                     pair.x, pair.y});
    }
  }
  const std::size_t rigid = state.pos.size();
  for (std::size_t c = 0; c < trace.pcontact_bodies.size(); ++c) {
    const glm::uvec2 ab = trace.pcontact_bodies[c];
    const glm::vec4 g = trace.pcontact_geom[c];
    if (ab.y < rigid || ab.y - rigid >= state.particles.size()) {
      throw std::invalid_argument(
          "vtp_contacts: a particle contact's particle is not in the state");
    }
    const glm::vec4 x = state.particles.pos_radius[ab.y - rigid];
    const glm::vec3 n(g);
    pts.push_back(
        {glm::vec3(x) - n * (x.w + 0.5f * g.w), n, trace.pcontact_lambda[c].x, g.w, ab.x, ab.y});
  }
  std::string out = fmt::format(
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" "
      "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n<PolyData>\n<Piece "
      "NumberOfPoints=\"{0}\" NumberOfVerts=\"{0}\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
      "NumberOfPolys=\"0\">\n<PointData Scalars=\"normal_impulse\" Vectors=\"normal\">\n",
      pts.size());
  auto v3 = [](std::string& o, glm::vec3 v) {
    fmt::format_to(std::back_inserter(o), "{:.9g} {:.9g} {:.9g} ", v.x, v.y, v.z);
  };
  auto f32 = [](std::string& o, float v) { fmt::format_to(std::back_inserter(o), "{:.9g} ", v); };
  auto u32 = [](std::string& o, std::uint32_t v) {
    fmt::format_to(std::back_inserter(o), "{} ", v);
  };
  auto column = [&pts](auto member) {
    std::vector<std::decay_t<decltype(pts[0].*member)>> values;
    values.reserve(pts.size());
    for (const Point& p : pts) values.push_back(p.*member);
    return values;
  };
  data_array(out, "Float32", "normal", 3, column(&Point::n), v3);
  data_array(out, "Float32", "normal_impulse", 1, column(&Point::impulse), f32);
  data_array(out, "Float32", "gap", 1, column(&Point::gap), f32);
  data_array(out, "UInt32", "body_a", 1, column(&Point::a), u32);
  data_array(out, "UInt32", "body_b", 1, column(&Point::b), u32);
  out += "</PointData>\n<Points>\n";
  data_array(out, "Float32", "Points", 3, column(&Point::x), v3);
  out += "</Points>\n<Verts>\n";
  std::vector<std::vector<std::uint32_t>> verts(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) verts[i] = {static_cast<std::uint32_t>(i)};
  cells(out, verts);
  out += "</Verts>\n</Piece>\n</PolyData>\n</VTKFile>\n";
  return out;
}

std::string pvd_collection(const std::vector<PvdDataSet>& datasets) {
  std::string out =
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
      "byte_order=\"LittleEndian\">\n<Collection>\n";
  for (const PvdDataSet& d : datasets) {
    fmt::format_to(std::back_inserter(out),
                   "<DataSet timestep=\"{:.17g}\" group=\"\" part=\"{}\" file=\"{}\"/>\n", d.time,
                   d.part, d.file);
  }
  out += "</Collection>\n</VTKFile>\n";
  return out;
}

}  // namespace vkphys::io
