// The rule is documented in command_policy.h; the table is Redis 7.0's own (command_table.inc).
#include "algorithms/api/command_policy.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>

namespace semsim {
namespace {

// What command_table.inc says of a command: the ACL categories the rule reads, and whether its
// keys move with its arguments (then first/last/step do not say them all).
enum : unsigned {
  kCmdAdmin = 1u << 0,
  kCmdDangerous = 1u << 1,
  kCmdPubsub = 1u << 2,
  kCmdScripting = 1u << 3,
  kCmdKeyspace = 1u << 4,
  kCmdConnection = 1u << 5,
  kCmdWrite = 1u << 6,
  kCmdMovableKeys = 1u << 7,
};

struct Row {
  std::string_view name, sub;  // lower case; sub "" for the command itself
  int arity, first, last, step;
  unsigned flags;
};

constexpr Row kTable[] = {
#include "algorithms/api/command_table.inc"
};

constexpr bool row_less(const Row& a, const Row& b) { return a.name != b.name ? a.name < b.name : a.sub < b.sub; }
static_assert(std::is_sorted(std::begin(kTable), std::end(kTable), row_less), "command_table.inc must be sorted");

const Row* find(std::string_view name, std::string_view sub) {
  const Row probe{name, sub, 0, 0, 0, 0, 0};
  const Row* at = std::lower_bound(std::begin(kTable), std::end(kTable), probe, row_less);
  return at != std::end(kTable) && at->name == name && at->sub == sub ? at : nullptr;
}

bool has_subcommands(const Row* row) { return row + 1 != std::end(kTable) && row[1].name == row->name; }

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// A count of keys as Redis reads it; nullopt for anything else (Redis would refuse it too).
std::optional<long long> count_of(const std::string& word) {
  long long n = -1;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), n);
  if (ec != std::errc() || end != word.data() + word.size() || n < 0) return std::nullopt;
  return n;
}

// Connection commands libraries send, by "name" or "name sub": allowed, with no keys.
const std::set<std::string, std::less<>> kConnection{
    "ping", "echo", "hello", "info", "time", "wait", "quit", "multi", "exec", "discard", "unwatch", "readonly",
    "readwrite", "unsubscribe", "punsubscribe", "sunsubscribe", "client setname", "client getname", "client id",
    "client info", "client setinfo", "script load", "script exists"};

// Refused whatever Redis counts them, with why.
struct Refusal {
  std::set<std::string, std::less<>> commands;
  const char* why;
};
const Refusal kRefused[] = {
    {{"select", "swapdb", "move", "migrate"}, "reaches another database or server: a run keeps to its own keys"},
    {{"auth", "reset"}, "changes who the connection is: the run authenticates it and chooses its database"},
    {{"script flush", "script kill", "script debug", "function"}, "acts on every script or function of the server"},
    {{"psubscribe", "pubsub"}, "reaches channels outside the run's"},
};

}  // namespace

std::string command_label(const std::vector<std::string>& words) {
  if (words.empty()) return "(an empty command)";
  const Row* row = find(lower(words[0]), "");
  if (row && has_subcommands(row) && words.size() > 1) return upper(words[0]) + " " + upper(words[1]);
  return upper(words[0]);
}

