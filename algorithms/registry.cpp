// The registry: the list of built-in variants (each declares itself in its own file) and the
// one place that builds a variant from its name.
#include "algorithms/registry.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "algorithms/basic.h"
#include "algorithms/fair.h"
#include "algorithms/fair_locked.h"
#include "algorithms/lua.h"
#include "algorithms/lua_wait.h"
#include "algorithms/planted.h"
#include "algorithms/redlock.h"
#include "algorithms/scripts/script_variant.h"
#include "algorithms/ttl_key.h"

namespace semsim {

Preconditions lease_promise() {
  return {.lease_budget = true, .text = "hold (or refresh period) + pauses + round trip < timeout"};
}

Preconditions client_clock_promise() {
  return {.lease_budget = true, .clock_spread = true, .no_delay = true,
          .text = "no network delay and no pauses; clock spread + hold < timeout"};
}

std::string variant_label(const std::string& name) {
  if (!name.starts_with("script:")) return name;
  return std::filesystem::path(name.substr(7)).stem().string();
}

std::vector<std::string> variant_labels(const std::vector<std::string>& names) {
  // Labels made of the last `depth` parts of each script's path (stem included).
  const auto label_at = [](const std::string& name, std::size_t depth) {
    if (!name.starts_with("script:")) return name;
    std::vector<std::string> parts;
    std::filesystem::path path = std::filesystem::path(name.substr(7)).lexically_normal();
    parts.push_back(path.stem().string());
    for (path = path.parent_path(); parts.size() < depth && !path.filename().empty(); path = path.parent_path())
      if (path.filename() != "..") parts.insert(parts.begin(), path.filename().string());
    std::string label;
    for (const auto& p : parts) label += (label.empty() ? "" : "-") + p;
    return label;
  };
  std::vector<std::string> labels(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t depth = 1; depth <= 64; ++depth) {
      labels[i] = label_at(names[i], depth);
      bool clash = false;
      for (std::size_t j = 0; j < names.size(); ++j)
        clash |= j != i && names[j] != names[i] && label_at(names[j], depth) == labels[i];
      if (!clash) break;
    }
  }
  // Still the same (the same file under two spellings, say): number them.
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = i + 1, n = 2; j < names.size(); ++j)
      if (labels[j] == labels[i]) labels[j] += "-" + std::to_string(n++);
  return labels;
}

const std::vector<VariantInfo>& variant_registry() {
  static const std::vector<VariantInfo> registry = [] {
    std::vector<VariantInfo> v = {
        // the seeds' variants
        basic_variant(), basic_pipeline_variant(), fair_variant(), fair_global_counter_variant(),
        fair_locked_variant(), fair_locked_as_published_variant(), ttl_key_variant(),
        // beyond the seeds
        lua_variant(), lua_wait_variant(), redlock_variant(), redlock_semaphore_variant(),
    };
    for (VariantInfo& planted : planted_variants()) v.push_back(std::move(planted));  // algorithms/planted.cpp
    return v;
  }();
  return registry;
}

const VariantInfo& default_variant() { return variant_registry().front(); }

const VariantInfo& variant_info(const std::string& name) {
  if (name.starts_with("driver:")) {
    if (name.find_first_not_of(" \t", 7) == std::string::npos)
      throw std::invalid_argument("--variant driver:COMMAND needs the command that starts one client (docs/drivers.md)");
    static std::mutex lock;
    static std::map<std::string, VariantInfo> drivers;
    const std::lock_guard<std::mutex> hold(lock);
    auto it = drivers.find(name);
    if (it == drivers.end()) {
      VariantInfo info;
      info.name = name;
      info.source = "a user's own client library, driven as a real process (docs/drivers.md)";
      info.real_processes = true;
      it = drivers.emplace(name, std::move(info)).first;
    }
    return it->second;
  }
  if (name.starts_with("script:")) {
    // One entry per INI file, read once (its `clock` decides it); runs may ask from several threads.
    static std::mutex lock;
    static std::map<std::string, VariantInfo> scripts;
    const std::lock_guard<std::mutex> hold(lock);
    auto it = scripts.find(name);
    if (it == scripts.end()) it = scripts.emplace(name, script_variant_info(name.substr(7))).first;
    return it->second;
  }
  for (const VariantInfo& v : variant_registry())
    if (v.name == name) return v;
  std::string known;
  for (const VariantInfo& v : variant_registry()) known += (known.empty() ? "" : ", ") + v.name;
  throw std::invalid_argument("unknown variant '" + name + "' (known: " + known + ", script:FILE.ini, driver:COMMAND)");
}

std::vector<std::string> builtin_variants() {
  std::vector<std::string> names;
  for (const VariantInfo& v : variant_registry()) names.push_back(v.name);
  return names;
}

std::unique_ptr<Semaphore> make_semaphore(const std::string& variant, SemaphoreConfig config) {
  if (variant.starts_with("script:")) return make_script_semaphore(variant.substr(7), std::move(config));
  const VariantInfo& info = variant_info(variant);
  if (info.real_processes)
    throw std::invalid_argument(variant + ": a driver is real processes, not a model: it runs in real time (semsim run, "
                                "scenario), never inside the simulator; search a model, then replay its "
                                "counterexample.ini with semsim scenario --variant \"" + variant + "\" --repeat N");
  return info.make(std::move(config));
}

}  // namespace semsim
