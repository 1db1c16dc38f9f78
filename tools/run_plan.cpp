#include "tools/run_plan.h"

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "vkphys/files.h"
#include "vkphys/recorder.h"  // kRunPlanFile

namespace vkphys::tools {

void write_run_plan(const std::filesystem::path& dir, const RunPlan& plan) {
  const nlohmann::ordered_json j = {{"format", "vkphys-run"},
                                    {"scene", plan.scene},
                                    {"backend", plan.backend},
                                    {"device", plan.device},
                                    {"steps", plan.steps},
                                    {"every", plan.every},
                                    {"vtk", plan.vtk},
                                    {"vtk_contacts", plan.vtk_contacts},
                                    {"checkpoint_every", plan.checkpoint_every}};
  write_file_atomic(dir / kRunPlanFile, j.dump(2) + "\n");
}

RunPlan read_run_plan(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kRunPlanFile;
  std::ifstream in(file);
  if (!in) {
    throw std::runtime_error(fmt::format(
        "{}: no run plan, so {} is not a checkpointed run (start it with `vkphys run SCENE --out "
        "{} --checkpoint-every N`)",
        file.string(), dir.string(), dir.string()));
  }
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", "") != "vkphys-run") {
    throw std::runtime_error(file.string() + ": not a vkphys run plan");
  }
  // Each field must be there with its type: a plan is only ever written by write_run_plan.
  auto field = [&](const char* key, auto&& is_type) -> const nlohmann::json& {
    if (!j.contains(key) || !is_type(j.at(key))) {
      throw std::runtime_error(
          fmt::format("{}: \"{}\" is missing or of the wrong type", file.string(), key));
    }
    return j.at(key);
  };
  auto is_string = [](const nlohmann::json& v) { return v.is_string(); };
  auto is_count = [](const nlohmann::json& v) { return v.is_number_unsigned(); };
  auto is_u32 = [](const nlohmann::json& v) {
    return v.is_number_unsigned() && v.get<std::uint64_t>() <= UINT32_MAX;
  };
  RunPlan p;
  p.scene = field("scene", is_string).get<std::string>();
  p.backend = field("backend", is_string).get<std::string>();
  p.device = field("device", is_string).get<std::string>();
  p.steps = field("steps", is_count).get<std::uint64_t>();
  p.every = field("every", is_u32).get<std::uint32_t>();
  auto is_bool = [](const nlohmann::json& v) { return v.is_boolean(); };
  p.vtk = field("vtk", is_bool).get<bool>();
  p.vtk_contacts = field("vtk_contacts", is_bool).get<bool>();
  p.checkpoint_every = field("checkpoint_every", is_u32).get<std::uint32_t>();
  if (p.backend != "cpu" && p.backend != "gpu") {
    throw std::runtime_error(
        fmt::format("{}: backend \"{}\": expected cpu or gpu", file.string(), p.backend));
  }
  return p;
}

}  // namespace vkphys::tools
