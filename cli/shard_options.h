// --shard K/N as compare and check take it (sim/run/shard.h, docs/scale-out.md), and the command
// a shard records for its merge: the command as given but for the options that do not change what
// it makes (--shard, --out, --jobs), so that every shard of one sweep or search records the same.
#pragma once

#include <string>
#include <string_view>

#include <boost/program_options.hpp>

#include "reports/history/text_format.h"
#include "sim/run/shard.h"

namespace semsim {

inline constexpr const char* kShardHelp =
    "K/N: make only the runs (cases) whose index is K-1 mod N, with the seeds they have unsharded, and write "
    "them with shard.ini for `semsim merge` (docs/scale-out.md)";

inline std::string unsharded_command(std::string_view command, const boost::program_options::parsed_options& parsed) {
  std::string out = "semsim " + std::string(command);
  for (const auto& option : parsed.options) {
    if (option.string_key == "shard" || option.string_key == "out" || option.string_key == "jobs") continue;
    for (const std::string& token : option.original_tokens) out += " " + shell_word(token);
  }
  return out;
}

}  // namespace semsim