CommandCheck check_command(const std::vector<std::string>& words) {
  CommandCheck c;
  const std::string label = command_label(words);
  const auto refuse = [&](const std::string& why) {
    c.refused = label + " " + why;
    c.keys.clear();
    return c;
  };
  if (words.empty()) return refuse("runs nothing");
  const std::string name = lower(words[0]);
  const Row* row = find(name, "");
  if (!row) return refuse("is not a command of Redis 7.0 (algorithms/api/command_table.inc): semsim cannot tell what it does");
  std::string what = name;  // "name" or "name sub", as the sets above spell it
  if (has_subcommands(row) && words.size() > 1) {
    const std::string sub = lower(words[1]);
    what += " " + sub;
    if (what == "client setinfo") return c;  // Redis 7.2's, which libraries send first
    row = find(name, sub);
    if (!row) return refuse("is not a subcommand of Redis 7.0 (algorithms/api/command_table.inc): semsim cannot tell what it does");
  } else if (has_subcommands(row) && name != "command") {
    return refuse("without a subcommand does nothing a run needs");
  }
  for (const Refusal& r : kRefused)
    if (r.commands.count(name) || r.commands.count(what)) return refuse(r.why);
  if (name == "copy")
    for (std::size_t i = 3; i < words.size(); ++i)
      if (lower(words[i]) == "db") return refuse(kRefused[0].why);
  if (kConnection.count(what) || name == "command") return c;
  if (row->flags & kCmdAdmin) return refuse("is an admin command (@admin)");
  if (row->flags & kCmdDangerous) return refuse("is a dangerous command (@dangerous)");

  const std::size_t n = words.size();
  const auto key_range = [&](std::size_t from, std::size_t count) {
    for (std::size_t i = from; i < from + count && i < n; ++i) c.keys.push_back(i);
  };
  // numkeys at `at`, the keys right after it; false if it is not a count the words hold.
  const auto counted_keys = [&](std::size_t at) {
    const auto count = at < n ? count_of(words[at]) : std::nullopt;
    if (!count || *count > static_cast<long long>(n - at - 1)) return false;
    key_range(at + 1, static_cast<std::size_t>(*count));
    return true;
  };
  const auto unreadable = [&] { return refuse("has a number of keys semsim cannot read ('" + (words.size() > 2 ? words[2] : std::string()) + "')"); };
  if (name == "publish") {
    key_range(1, 1);
  } else if (name == "subscribe") {
    key_range(1, n);
  } else if (row->flags & kCmdMovableKeys) {
    if (name == "eval" || name == "evalsha" || name == "eval_ro" || name == "evalsha_ro" || name == "fcall" ||
        name == "fcall_ro" || name == "blmpop" || name == "bzmpop") {
      if (!counted_keys(2)) return unreadable();
    } else if (name == "zunionstore" || name == "zinterstore" || name == "zdiffstore") {
      key_range(1, 1);
      if (!counted_keys(2)) return unreadable();
    } else if (name == "zunion" || name == "zinter" || name == "zdiff" || name == "zintercard" || name == "sintercard" ||
               name == "lmpop" || name == "zmpop") {
      if (n < 2 || !counted_keys(1)) return refuse("has a number of keys semsim cannot read ('" + (n > 1 ? words[1] : std::string()) + "')");
    } else if (name == "xread" || name == "xreadgroup") {
      // As Redis reads it (xreadGetKeys): options, then STREAMS, then as many keys as IDs.
      std::size_t streams = 0;
      for (std::size_t i = 1; i < n && !streams; ++i) {
        const std::string option = lower(words[i]);
        if (option == "block" || option == "count") ++i;
        else if (option == "group") i += 2;
        else if (option == "streams") streams = i;
        else if (option != "noack") break;
      }
      const std::size_t rest = streams ? n - streams - 1 : 0;
      if (!streams || rest == 0 || rest % 2 != 0) return refuse("has no STREAMS with as many keys as IDs that semsim can read");
      key_range(streams + 1, rest / 2);
    } else if (name == "georadius" || name == "georadiusbymember") {
      key_range(1, 1);
      for (std::size_t i = 2; i + 1 < n; ++i) {
        const std::string option = lower(words[i]);
        if (option == "store" || option == "storedist") c.keys.push_back(i + 1);
      }
    } else {
      return refuse("has keys that move with its arguments, which semsim cannot read");
    }
  } else if (row->first > 0) {
    const long long last = row->last < 0 ? static_cast<long long>(n) + row->last : row->last;
    for (long long i = row->first; i <= last && i < static_cast<long long>(n); i += std::max(1, row->step))
      c.keys.push_back(static_cast<std::size_t>(i));
  } else {
    return refuse("names no key: on Redis only data commands on the run's own keys (and the connection commands "
                  "libraries send) run");
  }
  std::sort(c.keys.begin(), c.keys.end());
  c.keys.erase(std::unique(c.keys.begin(), c.keys.end()), c.keys.end());
  return c;
}

}  // namespace semsim
