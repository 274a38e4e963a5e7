// `script:FILE.ini` variants: the user's Lua scripts as a semaphore. The INI format, placeholders
// and reply conventions are documented in script_variant.h and docs/script-variants.md.
//
// Every Redis command of this variant is built here: SCRIPT LOAD in prepare(), one EVALSHA per
// operation (as the built-in `lua` variant, so that a script re-expressing it sees the same
// simulated timing), SCRIPT LOAD + EVALSHA again on NOSCRIPT, and TIME only where the run has no
// server clock and server_time = time.
#include "algorithms/script_variant.h"

#include <boost/program_options.hpp>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "algorithms/protocol.h"

namespace semsim {
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
  IniLines out{file, {}, 0};
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
      out.push_back({value.substr(i + 1, close - i - 1), true});
      i = close + 1;
    } else {
      const auto end = value.find_first_of(" \t", i);
      out.push_back({value.substr(i, end - i), false});
      i = end;
    }
  }
  return out;
}

enum class Ph {
  text, key, key_named, id, limit,
  timeout_ms, timeout_us, timeout_s,
  lock_timeout_ms, lock_timeout_us, lock_timeout_s,
  now_ms, now_us, now_s,
  server_now_ms, server_now_us, server_now_s,
};

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
  };
  return names;
}

bool is_server_now(Ph p) { return p == Ph::server_now_ms || p == Ph::server_now_us || p == Ph::server_now_s; }

struct Piece {
  Ph kind = Ph::text;
  std::string text;  // the literal (text) or NAME ({key:NAME})
};
using Word = std::vector<Piece>;

