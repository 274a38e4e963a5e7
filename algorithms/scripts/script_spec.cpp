// Reading a script variant's INI file into a Spec (script_spec.h), with messages that name the
// file, the line and the key.
#include "algorithms/scripts/script_spec.h"

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include <boost/program_options.hpp>

#include "algorithms/api/protocol.h"

namespace semsim::scripts {
namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Where each key stands. program_options reports no line numbers, so the file is scanned with
// its rules (boost 1.74 config_file.cpp): '#' starts a comment anywhere, lines are trimmed,
// `[s]` sets the prefix "s.", `name = value` splits at the first '=', anything else is invalid.

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

struct IniLines {
  std::string file;
  std::map<std::string, std::vector<int>> lines;  // full key -> its lines, in file order
  std::map<std::string, std::string> values;      // full key -> its (last) value
  int first_invalid_line = 0;                     // 0: none

  int line_of(const std::string& key, std::size_t occurrence = 0) const {
    auto it = lines.find(key);
    return it == lines.end() || occurrence >= it->second.size() ? 0 : it->second[occurrence];
  }
  // "FILE:LINE: key: why", or "FILE: key: why" if the key is not in the file (a default).
  SetupError error(const std::string& key, const std::string& why, std::size_t occurrence = 0) const {
    const int line = line_of(key, occurrence);
    return SetupError(file + (line ? ":" + std::to_string(line) : "") + ": " + key + ": " + why);
  }
};

IniLines scan_lines(const std::string& file, const std::string& text) {
  IniLines out{file, {}, {}, 0};
  std::istringstream in(text);
  std::string prefix, raw;
  for (int n = 1; std::getline(in, raw); ++n) {
    std::string s = trim(raw.substr(0, raw.find('#')));
    if (s.empty()) continue;
    if (s.front() == '[' && s.back() == ']') {
      prefix = s.substr(1, s.size() - 2);
      if (!prefix.empty() && prefix.back() != '.') prefix += '.';
    } else if (auto eq = s.find('='); eq != std::string::npos) {
      out.lines[prefix + trim(s.substr(0, eq))].push_back(n);
      out.values[prefix + trim(s.substr(0, eq))] = trim(s.substr(eq + 1));
    } else if (!out.first_invalid_line) {
      out.first_invalid_line = n;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Words and placeholders.

struct Token {
  std::string text;
  bool quoted = false;  // "nil" is the text nil, not the nil reply
  bool prefix = false;  // "text"*: a reply starting with text
};

// Whitespace-separated words; a word that starts with ' or " runs to the matching quote, so that
// "" is an empty word and 'a b' one word with a space.
std::vector<Token> tokenize(const std::string& value, const IniLines& ini, const std::string& key) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (true) {
    i = value.find_first_not_of(" \t", i);
    if (i == std::string::npos) break;
    if (value[i] == '"' || value[i] == '\'') {
      const auto close = value.find(value[i], i + 1);
      if (close == std::string::npos) throw ini.error(key, "unterminated quote in '" + value + "'");
      const bool prefix = close + 1 < value.size() && value[close + 1] == '*';
      out.push_back({value.substr(i + 1, close - i - 1), true, prefix});
      i = close + 1 + (prefix ? 1 : 0);
    } else {
      const auto end = value.find_first_of(" \t", i);
      out.push_back({value.substr(i, end - i), false, false});
      i = end;
    }
  }
  return out;
}

const std::map<std::string, Ph>& placeholder_names() {
  static const std::map<std::string, Ph> names{
      {"key", Ph::key},
      {"id", Ph::id},
      {"limit", Ph::limit},
      {"timeout_ms", Ph::timeout_ms},
      {"timeout_us", Ph::timeout_us},
      {"timeout_s", Ph::timeout_s},
      {"lock_timeout_ms", Ph::lock_timeout_ms},
      {"lock_timeout_us", Ph::lock_timeout_us},
      {"lock_timeout_s", Ph::lock_timeout_s},
      {"now_ms", Ph::now_ms},
      {"now_us", Ph::now_us},
      {"now_s", Ph::now_s},
      {"server_now_ms", Ph::server_now_ms},
      {"server_now_us", Ph::server_now_us},
      {"server_now_s", Ph::server_now_s},
      {"timeout_whole_s", Ph::timeout_whole_s},
      {"lock_timeout_whole_s", Ph::lock_timeout_whole_s},
      {"reply", Ph::reply},
  };
  return names;
}

bool is_server_now(Ph p) { return p == Ph::server_now_ms || p == Ph::server_now_us || p == Ph::server_now_s; }

// The unit of a time or duration placeholder: 'm' (ms), 'u' (us), 's'; 0 for the others.
char unit_of(Ph p) {
  switch (p) {
    case Ph::timeout_ms: case Ph::lock_timeout_ms: case Ph::now_ms: case Ph::server_now_ms: return 'm';
    case Ph::timeout_us: case Ph::lock_timeout_us: case Ph::now_us: case Ph::server_now_us: return 'u';
    case Ph::timeout_s: case Ph::lock_timeout_s: case Ph::now_s: case Ph::server_now_s: return 's';
    default: return 0;
  }
}

bool uses_server_now(const Piece& p) {
  return is_server_now(p.kind) || std::any_of(p.terms.begin(), p.terms.end(), is_server_now);
}

Word parse_word(const std::string& word, const IniLines& ini, const std::string& key) {
  Word out;
  std::string literal;
  const auto flush = [&] {
    if (!literal.empty()) out.push_back({Ph::text, std::exchange(literal, {}), {}});
  };
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    if ((c == '{' || c == '}') && i + 1 < word.size() && word[i + 1] == c) {
      literal += c;  // {{ and }} are literal braces
      ++i;
    } else if (c == '{') {
      const auto close = word.find('}', i);
      if (close == std::string::npos) throw ini.error(key, "unclosed '{' in '" + word + "'");
      const std::string name = word.substr(i + 1, close - i - 1);
      flush();
      if (name.rfind("key:", 0) == 0 && name.size() > 4) {
        out.push_back({Ph::key_named, name.substr(4), {}});
      } else if (name == "1..limit") {
        // One key per permit (`{key}:slot{1..limit}`): the word is repeated, once per permit.
        if (std::any_of(out.begin(), out.end(), [](const Piece& p) { return p.kind == Ph::counter; }))
          throw ini.error(key, "'" + word + "' repeats twice: a word may hold one {1..limit}");
        out.push_back({Ph::counter, {}, {}});
      } else if (name.find('+') != std::string::npos) {
        // {now_ms+timeout_ms}: an expiry instant, as libraries pass them; terms of one unit.
        Piece sum{Ph::sum, name, {}};
        std::size_t start = 0;
        while (start <= name.size()) {
          const std::size_t plus = std::min(name.find('+', start), name.size());
          const std::string term = trim(name.substr(start, plus - start));
          const auto it = placeholder_names().find(term);
          if (it == placeholder_names().end() || !unit_of(it->second))
            throw ini.error(key, "{" + name + "}: '" + term + "' cannot be added (a sum adds times and timeouts: "
                                 "now, server_now, timeout, lock_timeout, with _ms, _us or _s)");
          if (!sum.terms.empty() && unit_of(it->second) != unit_of(sum.terms.front()))
            throw ini.error(key, "{" + name + "} mixes units: every term must end in the same _ms, _us or _s");
          sum.terms.push_back(it->second);
          start = plus + 1;
        }
        out.push_back(std::move(sum));
      } else if (auto it = placeholder_names().find(name); it != placeholder_names().end()) {
        out.push_back({it->second, {}, {}});
      } else {
        throw ini.error(key, "unknown placeholder {" + name +
                                 "} (known: {key} {key:NAME} {id} {limit} {timeout_ms|us|s|whole_s} "
                                 "{lock_timeout_ms|us|s|whole_s} {now_ms|us|s} {server_now_ms|us|s} {reply} "
                                 "{1..limit}, and sums of times of one unit such as {now_ms+timeout_ms})");
      }
      i = close;
    } else if (c == '}') {
      throw ini.error(key, "unmatched '}' in '" + word + "' (write }} for a literal brace)");
    } else {
      literal += c;
    }
  }
  flush();
  return out;
}

// A word as the INI wrote it, for messages.
std::string words_text(const Word& w) {
  std::string out;
  for (const Piece& p : w) {
    if (p.kind == Ph::text) out += p.text;
    else if (p.kind == Ph::key_named) out += "{key:" + p.text + "}";
    else if (p.kind == Ph::sum) out += "{" + p.text + "}";
    else if (p.kind == Ph::counter) out += "{1..limit}";
    else
      for (const auto& [name, kind] : placeholder_names())
        if (kind == p.kind) out += "{" + name + "}";
  }
  return out;
}

// Whether a word names a key under the run's own prefix whatever the placeholders stand for.
bool starts_with_own_key(const Word& w) {
  return !w.empty() && (w.front().kind == Ph::key || w.front().kind == Ph::key_named);
}

std::vector<Word> parse_words(const std::string& value, const IniLines& ini, const std::string& key) {
  std::vector<Word> out;
  for (const Token& t : tokenize(value, ini, key)) out.push_back(parse_word(t.text, ini, key));
  return out;
}

long long floor_div(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
long long ceil_div(long long a, long long b) { return -floor_div(-a, b); }

// Exact decimal seconds: 10000000 -> "10", 250000 -> "0.25", -1500 -> "-0.0015".
std::string decimal_seconds(long long us) {
  const bool negative = us < 0;
  const unsigned long long magnitude = negative ? 0ULL - static_cast<unsigned long long>(us) : us;
  std::string out = (negative ? "-" : "") + std::to_string(magnitude / 1'000'000);
  if (const unsigned long long frac = magnitude % 1'000'000) {
    std::string digits = std::to_string(frac);
    digits.insert(0, 6 - digits.size(), '0');
    digits.erase(digits.find_last_not_of('0') + 1);
    out += "." + digits;
  }
  return out;
}

// A time or duration placeholder's value: in its own unit for _ms and _us (rounded as the single
// placeholder is), in µs for _s (added exactly, then written as decimal seconds). nullopt: a
// server time that expands to "" (server_time = empty).
std::optional<long long> term_value(Ph p, const Values& v) {
  const auto time = [&](std::optional<Micros> t) -> std::optional<long long> {
    if (!t) return std::nullopt;
    return unit_of(p) == 'm' ? floor_div(t->count(), 1000) : t->count();
  };
  const auto duration = [&](Micros d) { return unit_of(p) == 'm' ? ceil_div(d.count(), 1000) : d.count(); };
  switch (p) {
    case Ph::timeout_ms: case Ph::timeout_us: case Ph::timeout_s: return duration(v.config.timeout);
    case Ph::lock_timeout_ms: case Ph::lock_timeout_us: case Ph::lock_timeout_s: return duration(v.config.lock_timeout);
    case Ph::now_ms: case Ph::now_us: case Ph::now_s: return time(v.now);
    case Ph::server_now_ms: case Ph::server_now_us: case Ph::server_now_s: return time(v.server_now);
    default: return std::nullopt;
  }
}

// Whole seconds, rounded up: EX n keeps a key at least as long as asked.
std::string whole_seconds(Micros d) { return num(ceil_div(d.count(), 1'000'000)); }

}  // namespace

bool uses(const Word& word, Ph kind) {
  return std::any_of(word.begin(), word.end(), [kind](const Piece& p) { return p.kind == kind; });
}

std::vector<std::string> expand_words(const std::vector<Word>& words, const Values& v) {
  std::vector<std::string> out;
  for (const Word& w : words) {
    if (!uses(w, Ph::counter)) {
      out.push_back(expand(w, v));
      continue;
    }
    for (long long n = 1; n <= v.config.limit; ++n) out.push_back(expand(w, v, n));
  }
  return out;
}

std::string expand(const Word& word, const Values& v, long long counter) {
  std::string out;
  const auto time = [](std::optional<Micros> t, long long unit) -> std::string {
    if (!t) return {};
    return unit == 1 ? num(t->count()) : unit == 1000 ? num(floor_div(t->count(), 1000)) : decimal_seconds(t->count());
  };
  for (const Piece& p : word) {
    switch (p.kind) {
      case Ph::sum: {
        long long total = 0;
        bool empty = false;
        for (Ph term : p.terms) {
          const auto value = term_value(term, v);
          empty = empty || !value;
          total += value.value_or(0);
        }
        if (!empty) out += unit_of(p.terms.front()) == 's' ? decimal_seconds(total) : num(total);
        break;
      }
      case Ph::text: out += p.text; break;
      case Ph::key: out += v.config.name; break;
      case Ph::key_named: out += v.config.name + ":" + p.text; break;
      case Ph::id: out += v.id; break;
      case Ph::limit: out += num(v.config.limit); break;
      case Ph::timeout_ms: out += num(ceil_div(v.config.timeout.count(), 1000)); break;
      case Ph::timeout_us: out += num(v.config.timeout.count()); break;
      case Ph::timeout_s: out += decimal_seconds(v.config.timeout.count()); break;
      case Ph::lock_timeout_ms: out += num(ceil_div(v.config.lock_timeout.count(), 1000)); break;
      case Ph::lock_timeout_us: out += num(v.config.lock_timeout.count()); break;
      case Ph::lock_timeout_s: out += decimal_seconds(v.config.lock_timeout.count()); break;
      case Ph::now_ms: out += time(v.now, 1000); break;
      case Ph::now_us: out += time(v.now, 1); break;
      case Ph::now_s: out += time(v.now, 0); break;
      case Ph::server_now_ms: out += time(v.server_now, 1000); break;
      case Ph::server_now_us: out += time(v.server_now, 1); break;
      case Ph::server_now_s: out += time(v.server_now, 0); break;
      case Ph::timeout_whole_s: out += whole_seconds(v.config.timeout); break;
      case Ph::lock_timeout_whole_s: out += whole_seconds(v.config.lock_timeout); break;
      case Ph::reply: out += v.reply ? *v.reply : std::string(); break;
      case Ph::counter: out += num(counter); break;
    }
  }
  return out;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Reply matchers.

std::optional<long long> parse_integer(const std::string& s) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// A timeout.step: a positive whole number with a unit (us, ms, s, m), e.g. 1s; nullopt if not.
std::optional<Micros> parse_step(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const auto count = parse_integer(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  const long long scale = unit == "us" ? 1 : unit == "ms" ? 1'000 : unit == "s" ? 1'000'000 : unit == "m" ? 60'000'000 : 0;
  // At most an hour: a step is a library's unit of time, not a run's length.
  if (!count || *count <= 0 || scale == 0 || *count > 3'600'000'000LL / scale) return std::nullopt;
  return Micros(*count * scale);
}

Matcher parse_matcher(const std::string& value, const IniLines& ini, const std::string& key) {
  using K = Alternative::Kind;
  Matcher m{value, {}};
  for (const Token& t : tokenize(value, ini, key)) {
    if (t.quoted) m.alternatives.push_back({t.prefix ? K::prefix : K::text, 0, t.text});
    else if (auto v = parse_integer(t.text)) m.alternatives.push_back({K::integer, *v, {}});
    else if (t.text == "nil") m.alternatives.push_back({K::nil, 0, {}});
    else if (t.text == "nonzero") m.alternatives.push_back({K::nonzero, 0, {}});
    else if (t.text == "positive") m.alternatives.push_back({K::positive, 0, {}});
    else if (t.text == "string") m.alternatives.push_back({K::any_string, 0, {}});
    else if (t.text == "error") m.alternatives.push_back({K::error, 0, {}});
    else
      throw ini.error(key, "'" + t.text + "' is not a reply: write an integer, nil, nonzero, positive, string, "
                                          "error, a quoted \"text\" or a quoted prefix \"text\"*");
  }
  if (m.alternatives.empty()) throw ini.error(key, "empty: name at least one reply");
  return m;
}

}  // namespace

bool Matcher::matches(const Reply& r) const {
  using K = Alternative::Kind;
  const bool integer = r.kind == Reply::Kind::integer;
  const bool text = r.kind == Reply::Kind::string || r.kind == Reply::Kind::status;
  for (const Alternative& a : alternatives) {
    switch (a.kind) {
      case K::integer: if (integer && r.integer == a.value) return true; break;
      case K::nil: if (r.is_nil()) return true; break;
      case K::nonzero: if (integer && r.integer != 0) return true; break;
      case K::positive: if (integer && r.integer > 0) return true; break;
      case K::text: if (text && r.text == a.text) return true; break;
      case K::prefix: if (text && r.text.starts_with(a.text)) return true; break;
      case K::any_string: if (text) return true; break;
      case K::error: if (r.is_error()) return true; break;
    }
  }
  return false;
}

bool Matcher::integers_only() const {
  using K = Alternative::Kind;
  for (const Alternative& a : alternatives)
    if (a.kind != K::integer && a.kind != K::nonzero && a.kind != K::positive) return false;
  return true;
}

bool Matcher::takes_errors() const {
  for (const Alternative& a : alternatives)
    if (a.kind == Alternative::Kind::error) return true;
  return false;
}

std::string reply_text(const Reply& r) {
  if (r.kind == Reply::Kind::integer) return num(r.integer);
  return r.kind == Reply::Kind::nil ? std::string() : r.text;
}

std::string describe(const Reply& r) {
  switch (r.kind) {
    case Reply::Kind::nil: return "nil";
    case Reply::Kind::integer: return "the integer " + num(r.integer);
    case Reply::Kind::string: return "the string \"" + r.text + "\"";
    case Reply::Kind::status: return "the status " + r.text;
    case Reply::Kind::error: return "the error " + r.text;
    case Reply::Kind::array: return "an array of " + num(static_cast<long long>(r.elements.size()));
  }
  return "?";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Reading the INI file.

struct OpKeys {
  const char* op;
  const char* yes;
  const char* no;
  const char* yes_default;
  const char* no_default;
};
constexpr OpKeys kOps[] = {
    {"acquire", "granted", "refused", "1", "0 nil"},
    {"release", "ok", "missing", "1", "0 nil"},
    {"refresh", "ok", "lost", "1", "0 nil"},
    {"setup", nullptr, nullptr, "", ""},  // runs once; its reply is not read (an error reply fails the run)
};

// Over several masters (docs/script-variants.md, "Several masters").
constexpr const char* kMastersKeys[] = {"masters",            "masters.quorum",             "masters.validity",
                                        "masters.drift_factor", "masters.wait", "masters.release_on_refusal",
                                        "masters.refresh_lost", "masters.timeout"};

// `clock = client|server|ttl` (default server): which clock the script's times rest on.
ClockBasis script_clock(const std::optional<std::string>& value, const IniLines& ini) {
  if (!value || *value == "server") return ClockBasis::redis_time;
  if (*value == "client") return ClockBasis::client;
  if (*value == "ttl") return ClockBasis::redis_ttl;
  throw ini.error("clock", "'" + *value + "' is not client, server or ttl");
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The INI file with its lines, read and checked key by key.
class IniReader {
 public:
  explicit IniReader(const std::string& ini_path)
      : path_(ini_path), text_(read_ini_text(ini_path)), ini_(scan_lines(ini_path, text_)),
        folder_(fs::path(ini_path).parent_path()) {
    if (ini_.first_invalid_line)
      throw SetupError(path_ + ":" + std::to_string(ini_.first_invalid_line) +
                       ": not `key = value`, a `[section]` or a # comment");
    parse();
  }

  std::optional<std::string> get(const std::string& key) const {
    if (!vm_.count(key)) return std::nullopt;
    return vm_[key].as<std::string>();
  }
  const IniLines& ini() const { return ini_; }

  // OP = FILE.lua or OP.command, with their keys, args and reply matchers; nullopt if neither.
  std::optional<Script> script(const OpKeys& k) const {
    const std::string op = k.op;
    const auto file = get(op);
    const auto command = get(op + ".command");
    if (file && command) throw ini_.error(op + ".command", "give either `" + op + " = FILE.lua` or `" + op + ".command`, not both");
    if (!file && !command) {
      for (const char* sub : {".keys", ".args"})
        if (get(op + sub)) throw ini_.error(op + sub, "given, but there is no `" + op + " = FILE.lua`");
      if (k.yes)
        for (const char* sub : {k.yes, k.no})
          if (get(op + "." + sub)) throw ini_.error(op + "." + sub, "given, but there is no `" + op + " = FILE.lua`");
      return std::nullopt;
    }
    Script s{op, {}, {}, {}, {}, {}, {}, {}, {}, false};
    if (command) read_command(*command, s);
    else read_file(*file, s);
    if (k.yes) {
      s.yes = parse_matcher(get(op + "." + k.yes).value_or(k.yes_default), ini_, op + "." + k.yes);
      s.no = parse_matcher(get(op + "." + k.no).value_or(k.no_default), ini_, op + "." + k.no);
    }
    for (const auto* words : {&s.keys, &s.args, &s.command})
      for (const Word& w : *words)
        for (const Piece& p : w) s.uses_server_now = s.uses_server_now || uses_server_now(p);
    // {reply} is what a granted acquire answered: there is none yet before acquire has run.
    if (op == "acquire" || op == "setup")
      for (const char* sub : {".keys", ".args", ".command"})
        if (const auto value = get(op + sub))
          for (const Word& w : parse_words(*value, ini_, op + sub))
            if (uses(w, Ph::reply))
              throw ini_.error(op + sub, "{reply} is acquire's granted reply, known after acquire: use it in release "
                                         "and refresh words");
    return s;
  }

  // timeout.step = 1s: the library takes its timeouts in whole units of it.
  std::optional<Micros> timeout_step() const {
    const auto value = get("timeout.step");
    if (!value) return std::nullopt;
    const auto step = parse_step(*value);
    if (!step) throw ini_.error("timeout.step", "'" + *value + "' is not a positive whole number with a unit (us, ms, s, m), "
                                                "e.g. 1s for a library that takes whole seconds");
    return step;
  }

  // lease_honesty = admission_set | ttl WORD: the search asserts that an ok'd lease lasts its
  // timeout, seen where the INI says the permit lives.
  LeaseHonesty lease_honesty(const Spec& spec) const {
    LeaseHonesty lease;
    const auto value = get("lease_honesty");
    if (!value) return lease;
    const auto words = tokenize(*value, ini_, "lease_honesty");
    const auto bad = [&] {
      return ini_.error("lease_honesty", "'" + *value + "' is not `admission_set` or `ttl KEY` (the permit's key, "
                                         "e.g. ttl {key} or ttl {reply})");
    };
    if (words.size() == 1 && !words[0].quoted && words[0].text == "admission_set") {
      if (!spec.admission_set)
        throw ini_.error("lease_honesty", "admission_set, but the INI names no admission_set");
      lease.kind = LeaseHonesty::Kind::admission_set;
    } else if (words.size() == 2 && !words[0].quoted && words[0].text == "ttl") {
      lease.kind = LeaseHonesty::Kind::ttl;
      lease.key = parse_word(words[1].text, ini_, "lease_honesty");
      if (lease.key.empty() || (lease.key.front().kind != Ph::key && lease.key.front().kind != Ph::key_named &&
                                lease.key.front().kind != Ph::reply))
        throw ini_.error("lease_honesty", "the permit's key must start with {key}, {key:NAME} or {reply} (keys under "
                                          "the run's own prefix), not '" + words_text(lease.key) + "'");
      if (uses(lease.key, Ph::counter)) throw ini_.error("lease_honesty", "name one key: {1..limit} names several");
    } else {
      throw bad();
    }
    return lease;
  }

  // acquire.token, server_time, admission_set, clock.
  void read_options(Spec& spec) const {
    if (auto clock = get("clock")) script_clock(clock, ini_);  // checked here, used by the registry
    if (auto token = get("acquire.token")) {
      if (*token == "reply") spec.token_from_reply = true;
      else if (*token != "none") throw ini_.error("acquire.token", "'" + *token + "' is not reply or none");
      // The fencing token is an integer: a granted reply that may be text or nil cannot be one.
      if (spec.token_from_reply && !spec.acquire.yes.integers_only())
        throw ini_.error("acquire.token", "reply needs acquire.granted to be integers only (an integer, nonzero, "
                                          "positive), not '" + spec.acquire.yes.spec + "'");
    }
    if (auto server_time = get("server_time")) {
      if (*server_time == "time") spec.server_time = ServerTime::time;
      else if (*server_time == "empty") spec.server_time = ServerTime::empty;
      else if (*server_time == "fail") spec.server_time = ServerTime::fail;
      else throw ini_.error("server_time", "'" + *server_time + "' is not time, empty or fail");
    }
    read_masters(spec);
    if (auto set = get("admission_set")) {
      auto words = parse_words(*set, ini_, "admission_set");
      if (words.size() != 1) throw ini_.error("admission_set", "name one key");
      for (const Piece& p : words[0])
        if (p.kind != Ph::text && p.kind != Ph::key && p.kind != Ph::key_named)
          throw ini_.error("admission_set", "only {key} and {key:NAME} make sense here");
      // The sampler reads it: a key of the user's would be read as this run's permits.
      if (!starts_with_own_key(words[0]))
        throw ini_.error("admission_set", "'" + words_text(words[0]) + "' is not a key of this run: start it with "
                                          "{key} or {key:NAME} (keys under the run's own prefix)");
      spec.admission_set = std::move(words[0]);
    }
  }

  // masters = each and the masters.* keys (which need it).
  void read_masters(Spec& spec) const {
    Masters& m = spec.masters;
    if (auto each = get("masters")) {
      if (*each != "each") throw ini_.error("masters", "'" + *each + "' is not each (the scripts run on every master)");
      m.each = true;
    }
    for (const char* key : kMastersKeys)
      if (std::string(key) != "masters" && get(key) && !m.each)
        throw ini_.error(key, "given, but there is no `masters = each`");
    if (!m.each) return;
    const auto choice = [&](const char* key, const char* yes, const char* no, bool fallback) {
      const auto v = get(key);
      if (!v) return fallback;
      if (*v != yes && *v != no) throw ini_.error(key, "'" + *v + "' is not " + yes + " or " + no);
      return *v == yes;
    };
    if (auto q = get("masters.quorum"); q && *q != "majority") {
      const auto k = parse_integer(*q);
      if (!k || *k < 1 || *k > 9) throw ini_.error("masters.quorum", "'" + *q + "' is not majority or a number of masters (1..9)");
      m.quorum = static_cast<int>(*k);
    }
    m.validity = choice("masters.validity", "spec", "none", false);
    if (auto f = get("masters.drift_factor")) {
      std::size_t used = 0;
      double v = -1;
      try {
        v = std::stod(*f, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != f->size() || !(v >= 0 && v <= 1))
        throw ini_.error("masters.drift_factor", "'" + *f + "' is not a number from 0 to 1");
      m.drift_factor = v;
    }
    m.wait_quorum = choice("masters.wait", "quorum", "all", false);
    if (auto r = get("masters.release_on_refusal")) {
      if (*r != "yes" && *r != "no" && *r != "last")
        throw ini_.error("masters.release_on_refusal", "'" + *r + "' is not yes, no or last");
      m.release_on_refusal = *r == "yes" ? Masters::Release::yes : *r == "no" ? Masters::Release::no : Masters::Release::last;
    }
    if (auto t = get("masters.timeout"); t && *t != "run") {
      if (*t == "none") m.wait_forever = true;
      else if (auto d = parse_step(*t)) m.timeout = d;
      else
        throw ini_.error("masters.timeout", "'" + *t + "' is not run (the run's --master-timeout), none (the library "
                                            "waits for every answer) or a positive whole number with a unit (us, ms, s, m)");
    }
    m.refresh_reacquire = choice("masters.refresh_lost", "acquire", "none", false);
    if (m.refresh_reacquire && !spec.refresh)
      throw ini_.error("masters.refresh_lost", "acquire, but there is no refresh script");
    if (spec.token_from_reply)
      throw ini_.error("acquire.token", "reply, but with masters = each every master replies: no one reply is the token");
  }

 private:
  static std::string read_ini_text(const std::string& ini_path) {
    if (!fs::is_regular_file(ini_path)) {
      std::error_code ec;
      const bool exists = fs::exists(ini_path, ec);
      throw SetupError(ini_path + ": cannot read the script variant's INI file: " +
                       (exists ? "not a regular file" : std::strerror(ENOENT)));
    }
    std::ifstream probe(ini_path);
    if (!probe) throw SetupError(ini_path + ": cannot read the script variant's INI file: " + std::strerror(errno));
    return read_text(ini_path);
  }

  // Every key through Boost.Program_options, with the messages naming the file and the line.
  void parse() {
    po::options_description description;
    for (const OpKeys& k : kOps) {
      const std::string op = k.op;
      description.add_options()(k.op, po::value<std::string>())((op + ".keys").c_str(), po::value<std::string>())(
          (op + ".args").c_str(), po::value<std::string>())((op + ".command").c_str(), po::value<std::string>());
      if (k.yes)
        description.add_options()((op + "." + k.yes).c_str(), po::value<std::string>())((op + "." + k.no).c_str(),
                                                                                           po::value<std::string>());
    }
    description.add_options()("acquire.token", po::value<std::string>())("server_time", po::value<std::string>())(
        "admission_set", po::value<std::string>())("clock", po::value<std::string>());
    description.add_options()("timeout.step", po::value<std::string>())("lease_honesty", po::value<std::string>());
    for (const char* key : kMastersKeys) description.add_options()(key, po::value<std::string>());
    try {
      std::istringstream in(text_);
      po::parsed_options parsed = po::parse_config_file(in, description, /*allow_unregistered=*/false);
      // A key given twice would be a bare po::multiple_occurrences at store(): name its second line.
      for (const auto& [key, lines] : ini_.lines)
        if (lines.size() > 1) throw ini_.error(key, "given twice (first on line " + std::to_string(lines[0]) + ")", 1);
      po::store(parsed, vm_);
    } catch (const po::unknown_option& e) {
      std::string key = e.get_option_name();
      key.erase(0, key.find_first_not_of('-'));
      throw ini_.error(key, "unknown key (known: acquire, release, refresh, setup and their .keys .args .command; "
                            "acquire.granted .refused .token; release.ok .missing; refresh.ok .lost; server_time; "
                            "admission_set; clock; timeout.step; lease_honesty; masters and masters.quorum .validity .drift_factor .wait "
                            ".release_on_refusal .refresh_lost .timeout)");
    } catch (const po::invalid_config_file_syntax&) {
      // Not e.what(): Boost's message loops for ever on a line that holds "%invalid_line%".
      throw SetupError(path_ + ":" + std::to_string(ini_.first_invalid_line) + ": not a `key = value` line");
    } catch (const po::error& e) {
      throw SetupError(path_ + ": " + e.what());
    }
  }

  // A plain command: its words, placeholders replaced; its first argument must be a key of the
  // run's own (so that it cannot touch another's keys).
  void read_command(const std::string& command, Script& s) const {
    const std::string& op = s.op;
    for (const char* sub : {".keys", ".args"})
      if (get(op + sub)) throw ini_.error(op + sub, "not with " + op + ".command: write the words in the command");
    s.path = path_ + ":" + std::to_string(ini_.line_of(op + ".command"));
    s.command = parse_words(command, ini_, op + ".command");
    if (s.command.empty()) throw ini_.error(op + ".command", "empty: write a command, e.g. ZREM {key} {id}");
    if (s.command[0].size() != 1 || s.command[0][0].kind != Ph::text)
      throw ini_.error(op + ".command", "the first word must be the command's name, not '" + words_text(s.command[0]) + "'");
    // Whether the command may run at all, and which of its words are keys (each the run's own),
    // is checked before the run and on every call with the words as expanded then
    // (ScriptSemaphore::check_command_words, algorithms/api/command_policy.h). A script is refused
    // here: it may touch keys that no word names.
    const auto upper = [](std::string text) {
      std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
      return text;
    };
    const std::string name = upper(s.command[0][0].text);
    static const std::set<std::string> scripts{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"};
    if (scripts.count(name))
      throw ini_.error(op + ".command", name + " runs a script, which may touch keys no word names: write `" + op +
                                            " = FILE.lua` with its keys in " + op + ".keys");
    if (s.command.size() < 2 || s.command[1].empty() ||
        (s.command[1].front().kind != Ph::key && s.command[1].front().kind != Ph::key_named &&
         s.command[1].front().kind != Ph::reply))
      throw ini_.error(op + ".command", "the command's first argument must be a key starting with {key} or "
                                        "{key:NAME} (keys under the run's own prefix), or {reply}");
  }

  // A Lua script file, relative to the INI's folder, with its KEYS and ARGV words.
  void read_file(const std::string& file, Script& s) const {
    const std::string& op = s.op;
    if (trim(file).empty()) throw ini_.error(op, "empty: name the script file");
    const fs::path path = (folder_ / trim(file)).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw ini_.error(op, "cannot read script '" + trim(file) + "' (looked for " + path.string() + "): " +
                               (fs::exists(path, ec) ? "not a regular file" : std::strerror(ENOENT)));
    std::ifstream in(path);
    if (!in) throw ini_.error(op, "cannot read script " + path.string() + ": " + std::strerror(errno));
    s.path = path.string();
    s.source = read_text(path);
    s.keys = parse_words(get(op + ".keys").value_or("{key}"), ini_, op + ".keys");
    // A script may write whatever KEYS name: each must lie under the run's own prefix, so that a
    // run never touches a key it does not own on the user's Redis.
    // A key from acquire's reply ({reply}) is checked when the reply is known (ScriptSemaphore::call).
    for (const Word& w : s.keys)
      if (!starts_with_own_key(w) && !(!w.empty() && w.front().kind == Ph::reply))
        throw ini_.error(op + ".keys", "every key must start with {key} or {key:NAME} (keys under the run's own "
                                       "prefix); '" + words_text(w) + "' would name a key outside it");
    s.args = parse_words(get(op + ".args").value_or(""), ini_, op + ".args");
  }

  std::string path_;
  std::string text_;
  IniLines ini_;
  fs::path folder_;
  po::variables_map vm_;
};

}  // namespace

Spec read_script_spec(const std::string& ini_path) {
  const IniReader reader(ini_path);
  Spec spec;
  spec.ini = ini_path;
  auto acquire = reader.script(kOps[0]);
  if (!acquire) throw SetupError(ini_path + ": acquire: missing: name the acquire script (`acquire = FILE.lua`) or command");
  auto release = reader.script(kOps[1]);
  if (!release)
    throw SetupError(ini_path + ": release: missing: name the release script (`release = FILE.lua`) or command "
                     "(`release.command = ZREM {key} {id}`)");
  spec.acquire = std::move(*acquire);
  spec.release = std::move(*release);
  spec.refresh = reader.script(kOps[2]);
  spec.setup = reader.script(kOps[3]);
  reader.read_options(spec);
  spec.timeout_step = reader.timeout_step();
  if (spec.timeout_step)
    spec.timeout_step_where = ini_path + ":" + std::to_string(reader.ini().line_of("timeout.step"));
  spec.lease = reader.lease_honesty(spec);
  const auto any_reply = [](const Script& s) {
    for (const auto* words : {&s.keys, &s.args, &s.command})
      for (const Word& w : *words)
        if (uses(w, Ph::reply)) return true;
    return false;
  };
  spec.keeps_replies = any_reply(spec.release) || (spec.refresh && any_reply(*spec.refresh)) || uses(spec.lease.key, Ph::reply);
  // Over several masters every master answers acquire, and the harness asks one Redis about a
  // lease: refused rather than read from master 1 alone.
  if (spec.masters.each && spec.keeps_replies)
    throw reader.ini().error("masters", "each, but a word uses {reply}: with masters = each every master replies to "
                                        "acquire, and no one reply names the permit (name its keys with {key} and {id})");
  if (spec.masters.each && spec.lease.kind != LeaseHonesty::Kind::none)
    throw reader.ini().error("lease_honesty", "not with masters = each: lease honesty asks one Redis whether a grant "
                                              "still has its permit, and a grant over several masters stands on a quorum");
  return spec;
}

namespace {
IniLines scan_file(const std::string& ini_path) {
  std::ifstream in(ini_path);
  std::ostringstream text;
  text << in.rdbuf();
  return scan_lines(ini_path, text.str());
}
}  // namespace

Micros read_script_timeout_step(const std::string& ini_path) {
  const IniLines ini = scan_file(ini_path);
  const auto it = ini.values.find("timeout.step");
  if (it == ini.values.end()) return Micros(0);
  const auto step = parse_step(it->second);
  if (!step) throw ini.error("timeout.step", "'" + it->second + "' is not a positive whole number with a unit");
  return *step;
}

bool read_script_lease_honesty(const std::string& ini_path) { return scan_file(ini_path).values.count("lease_honesty") > 0; }

bool read_script_each_master(const std::string& ini_path) {
  const IniLines ini = scan_file(ini_path);
  return ini.values.count("masters") && ini.values.at("masters") == "each";
}

ClockBasis read_script_clock(const std::string& ini_path) {
  const IniLines ini = scan_file(ini_path);
  const auto value = ini.values.count("clock") ? std::optional<std::string>(ini.values.at("clock")) : std::nullopt;
  return script_clock(value, ini);
}

}  // namespace semsim::scripts
