// Snapshot files (vkphys/snapshot.h): "VKPHYSCK", the format version, the saving backend's kind,
// the scene as scene JSON, the step count and capacities, then each carried buffer
// (VKPHYS_CARRIED_BUFFERS order) as a count and its raw bytes. Host byte order and float layout:
// the bits a backend computed are the bits it gets back, which is what bit-identical resumption
// needs; the files are for this build on this machine, not an exchange format.
#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "host/api/guarded.h"
#include "host/api/snapshot_data.h"
#include "host/io/output.h"
#include "host/io/scene_file.h"
#include "vkphys/error.h"

namespace vkphys {
namespace {

constexpr char kMagic[8] = {'V', 'K', 'P', 'H', 'Y', 'S', 'C', 'K'};
// 2: the manifold cache's references (prev_pair_frame); 3: the implicit method's last solve
// (cg_dv); 4: each particle contact's kept colour in prev_pcontact_other's top six bits
// (kernels/world_coloring.inl). Version 3 is read too: its top bits are 0, which reads as no
// kept colour (the contacts are coloured afresh at the next step). 5: the particles' slot order
// (CarriedState::particle_order, solver.particle_reorder) after the buffers, empty for the scene's
// order; versions 3 and 4 read as the scene's order.
constexpr std::uint32_t kVersion = 5;
constexpr std::uint32_t kOldestVersion = 3;

struct Writer {
  std::string bytes;
  template <class T>
  void raw(const T* data, std::size_t count) {
    if (count > 0) bytes.append(reinterpret_cast<const char*>(data), count * sizeof(T));
  }
  template <class T>
  void value(T v) {
    raw(&v, 1);
  }
  void text(const std::string& s) {
    value<std::uint64_t>(s.size());
    raw(s.data(), s.size());
  }
  template <class T>
  void array(const std::vector<T>& v) {
    value<std::uint64_t>(v.size());
    raw(v.data(), v.size());
  }
};

// Reads what Writer wrote; every count is checked against the bytes left before anything is
// allocated, so a truncated or corrupt file is an Error naming it, never a huge allocation.
struct Reader {
  const std::string& bytes;
  const std::string& name;
  std::size_t at = 0;
  void need(std::size_t n, std::size_t size, const char* what) {
    if (n > (bytes.size() - at) / size) {
      throw Error(
          fmt::format("{}: truncated or not a vkphys snapshot ({} runs past the end)", name, what));
    }
  }
  template <class T>
  void raw(T* data, std::size_t count, const char* what) {
    need(count, sizeof(T), what);
    if (count == 0) return;  // an empty vector's data() may be null, which memcpy may not take
    std::memcpy(data, bytes.data() + at, count * sizeof(T));
    at += count * sizeof(T);
  }
  template <class T>
  T value(const char* what) {
    T v{};
    raw(&v, 1, what);
    return v;
  }
  std::string text(const char* what) {
    const auto n = value<std::uint64_t>(what);
    need(n, 1, what);
    std::string s(bytes.data() + at, n);
    at += n;
    return s;
  }
  template <class T>
  std::vector<T> array(const char* what) {
    const auto n = value<std::uint64_t>(what);
    need(n, sizeof(T), what);
    std::vector<T> v(n);
    raw(v.data(), v.size(), what);
    return v;
  }
};

}  // namespace

Snapshot::Snapshot(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

std::uint64_t Snapshot::step() const {
  return data_->state.step;
}

std::string Snapshot::backend() const {
  return data_->backend;
}

const Scene& Snapshot::scene() const {
  return data_->scene;
}

void Snapshot::write(const std::filesystem::path& path) const {
  const std::string name = path.string();
  const std::string scene = guarded([&] {
    try {
      return io::write_scene_json(data_->scene);
    } catch (const std::exception& e) {
      throw Error(
          fmt::format("{}: cannot write the scene into a snapshot file: {}", name, e.what()));
    }
  });
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  w.value(kVersion);
  w.text(data_->backend);
  w.text(scene);
  const CarriedState& s = data_->state;
  w.value(s.step);
  w.value(s.pair_capacity);
  w.value(s.contact_capacity);
#define VKPHYS_WRITE_CARRIED(T, name, count) w.array(s.name);
  VKPHYS_CARRIED_BUFFERS(VKPHYS_WRITE_CARRIED)
#undef VKPHYS_WRITE_CARRIED
  w.array(s.particle_order);
  // Written whole under PATH.partial, then renamed over PATH: a process killed mid-write leaves
  // the previous snapshot (or none), never a torn one (`vkphys run --checkpoint-every`). Synced
  // to the disk (file and rename) so that a power cut does not take the checkpoint either.
  guarded([&] { io::write_text_file(path, w.bytes, Durability::synced); });
}

Snapshot Snapshot::read(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the snapshot", name));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r{bytes, name};
  char magic[sizeof kMagic] = {};
  r.raw(magic, sizeof magic, "the header");
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
    throw Error(fmt::format("{}: not a vkphys snapshot (no VKPHYSCK header)", name));
  }
  const auto version = r.value<std::uint32_t>("the version");
  if (version < kOldestVersion || version > kVersion) {
    throw Error(fmt::format("{}: snapshot format version {}, this build reads {} to {}", name,
                            version, kOldestVersion, kVersion));
  }
  Data d;
  d.backend = r.text("the backend");
  const std::string scene = r.text("the scene");
  d.scene = guarded([&] { return io::parse_scene(scene, name + " (scene)"); });
  CarriedState& s = d.state;
  s.step = r.value<std::uint64_t>("the step");
  s.pair_capacity = r.value<std::uint32_t>("the pair capacity");
  s.contact_capacity = r.value<std::uint32_t>("the contact capacity");
#define VKPHYS_READ_CARRIED(T, name, count) s.name = r.array<T>(#name);
  VKPHYS_CARRIED_BUFFERS(VKPHYS_READ_CARRIED)
#undef VKPHYS_READ_CARRIED
  if (version >= 5) s.particle_order = r.array<std::uint32_t>("particle_order");
  if (r.at != bytes.size()) {
    throw Error(fmt::format("{}: {} bytes after the snapshot's end", name, bytes.size() - r.at));
  }
  return Snapshot(std::make_shared<const Data>(std::move(d)));
}

}  // namespace vkphys
