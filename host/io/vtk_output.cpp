#include "host/io/vtk_output.h"

#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <stdexcept>

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

std::string pvd_collection(const std::vector<std::pair<double, std::string>>& frames) {
  std::string out =
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
      "byte_order=\"LittleEndian\">\n<Collection>\n";
  for (const auto& [t, file] : frames) {
    fmt::format_to(std::back_inserter(out),
                   "<DataSet timestep=\"{:.17g}\" group=\"\" part=\"0\" file=\"{}\"/>\n", t, file);
  }
  out += "</Collection>\n</VTKFile>\n";
  return out;
}

}  // namespace vkphys::io
