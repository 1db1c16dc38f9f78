// Wavefront OBJ meshes for mesh cloths (include/vkphys/cloth.h, read_obj_mesh), read by
// tinyobjloader (Debian's libtinyobjloader-dev).
//
// tinyobjloader is asked not to triangulate: its triangulation drops a face with an index out
// of range, or one of fewer than three corners, with no more than a warning, and a cloth that
// silently lost a face would have a hole. So the faces come back as polygons, every index is
// checked here, and a polygon becomes a fan of triangles in its own winding. Any warning is an
// error, and so is a face of fewer than 3 corners (found in the scan below: tinyobjloader
// drops it). Materials are not read (the stream form of LoadObj without a material reader ignores
// "mtllib"): a cloth's material is the scene's.
//
// tinyobjloader reports no line for a face or a vertex, so the text is scanned once more for
// the lines of the "v" and "f" statements, in file order: the n-th face tinyobjloader returns
// (its shapes in file order, their faces in order) is the n-th "f" line, and the same for
// vertices. Those lines name the faces and vertices in every error, add_mesh_cloth's included.
#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "vkphys/cloth.h"

namespace vkphys {

namespace {

// The largest mesh file read: a mesh of kMaxParticles vertices and twice as many triangles is
// about 0.3 GB of text.
constexpr std::uintmax_t kMaxObjBytes = std::uintmax_t{1} << 30;

// The 1-based lines of the statements with keyword `v`, `f`, and of the first "l" or "p"
// (polylines and points, which a cloth cannot take) and the first face of fewer than 3 corners
// (which tinyobjloader would drop, shifting the faces after it). A line's keyword is its first
// word.
struct StatementLines {
  std::vector<std::uint32_t> v, f;
  std::uint32_t first_line_or_point = 0;  // 0: none
  std::uint32_t first_short_face = 0;     // 0: none
};

// The number of words in a face statement's rest: its corners.
std::size_t corners(std::string_view rest) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < rest.size();) {
    const std::size_t begin = rest.find_first_not_of(" \t\r", i);
    if (begin == std::string_view::npos) break;
    ++n;
    i = rest.find_first_of(" \t\r", begin);
    if (i == std::string_view::npos) break;
  }
  return n;
}

StatementLines scan_lines(const std::string& text) {
  StatementLines s;
  std::uint32_t line = 0;
  std::size_t begin = 0;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::string_view l(text.data() + begin, end - begin);
    const std::size_t start = l.find_first_not_of(" \t");
    if (start != std::string_view::npos) {
      l.remove_prefix(start);
      const std::string_view word = l.substr(0, l.find_first_of(" \t\r"));
      if (word == "v") s.v.push_back(line);
      if (word == "f") {
        s.f.push_back(line);
        if (corners(l.substr(1)) < 3 && s.first_short_face == 0) s.first_short_face = line;
      }
      if ((word == "l" || word == "p") && s.first_line_or_point == 0) {
        s.first_line_or_point = line;
      }
    }
    begin = end + 1;
  }
  return s;
}

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}: {}", file, what));
}

// tinyobjloader's message as one line.
std::string one_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '.')) s.pop_back();
  for (char& ch : s) {
    if (ch == '\n') ch = ' ';
  }
  return s;
}

}  // namespace

TriangleMesh read_obj_mesh(const std::filesystem::path& path) {
  const std::string name = path.string();
  auto fail = [&](const std::string& what) { vkphys::fail(name, what); };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    fail("cannot read mesh file: " + (ec ? ec.message() : std::string("not a regular file")));
  }
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (!ec && bytes > kMaxObjBytes) {
    fail(fmt::format("the mesh file has {} bytes; at most {} (1 GiB) are read", bytes,
                     kMaxObjBytes));
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(fmt::format("cannot read mesh file: {}", errno ? std::strerror(errno) : "open failed"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail("cannot read mesh file: read error");
  const StatementLines lines = scan_lines(text);
  if (lines.first_line_or_point != 0) {
    fail(
        fmt::format("line {}: a line or point statement (\"l\", \"p\"); a cloth mesh holds "
                    "faces (\"f\") only",
                    lines.first_line_or_point));
  }
  if (lines.first_short_face != 0) {
    fail(fmt::format("line {}: a face needs at least 3 corners", lines.first_short_face));
  }

  tinyobj::attrib_t attrib;
  std::vector<tinyobj::shape_t> shapes;
  std::vector<tinyobj::material_t> materials;
  std::string warn, err;
  std::istringstream stream(text);
  const bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, &stream, nullptr,
                                   /*triangulate=*/false, /*default_vcols_fallback=*/false);
  if (!ok || !err.empty()) fail(one_line(err.empty() ? "tinyobjloader failed" : err));

  TriangleMesh mesh;
  mesh.source = name;
  const std::size_t nv = attrib.vertices.size() / 3;
  if (nv != lines.v.size()) {
    fail(fmt::format("{} vertices read but {} \"v\" lines found", nv, lines.v.size()));
  }
  mesh.vertex_lines = lines.v;
  mesh.vertices.reserve(nv);
  for (std::size_t v = 0; v < nv; ++v) {
    mesh.vertices.emplace_back(attrib.vertices[3 * v], attrib.vertices[3 * v + 1],
                               attrib.vertices[3 * v + 2]);
  }
  std::size_t face = 0;
  for (const tinyobj::shape_t& shape : shapes) {
    std::size_t next = 0;  // the shape's first index of the face
    for (const unsigned char corners : shape.mesh.num_face_vertices) {
      if (face >= lines.f.size()) fail("more faces read than \"f\" lines found");
      const std::uint32_t line = lines.f[face++];
      std::vector<std::uint32_t> c(corners);
      for (std::size_t k = 0; k < corners; ++k) {
        // tinyobjloader has made the index 0-based (and a relative one absolute).
        const int v = shape.mesh.indices[next + k].vertex_index;
        if (v < 0) {
          fail(
              fmt::format("line {}: face corner {} has a relative index reaching back past the "
                          "file's first vertex",
                          line, k + 1));
        }
        if (static_cast<std::size_t>(v) >= nv) {
          fail(
              fmt::format("line {}: face corner {} refers to vertex {} (counting from 1); the "
                          "file has {} vertices",
                          line, k + 1, v + 1, nv));
        }
        c[k] = static_cast<std::uint32_t>(v);
      }
      next += corners;
      for (std::size_t k = 1; k + 1 < corners; ++k) {
        mesh.triangles.push_back({c[0], c[k], c[k + 1]});
        mesh.triangle_lines.push_back(line);
      }
    }
  }
  if (face != lines.f.size()) {
    fail(fmt::format("{} faces read but {} \"f\" lines found", face, lines.f.size()));
  }
  // After the faces' own checks, which name the face's line (tinyobjloader's warning about an
  // index out of range names the file's last line).
  if (!warn.empty()) fail(one_line(warn));
  return mesh;
}

}  // namespace vkphys
