// RunWriter::resume (host/io/output.h): a run folder taken up again at its last checkpoint.
//
// A run killed with SIGKILL can leave, after its checkpoint at step S: metrics rows of later
// steps, a partial last row (an append is not atomic), frames of later steps and *.partial files
// (a frame or checkpoint being written). The resumed run recomputes steps S+1.. bit for bit, so
// everything after S is dropped and written again; metrics.csv is rewritten whole (through a
// .partial file and a rename) before the run appends to it, so a second kill during the repair
// loses nothing either.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/io/output.h"

namespace vkphys::io {
namespace {

namespace fs = std::filesystem;

// The step number of "PREFIXNNNNNN.EXT" (any number of digits), or -1 for any other name.
long long frame_step(const std::string& name, std::string_view prefix) {
  if (name.rfind(prefix, 0) != 0) return -1;
  std::size_t end = prefix.size();
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == prefix.size() || end - prefix.size() > 18 || end == name.size() || name[end] != '.') {
    return -1;
  }
  return std::stoll(name.substr(prefix.size(), end - prefix.size()));
}

bool is_partial(const std::string& name) {
  constexpr std::string_view suffix = ".partial";
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Removes from `folder` the frames (files named `prefix` + step) after `step` and the files being
// written when the run died; returns the names of the frames kept, by step.
std::vector<std::pair<long long, std::string>> trim_frames(const fs::path& folder,
                                                           std::uint64_t step,
                                                           std::string_view prefix = "frame_") {
  std::vector<std::pair<long long, std::string>> kept;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return kept;
  for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    const long long k = frame_step(name, prefix);
    if (is_partial(name) || k > static_cast<long long>(step)) {
      fs::remove(e.path());
    } else if (k >= 0) {
      kept.emplace_back(k, name);
    }
  }
  std::sort(kept.begin(), kept.end());
  return kept;
}

// metrics.csv's header and its rows of steps 0..step, each whole; throws naming the file when a
// row up to `step` is missing.
std::string metrics_up_to(const fs::path& file, std::uint64_t step) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot read the run's metrics");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string header = kMetricsHeader;
  if (text.compare(0, header.size(), header) != 0) {
    throw std::runtime_error(file.string() + ": not a vkphys run's metrics (another header)");
  }
  std::size_t at = header.size();
  for (std::uint64_t k = 0; k <= step; ++k) {
    const std::size_t end = text.find('\n', at);
    const std::string prefix = std::to_string(k) + ",";
    if (end == std::string::npos || text.compare(at, prefix.size(), prefix) != 0) {
      throw std::runtime_error(
          fmt::format("{}: no complete row for step {}, which the checkpoint (step {}) needs",
                      file.string(), k, step));
    }
    at = end + 1;
  }
  return text.substr(0, at);
}

}  // namespace

RunWriter RunWriter::resume(const fs::path& dir, std::uint64_t step, bool vtk, double time_step,
                            bool vtk_contacts) {
  RunWriter w;
  w.dir_ = dir;
  w.vtk_ = vtk;
  w.vtk_contacts_ = vtk && vtk_contacts;
  w.time_step_ = time_step;
  const fs::path metrics = dir / "metrics.csv";
  write_text_file(metrics, metrics_up_to(metrics, step));
  w.metrics_.open(metrics, std::ios::binary | std::ios::app);
  if (!w.metrics_) throw std::runtime_error("cannot write " + metrics.string());
  fs::remove(dir / (std::string(kCheckpointFile) + ".partial"));
  trim_frames(dir / "frames", step);
  // The series lists each frame, then its contacts (part 1) where it has them.
  for (const auto& [k, name] : trim_frames(dir / "vtk", step)) {
    w.vtk_frames_.push_back({time_step * static_cast<double>(k), "vtk/" + name, 0});
  }
  for (const auto& [k, name] : trim_frames(dir / "vtk", step, "contacts_")) {
    w.vtk_frames_.push_back({time_step * static_cast<double>(k), "vtk/" + name, 1});
  }
  std::stable_sort(w.vtk_frames_.begin(), w.vtk_frames_.end(),
                   [](const PvdDataSet& a, const PvdDataSet& b) { return a.time < b.time; });
  return w;
}

}  // namespace vkphys::io
