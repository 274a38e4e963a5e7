#include "sim/run/shard_manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "reports/history/output_file.h"
#include "sim/run/contained_paths.h"
#include "sim/run/version.h"

namespace semsim {

namespace fs = std::filesystem;

void Manifest::add(std::string section, std::string key, std::string value) {
  if (value.find('\n') != std::string::npos) throw std::logic_error("shard.ini: a value with a newline: " + key);
  entries_.push_back({std::move(section), std::move(key), std::move(value)});
}

const std::string& Manifest::get(std::string_view section, std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.section == section && e.key == key) return e.value;
  throw std::invalid_argument(file_ + ": no " + (section.empty() ? "" : std::string(section) + ".") + std::string(key) +
                              " (not a shard manifest of this semsim?)");
}

std::vector<std::string> Manifest::all(std::string_view section, std::string_view key) const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (e.section == section && e.key == key) out.push_back(e.value);
  return out;
}

std::vector<Manifest::Entry> Manifest::in(std::string_view section) const {
  std::vector<Entry> out;
  for (const Entry& e : entries_)
    if (e.section == section) out.push_back(e);
  return out;
}

namespace {
constexpr const char* kManifestTop =
    "# A shard's manifest: merge the shards with `semsim merge DIR... --out DIR` (docs/scale-out.md).";
}  // namespace

void Manifest::write(const std::string& dir) const {
  const std::string path = (fs::path(dir) / kManifestFile).string();
  std::ofstream out(path);
  out << kManifestTop << "\n";
  std::string section;
  for (const Entry& e : entries_) {
    if (e.section != section) out << "\n[" << (section = e.section) << "]\n";
    out << e.key << " = " << e.value << "\n";
  }
  check_written(out, path);
}

Manifest Manifest::read(const std::string& dir) {
  Manifest m;
  m.file_ = (fs::path(dir) / kManifestFile).string();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(m.file_, ec))) regular_file_inside(dir, kManifestFile);  // no link followed
  std::ifstream in(m.file_);
  if (!in) throw std::invalid_argument(dir + ": no " + kManifestFile + " (not a shard's --out, or the shard did not finish)");
  std::string section;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const std::size_t eq = line.find(" = ");
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(m.file_ + ":" + std::to_string(number) + ": expected `key = value`, got: " + line);
    m.entries_.push_back({section, line.substr(0, eq), line.substr(eq + 3)});
  }
  return m;
}

void remove_older_manifest(const std::string& dir) {
  const fs::path path = fs::path(dir) / kManifestFile;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return;
  std::ifstream in(path);
  std::string first;
  if (!std::getline(in, first) || first != kManifestTop) return;
  in.close();
  fs::remove(path);
}

Manifest shard_manifest(const std::string& command, const Shard& shard, const std::string& redis_described,
                        const std::string& redis_version) {
  Manifest m;
  m.add("", "command", command);
  m.add("", "version", version());
  m.add("", "shard", shard.text());
  m.add("", "redis", redis_described);
  m.add("", "redis_version", redis_version);
  return m;
}

std::vector<int> ShardSet::missing() const {
  std::vector<int> out;
  for (int k = 1; k <= count; ++k)
    if (!by_index[static_cast<std::size_t>(k - 1)]) out.push_back(k);
  return out;
}

const ShardDir& ShardSet::first() const {
  for (const auto& s : by_index)
    if (s) return *s;
  throw std::logic_error("an empty shard set");
}

std::string ShardSet::missing_text() const {
  const std::vector<int> ks = missing();
  std::string out;
  for (std::size_t i = 0; i < ks.size(); ++i)
    out += (i == 0 ? "" : i + 1 == ks.size() ? " and " : ", ") + std::to_string(ks[i]) + "/" + std::to_string(count);
  return out.empty() ? out : (ks.size() == 1 ? "shard " : "shards ") + out;
}

std::string ShardSet::redis() const {
  std::vector<std::string> seen;
  for (const auto& s : by_index)
    if (s && std::find(seen.begin(), seen.end(), s->manifest.get("", "redis")) == seen.end())
      seen.push_back(s->manifest.get("", "redis"));
  std::string out;
  for (const std::string& r : seen) out += (out.empty() ? "" : "; ") + r;
  return out;
}

namespace {

// The first [options] line that differs between two manifests, as "KEY = A in DIR1, B in DIR2".
std::string first_difference(const ShardDir& a, const ShardDir& b) {
  const auto value_of = [](const std::vector<Manifest::Entry>& entries, const std::string& key) {
    std::string v;
    for (const Manifest::Entry& e : entries)
      if (e.key == key) v += (v.empty() ? "" : " | ") + e.value;
    return v.empty() ? std::string("(not set)") : v;
  };
  const auto ea = a.manifest.in("options"), eb = b.manifest.in("options");
  std::vector<std::string> keys;
  for (const auto* entries : {&ea, &eb})
    for (const Manifest::Entry& e : *entries)
      if (std::find(keys.begin(), keys.end(), e.key) == keys.end()) keys.push_back(e.key);
  for (const std::string& key : keys)
    if (value_of(ea, key) != value_of(eb, key))
      return key + " = " + value_of(ea, key) + " in " + a.dir + ", " + value_of(eb, key) + " in " + b.dir;
  return "the options are listed in another order";
}

}  // namespace

ShardSet read_shard_set(const std::vector<std::string>& dirs) {
  if (dirs.empty()) throw std::invalid_argument("give the shards' folders");
  std::vector<ShardDir> read;
  for (const std::string& dir : dirs) {
    Manifest m = Manifest::read(dir);
    Shard shard;
    try {
      shard = parse_shard(m.get("", "shard"));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(m.file() + ": " + e.what());
    }
    read.push_back({dir, shard, std::move(m)});
  }
  const ShardDir one = read.front();  // a copy: the shards are moved into the set below
  ShardSet set;
  set.command = one.manifest.get("", "command");
  set.count = one.shard.count;
  set.by_index.resize(static_cast<std::size_t>(set.count));
  for (ShardDir& s : read) {
    const auto differs = [&](const char* key, const std::string& what) {
      if (s.manifest.get("", key) != one.manifest.get("", key))
        throw std::invalid_argument(s.dir + " and " + one.dir + " are not shards of one " + what + ": " +
                                    s.manifest.get("", key) + " against " + one.manifest.get("", key));
    };
    differs("command", "command");
    differs("version", "semsim build (re-run every shard with one build)");
    differs("redis_version", "Redis version");
    if (s.shard.count != set.count)
      throw std::invalid_argument(s.dir + " is shard " + s.shard.text() + ", " + one.dir + " shard " + one.shard.text() +
                                  ": not shards of one split");
    if (s.manifest.in("options") != one.manifest.in("options"))
      throw std::invalid_argument(s.dir + " and " + one.dir + " are shards of different options: " +
                                  first_difference(one, s));
    auto& slot = set.by_index[static_cast<std::size_t>(s.shard.index - 1)];
    if (slot) throw std::invalid_argument("shard " + s.shard.text() + " given twice: " + slot->dir + " and " + s.dir);
    slot = std::move(s);
  }
  return set;
}

}  // namespace semsim
