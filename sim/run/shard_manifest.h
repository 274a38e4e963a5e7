// shard.ini: the manifest a shard of `compare --shard K/N` or `check --shard K/N` writes under
// --out, and how `semsim merge` reads a set of them. It says which command made the shard, with
// which build and Redis, which shard it is, the options its runs depend on (shards merge only
// when these are equal), what it covered, and what merge needs to write the unsharded command's
// files. The format is a small INI: `[section]` headers and `key = value` lines, '#' comments at
// a line's start; a value runs to the end of its line, '#' included (it may hold a command line,
// which Boost's config parser would cut at a '#'), and a key may repeat (a list).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/shard.h"

namespace semsim {

inline constexpr const char* kManifestFile = "shard.ini";

class Manifest {
 public:
  struct Entry {
    std::string section, key, value;
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  // Keys before any section go in section "". A value must not hold a newline.
  void add(std::string section, std::string key, std::string value);
  // The value of a key given once; throws std::invalid_argument naming the file if there is none.
  const std::string& get(std::string_view section, std::string_view key) const;
  std::vector<std::string> all(std::string_view section, std::string_view key) const;  // in order
  std::vector<Entry> in(std::string_view section) const;
  const std::string& file() const { return file_; }  // where it was read from ("" if made here)

  // Writes DIR/shard.ini (a comment saying what it is first); throws std::runtime_error if it cannot.
  void write(const std::string& dir) const;
  // Reads DIR/shard.ini; throws std::invalid_argument naming the file (and line) if it is missing
  // or malformed.
  static Manifest read(const std::string& dir);

 private:
  std::vector<Entry> entries_;
  std::string file_;
};

// Removes DIR/shard.ini when a semsim shard wrote it (a regular file that starts as Manifest::write
// starts one): a command writing anew into DIR must not leave an older shard's description of
// other results for merge to read. Anything else of that name is not semsim's, and stays.
void remove_older_manifest(const std::string& dir);

// The top of every shard's manifest: the command, semsim's version, the shard, the Redis the runs
// used (described, and its version alone: shards on different hosts may describe it differently).
Manifest shard_manifest(const std::string& command, const Shard& shard, const std::string& redis_described,
                        const std::string& redis_version);

struct ShardDir {
  std::string dir;
  Shard shard;
  Manifest manifest;
};

// A set of shards that may be merged.
struct ShardSet {
  std::string command;                      // compare | check
  int count = 0;                            // N
  std::vector<std::optional<ShardDir>> by_index;  // [K-1]; nullopt: not given
  std::vector<int> missing() const;         // the Ks not given, ascending
  const ShardDir& first() const;            // the lowest K given
  std::string missing_text() const;         // "shards 2/3 and 3/3", "" when none is missing
  // Every distinct Redis the shards describe, joined with "; ".
  std::string redis() const;
};

// Reads DIR/shard.ini of each folder. Throws std::invalid_argument, naming the folders, if one has
// no manifest, or they are not shards of one command, one build, one Redis version and equal
// [options] (the first difference is named), of one N, or one shard is given twice.
ShardSet read_shard_set(const std::vector<std::string>& dirs);

}  // namespace semsim