Word parse_word(const std::string& word, const IniLines& ini, const std::string& key) {
  Word out;
  std::string literal;
  const auto flush = [&] {
    if (!literal.empty()) out.push_back({Ph::text, std::exchange(literal, {})});
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
        out.push_back({Ph::key_named, name.substr(4)});
      } else if (auto it = placeholder_names().find(name); it != placeholder_names().end()) {
        out.push_back({it->second, {}});
      } else {
        throw ini.error(key, "unknown placeholder {" + name +
                                 "} (known: {key} {key:NAME} {id} {limit} {timeout_ms|us|s} "
                                 "{lock_timeout_ms|us|s} {now_ms|us|s} {server_now_ms|us|s})");
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
    else
      for (const auto& [name, kind] : placeholder_names())
        if (kind == p.kind) out += "{" + name + "}";
  }
  return out;
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

// What the placeholders of one call stand for.
struct Values {
  const SemaphoreConfig& config;
  const std::string& id;
  Micros now;
  std::optional<Micros> server_now;  // nullopt: expands to "" (server_time = empty)
};

std::string expand(const Word& word, const Values& v) {
  std::string out;
  const auto time = [](std::optional<Micros> t, long long unit) -> std::string {
    if (!t) return {};
    return unit == 1 ? num(t->count()) : unit == 1000 ? num(floor_div(t->count(), 1000)) : decimal_seconds(t->count());
  };
  for (const Piece& p : word) {
    switch (p.kind) {
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
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reply matchers.

struct Alternative {
  enum class Kind { integer, nil, nonzero, positive, text } kind;
  long long value = 0;
  std::string text;
};

struct Matcher {
  std::string spec;  // as written, for messages
  std::vector<Alternative> alternatives;

  bool matches(const Reply& r) const {
    using K = Alternative::Kind;
    const bool integer = r.kind == Reply::Kind::integer;
    for (const Alternative& a : alternatives) {
      switch (a.kind) {
        case K::integer: if (integer && r.integer == a.value) return true; break;
        case K::nil: if (r.is_nil()) return true; break;
        case K::nonzero: if (integer && r.integer != 0) return true; break;
        case K::positive: if (integer && r.integer > 0) return true; break;
        case K::text:
          if ((r.kind == Reply::Kind::string || r.kind == Reply::Kind::status) && r.text == a.text) return true;
          break;
      }
    }
    return false;
  }
  bool integers_only() const {
    for (const Alternative& a : alternatives)
      if (a.kind == Alternative::Kind::nil || a.kind == Alternative::Kind::text) return false;
    return true;
  }
};

std::optional<long long> parse_integer(const std::string& s) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

Matcher parse_matcher(const std::string& value, const IniLines& ini, const std::string& key) {
  using K = Alternative::Kind;
  Matcher m{value, {}};
  for (const Token& t : tokenize(value, ini, key)) {
    if (t.quoted) m.alternatives.push_back({K::text, 0, t.text});
    else if (auto v = parse_integer(t.text)) m.alternatives.push_back({K::integer, *v, {}});
    else if (t.text == "nil") m.alternatives.push_back({K::nil, 0, {}});
    else if (t.text == "nonzero") m.alternatives.push_back({K::nonzero, 0, {}});
    else if (t.text == "positive") m.alternatives.push_back({K::positive, 0, {}});
    else
      throw ini.error(key, "'" + t.text + "' is not a reply: write an integer, nil, nonzero, positive, "
                                          "or a quoted \"text\"");
  }
  if (m.alternatives.empty()) throw ini.error(key, "empty: name at least one reply");
  return m;
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

// ---------------------------------------------------------------------------------------------
// The variant.

enum class ServerTime { time, empty, fail };

struct Script {
  std::string op;    // acquire, release, refresh
  std::string path;  // as resolved from the INI's folder: every message about it names this
  std::string source;
  std::string sha;   // from SCRIPT LOAD; reloaded on NOSCRIPT
  std::vector<Word> keys, args;
  Matcher yes, no;   // granted/ok, refused/lost/missing
  bool uses_server_now = false;
};

struct Spec {
  std::string ini;
  Script acquire, release;
  std::optional<Script> refresh;
  bool token_from_reply = false;
  ServerTime server_time = ServerTime::time;
  std::optional<Word> admission_set;
};

class ScriptSemaphore : public Semaphore {
 public:
  ScriptSemaphore(Spec spec, SemaphoreConfig config) : spec_(std::move(spec)), config_(std::move(config)) {}

  Task<void> prepare(Client& client) override {
    std::vector<Script*> scripts{&spec_.acquire, &spec_.release};
    if (spec_.refresh) scripts.push_back(&*spec_.refresh);
    for (Script* script : scripts) {
      if (script->uses_server_now && spec_.server_time == ServerTime::fail && !client.server_now())
        throw SetupError(spec_.ini + ": " + script->op + " uses {server_now_*} and server_time = fail, "
                         "but this run has no server clock");
      Reply loaded = co_await client.redis().call(cmd("SCRIPT", "LOAD", script->source));
      if (loaded.kind != Reply::Kind::string && loaded.kind != Reply::Kind::status)
        throw SetupError(script->path + ": SCRIPT LOAD failed: " +
                         (loaded.is_error() ? loaded.text : describe(loaded)));
      script->sha = loaded.text;
    }
  }

  Task<std::optional<Grant>> acquire(Client& client) override {
    std::string identifier = client.new_identifier();  // drawn even if unused: same stream as `lua`
    Reply reply = co_await call(client, spec_.acquire, identifier);
    if (spec_.acquire.yes.matches(reply)) {
      long long token = 0;
      if (spec_.token_from_reply) {
        if (reply.kind != Reply::Kind::integer)
          throw ReplyError(spec_.acquire.path + ": acquire.token = reply, but the granted reply was " + describe(reply));
        token = reply.integer;
      }
      co_return Grant{std::move(identifier), token};
    }
    if (spec_.acquire.no.matches(reply)) co_return std::nullopt;
    throw unexpected(spec_.acquire, reply, "granted", "refused");
  }

  Task<bool> release(Client& client, std::string identifier) override {
    Reply reply = co_await call(client, spec_.release, identifier);
    if (spec_.release.yes.matches(reply)) co_return true;
    if (spec_.release.no.matches(reply)) co_return false;
    throw unexpected(spec_.release, reply, "ok", "missing");
  }

  Task<bool> refresh(Client& client, std::string identifier) override {
    if (!spec_.refresh) throw ReplyError(spec_.ini + ": no refresh script (add `refresh = FILE.lua`)");
    Reply reply = co_await call(client, *spec_.refresh, identifier);
    if (spec_.refresh->yes.matches(reply)) co_return true;
    if (spec_.refresh->no.matches(reply)) co_return false;
    throw unexpected(*spec_.refresh, reply, "ok", "lost");
  }

  std::string admission_set() const override {
    if (!spec_.admission_set) return {};
    const std::string none;
    return expand(*spec_.admission_set, Values{config_, none, Micros{0}, std::nullopt});
  }

 private:
  // One EVALSHA (after one TIME only where server_time = time and the run has no server clock).
  // `identifier` is a copy: it must outlive the suspensions.
  Task<Reply> call(Client& client, Script& script, std::string identifier) {
    std::optional<Micros> server_now = client.server_now();
    if (script.uses_server_now && !server_now) {
      if (spec_.server_time == ServerTime::fail)
        throw ReplyError(script.path + ": {server_now_*} with server_time = fail, and this run has no server clock");
      if (spec_.server_time == ServerTime::time) {
        Reply t = co_await client.redis().call(cmd("TIME"));
        const auto& parts = elements_of(t);
        if (parts.size() != 2) throw ReplyError("TIME: unexpected reply " + describe(t));
        server_now = Micros{integer_of(parts[0]) * 1'000'000 + integer_of(parts[1])};
      }
    }
    const Values values{config_, identifier, client.now(), server_now};
    Command command{"EVALSHA", script.sha.empty() ? std::string(40, '0') : script.sha,
                    num(static_cast<long long>(script.keys.size()))};
    for (const Word& w : script.keys) command.push_back(expand(w, values));
    for (const Word& w : script.args) command.push_back(expand(w, values));

    Reply reply = co_await client.redis().call(command);
    if (reply.is_error() && reply.text.rfind("NOSCRIPT", 0) == 0) {
      Reply loaded = co_await client.redis().call(cmd("SCRIPT", "LOAD", script.source));
      if (loaded.is_error()) throw ReplyError(script.path + ": SCRIPT LOAD failed: " + loaded.text);
      script.sha = loaded.text;
      command[1] = script.sha;
      reply = co_await client.redis().call(command);
    }
    // A Lua runtime error: Redis's text names the script line ("user_script:7: ...").
    if (reply.is_error()) throw ReplyError(script.path + ": " + reply.text);
    co_return reply;
  }

  ReplyError unexpected(const Script& script, const Reply& reply, const char* yes, const char* no) const {
    return ReplyError(script.path + ": " + script.op + " replied " + describe(reply) + ", which is neither " +
                      script.op + "." + yes + " (" + script.yes.spec + ") nor " + script.op + "." + no + " (" +
                      script.no.spec + ")");
  }

  Spec spec_;
  SemaphoreConfig config_;
};

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
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

std::unique_ptr<Semaphore> make_script_semaphore(const std::string& ini_path, SemaphoreConfig config) {
  if (!fs::is_regular_file(ini_path)) {
    std::error_code ec;
    const bool exists = fs::exists(ini_path, ec);
    throw SetupError(ini_path + ": cannot read the script variant's INI file: " +
                     (exists ? "not a regular file" : std::strerror(ENOENT)));
  }
  std::ifstream probe(ini_path);
  if (!probe) throw SetupError(ini_path + ": cannot read the script variant's INI file: " + std::strerror(errno));
  const std::string text = read_text(ini_path);
  const IniLines ini = scan_lines(ini_path, text);
  if (ini.first_invalid_line)
    throw SetupError(ini_path + ":" + std::to_string(ini.first_invalid_line) +
                     ": not `key = value`, a `[section]` or a # comment");

  po::options_description description;
  for (const OpKeys& k : kOps) {
    const std::string op = k.op;
    description.add_options()(k.op, po::value<std::string>())((op + ".keys").c_str(), po::value<std::string>())(
        (op + ".args").c_str(), po::value<std::string>())((op + "." + k.yes).c_str(), po::value<std::string>())(
        (op + "." + k.no).c_str(), po::value<std::string>());
  }
  description.add_options()("acquire.token", po::value<std::string>())("server_time", po::value<std::string>())(
      "admission_set", po::value<std::string>());

  po::variables_map vm;
  try {
    std::istringstream in(text);
    po::parsed_options parsed = po::parse_config_file(in, description, /*allow_unregistered=*/false);
    // A key given twice would be a bare po::multiple_occurrences at store(): name its second line.
    for (const auto& [key, lines] : ini.lines)
      if (lines.size() > 1) throw ini.error(key, "given twice (first on line " + std::to_string(lines[0]) + ")", 1);
    po::store(parsed, vm);
  } catch (const po::unknown_option& e) {
    std::string key = e.get_option_name();
    key.erase(0, key.find_first_not_of('-'));
    throw ini.error(key, "unknown key (known: acquire, release, refresh and their .keys .args; acquire.granted "
                         ".refused .token; release.ok .missing; refresh.ok .lost; server_time; admission_set)");
  } catch (const po::invalid_config_file_syntax&) {
    // Not e.what(): Boost's message loops for ever on a line that holds "%invalid_line%".
    throw SetupError(ini_path + ":" + std::to_string(ini.first_invalid_line) + ": not a `key = value` line");
  } catch (const po::error& e) {
    throw SetupError(ini_path + ": " + e.what());
  }
  const auto get = [&](const std::string& key) -> std::optional<std::string> {
    if (!vm.count(key)) return std::nullopt;
    return vm[key].as<std::string>();
  };

  const fs::path folder = fs::path(ini_path).parent_path();
  Spec spec;
  spec.ini = ini_path;
  const auto read_script = [&](const OpKeys& k) -> std::optional<Script> {
    const std::string op = k.op;
    const auto file = get(op);
    if (!file) {
      for (const char* sub : {".keys", ".args"})
        if (get(op + sub)) throw ini.error(op + sub, "given, but there is no `" + op + " = FILE.lua`");
      for (const char* sub : {k.yes, k.no})
        if (get(op + "." + sub)) throw ini.error(op + "." + sub, "given, but there is no `" + op + " = FILE.lua`");
      return std::nullopt;
    }
    if (trim(*file).empty()) throw ini.error(op, "empty: name the script file");
    const fs::path path = (folder / trim(*file)).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw ini.error(op, "cannot read script '" + trim(*file) + "' (looked for " + path.string() + "): " +
                              (fs::exists(path, ec) ? "not a regular file" : std::strerror(ENOENT)));
    std::ifstream in(path);
    if (!in) throw ini.error(op, "cannot read script " + path.string() + ": " + std::strerror(errno));

    Script s{op, path.string(), read_text(path), {}, {}, {}, {}, {}, false};
    s.keys = parse_words(get(op + ".keys").value_or("{key}"), ini, op + ".keys");
    // A script may write whatever KEYS name: each must lie under the run's own prefix, so that a
    // run never touches a key it does not own on the user's Redis.
    for (const Word& w : s.keys)
      if (w.empty() || (w.front().kind != Ph::key && w.front().kind != Ph::key_named))
        throw ini.error(op + ".keys", "every key must start with {key} or {key:NAME} (keys under the run's own "
                                      "prefix); '" + words_text(w) + "' would name a key outside it");
    s.args = parse_words(get(op + ".args").value_or(""), ini, op + ".args");
    s.yes = parse_matcher(get(op + "." + k.yes).value_or(k.yes_default), ini, op + "." + k.yes);
    s.no = parse_matcher(get(op + "." + k.no).value_or(k.no_default), ini, op + "." + k.no);
    for (const auto* words : {&s.keys, &s.args})
      for (const Word& w : *words)
        for (const Piece& p : w) s.uses_server_now = s.uses_server_now || is_server_now(p.kind);
    return s;
  };

  auto acquire = read_script(kOps[0]);
  if (!acquire) throw SetupError(ini_path + ": acquire: missing: name the acquire script (`acquire = FILE.lua`)");
  auto release = read_script(kOps[1]);
  if (!release) throw SetupError(ini_path + ": release: missing: name the release script (`release = FILE.lua`)");
  spec.acquire = std::move(*acquire);
  spec.release = std::move(*release);
  spec.refresh = read_script(kOps[2]);

  if (auto token = get("acquire.token")) {
    if (*token == "reply") spec.token_from_reply = true;
    else if (*token != "none") throw ini.error("acquire.token", "'" + *token + "' is not reply or none");
    // The fencing token is an integer: a granted reply that may be text or nil cannot be one.
    if (spec.token_from_reply && !spec.acquire.yes.integers_only())
      throw ini.error("acquire.token", "reply needs acquire.granted to be integers only (an integer, nonzero, "
                                       "positive), not '" + spec.acquire.yes.spec + "'");
  }
  if (auto server_time = get("server_time")) {
    if (*server_time == "time") spec.server_time = ServerTime::time;
    else if (*server_time == "empty") spec.server_time = ServerTime::empty;
    else if (*server_time == "fail") spec.server_time = ServerTime::fail;
    else throw ini.error("server_time", "'" + *server_time + "' is not time, empty or fail");
  }
  if (auto set = get("admission_set")) {
    auto words = parse_words(*set, ini, "admission_set");
    if (words.size() != 1) throw ini.error("admission_set", "name one key");
    for (const Piece& p : words[0])
      if (p.kind != Ph::text && p.kind != Ph::key && p.kind != Ph::key_named)
        throw ini.error("admission_set", "only {key} and {key:NAME} make sense here");
    spec.admission_set = std::move(words[0]);
  }
  return std::make_unique<ScriptSemaphore>(std::move(spec), std::move(config));
}

VariantInfo script_variant_info() {
  // A user's scripts read time as they choose; until an INI can declare its clock, they are
  // searched under the server-clock promise, and only safety is asserted.
  return {.name = "script:FILE.ini", .source = "yours: Lua scripts named by an INI file (docs/script-variants.md)",
          .clock = ClockBasis::redis_time, .preconditions = lease_promise()};
}

}  // namespace semsim
