// The rule is documented in lua_policy.h.
#include "algorithms/api/lua_policy.h"

#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "algorithms/api/command_policy.h"

namespace semsim {
namespace {

struct Token {
  enum Kind { name, string, number, op } kind;
  std::string text;   // a name, a number, an operator; a string's value
  bool plain = true;  // a string: no escape semsim does not read (its value is then unknown)
  int line = 1;
};

struct Refused {
  std::string why;
};

// Lua 5.1's lexer, as far as the rule needs it: names, numbers, strings (short and long),
// comments skipped, operators. Throws Refused on what Lua would not read either.
std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  int line = 1;
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return k < s.size() ? s[k] : '\0'; };
  // A long bracket's level at i ([==[ -> 2), or -1 if none opens there.
  const auto long_open = [&](std::size_t k) {
    if (at(k) != '[') return -1;
    std::size_t j = k + 1;
    while (at(j) == '=') ++j;
    return at(j) == '[' ? static_cast<int>(j - k - 1) : -1;
  };
  const auto long_body = [&](int level, std::string* value) {  // i at the opening bracket
    i += static_cast<std::size_t>(level) + 2;
    const std::string close = "]" + std::string(static_cast<std::size_t>(level), '=') + "]";
    const std::size_t end = s.find(close, i);
    if (end == std::string_view::npos) throw Refused{"line " + std::to_string(line) + ": an unfinished long string or comment"};
    for (std::size_t k = i; k < end; ++k) line += s[k] == '\n';
    if (value) *value = std::string(s.substr(i, end - i));
    i = end + close.size();
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '-' && at(i + 1) == '-') {
      i += 2;
      if (const int level = long_open(i); level >= 0) long_body(level, nullptr);
      else
        while (i < s.size() && s[i] != '\n') ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Token::name, std::string(s.substr(i, j - i)), true, line});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
      std::size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                              ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      out.push_back({Token::number, std::string(s.substr(i, j - i)), true, line});
      i = j;
    } else if (c == '"' || c == '\'') {
      Token t{Token::string, {}, true, line};
      ++i;
      for (;;) {
        if (i >= s.size() || s[i] == '\n') throw Refused{"line " + std::to_string(t.line) + ": an unfinished string"};
        const char ch = s[i++];
        if (ch == c) break;
        if (ch != '\\') {
          t.text += ch;
          continue;
        }
        const char e = at(i++);
        switch (e) {
          case 'n': t.text += '\n'; break;
          case 't': t.text += '\t'; break;
          case 'r': t.text += '\r'; break;
          case '\\': case '"': case '\'': t.text += e; break;
          case '\n': t.text += '\n'; ++line; break;
          default: t.plain = false;  // \ddd, \a ...: a value semsim does not read
            while (std::isdigit(static_cast<unsigned char>(at(i)))) ++i;
        }
      }
      out.push_back(std::move(t));
    } else if (const int level = long_open(i); level >= 0) {
      Token t{Token::string, {}, true, line};
      long_body(level, &t.text);
      if (!t.text.empty() && t.text[0] == '\n') t.text.erase(0, 1);
      out.push_back(std::move(t));
    } else {
      static const std::array<std::string_view, 7> two{"==", "~=", "<=", ">=", "..", "::", "//"};
      std::string op(1, c);
      if (c == '.' && at(i + 1) == '.' && at(i + 2) == '.') op = "...";
      else
        for (std::string_view t : two)
          if (s.substr(i, 2) == t) op = std::string(t);
      out.push_back({Token::op, op, true, line});
      i += op.size();
    }
  }
  return out;
}

const std::set<std::string, std::less<>> kForbidden{"_G",      "getfenv", "setfenv", "loadstring", "load",  "loadfile",
                                                    "dofile",  "require", "module",  "package",    "debug", "rawget",
                                                    "rawset"};
const std::set<std::string, std::less<>> kHelpers{
    "sha1hex",    "error_reply", "status_reply", "log",          "LOG_DEBUG",     "LOG_VERBOSE", "LOG_NOTICE",
    "LOG_WARNING", "setresp",    "set_repl",     "replicate_commands", "REPL_ALL", "REPL_AOF",    "REPL_SLAVE",
    "REPL_REPLICA", "REPL_NONE", "breakpoint",   "acl_check_cmd", "REDIS_VERSION", "REDIS_VERSION_NUM"};

class Reader {
 public:
  explicit Reader(std::vector<Token> t) : t_(std::move(t)) {}

  void check() {
    find_bound_keys();
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].kind != Token::name || field(i)) continue;
      const std::string& n = t_[i].text;
      if (kForbidden.count(n)) refuse(i, "uses " + n + ", which reaches the environment or compiles code");
      if (n == "KEYS") check_keys_use(i);
      // The builtins the rule trusts (ipairs binds a KEYS word, tonumber/tostring give one word)
      // only called, never redefined (`local ipairs = ...`, `local function tonumber(t)`).
      if ((n == "ipairs" || n == "tonumber" || n == "tostring") && (!is(i + 1, "(") || (i > 0 && is_name(i - 1, "function"))))
        refuse(i, "uses " + n + " otherwise than calling it: the rule trusts it as Lua defines it");
      if (n == "redis" || n == "server") i = check_redis_use(i);
    }
  }

 private:
  [[noreturn]] void refuse(std::size_t i, const std::string& why) const {
    throw Refused{"line " + std::to_string(i < t_.size() ? t_[i].line : t_.empty() ? 1 : t_.back().line) + ": " + why};
  }
  bool is(std::size_t i, std::string_view op) const { return i < t_.size() && t_[i].kind == Token::op && t_[i].text == op; }
  bool is_name(std::size_t i, std::string_view n) const { return i < t_.size() && t_[i].kind == Token::name && t_[i].text == n; }
  // A field name (t.x, t:x), not a variable.
  bool field(std::size_t i) const { return i > 0 && (is(i - 1, ".") || is(i - 1, ":")); }
  // The index just past the bracket that closes the one at `open` ((, [ or {).
  std::size_t close_of(std::size_t open) const {
    int depth = 0;
    for (std::size_t k = open; k < t_.size(); ++k) {
      if (is(k, "(") || is(k, "[") || is(k, "{")) ++depth;
      if ((is(k, ")") || is(k, "]") || is(k, "}")) && --depth == 0) return k + 1;
    }
    refuse(open, "an unclosed bracket");
  }

  // KEYS is only read: KEYS[i] (not assigned), #KEYS, ipairs(KEYS).
  void check_keys_use(std::size_t i) const {
    if (is(i + 1, "[")) {
      if (is(close_of(i + 1), "=")) refuse(i, "assigns to KEYS: the keys are the EVAL's own");
      return;
    }
    if (i > 0 && is(i - 1, "#")) return;
    if (i > 1 && is(i - 1, "(") && is_name(i - 2, "ipairs") && is(i + 1, ")")) return;
    refuse(i, "uses KEYS otherwise than KEYS[i], #KEYS or ipairs(KEYS): the keys are the EVAL's own");
  }

  // Locals bound to a KEYS word: `local NAME = KEYS[...]` (nothing continuing the expression) or
  // `for X, NAME in ipairs(KEYS) do`, used nowhere else but as a whole argument of a call.
  void find_bound_keys() {
    std::map<std::string, bool> bound;  // name -> every occurrence so far fits
    std::set<std::size_t> declared;     // token indexes of the declarations
    for (std::size_t i = 0; i + 3 < t_.size(); ++i) {
      if (is_name(i, "local") && t_[i + 1].kind == Token::name && is(i + 2, "=") && is_name(i + 3, "KEYS") && is(i + 4, "[")) {
        const std::size_t after = close_of(i + 4);
        const bool ends = after >= t_.size() || t_[after].kind == Token::name || is(after, ";");
        if (ends && !is_name(after, "and") && !is_name(after, "or")) {
          declared.insert(i + 1);
          bound.emplace(t_[i + 1].text, true);
        }
      }
      if (is_name(i, "for") && i + 8 < t_.size() && t_[i + 1].kind == Token::name && is(i + 2, ",") &&
          t_[i + 3].kind == Token::name && is_name(i + 4, "in") && is_name(i + 5, "ipairs") && is(i + 6, "(") &&
          is_name(i + 7, "KEYS") && is(i + 8, ")")) {
        declared.insert(i + 3);
        bound.emplace(t_[i + 3].text, true);
      }
    }
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].kind != Token::name || field(i) || declared.count(i)) continue;
      const auto b = bound.find(t_[i].text);
      if (b == bound.end()) continue;
      const bool whole_argument = i > 0 && (is(i - 1, "(") || is(i - 1, ",")) && (is(i + 1, ",") || is(i + 1, ")")) &&
                                  argument_of_a_call(i);
      if (!whole_argument) b->second = false;
    }
    for (const auto& [name, ok] : bound)
      if (ok) bound_keys_.insert(name);
  }
  // Whether token i lies directly in the argument list of redis.call/pcall.
  bool argument_of_a_call(std::size_t i) const {
    int depth = 0;
    for (std::size_t k = i; k-- > 0;) {
      if (is(k, ")") || is(k, "]") || is(k, "}")) ++depth;
      else if (is(k, "(") || is(k, "[") || is(k, "{")) {
        if (depth-- > 0) continue;
        return is(k, "(") && k >= 3 && (is_name(k - 1, "call") || is_name(k - 1, "pcall")) && is(k - 2, ".") &&
               (is_name(k - 3, "redis") || is_name(k - 3, "server"));
      }
    }
    return false;
  }

  // redis.call("NAME", ...) / redis.pcall, or a helper; returns the index to go on from.
  std::size_t check_redis_use(std::size_t i) const {
    if (!is(i + 1, ".") || i + 2 >= t_.size() || t_[i + 2].kind != Token::name)
      refuse(i, "uses " + t_[i].text + " otherwise than " + t_[i].text + ".call(...) or a helper of it");
    const std::string& member = t_[i + 2].text;
    if (member != "call" && member != "pcall") {
      if (!kHelpers.count(member)) refuse(i, "uses " + t_[i].text + "." + member + ", which semsim does not allow");
      return i + 2;
    }
    if (!is(i + 3, "(")) refuse(i, "uses " + t_[i].text + "." + member + " otherwise than calling it");
    const std::size_t end = close_of(i + 3);  // past ')'
    // The arguments, split at the commas of this level.
    std::vector<std::pair<std::size_t, std::size_t>> args;
    std::size_t from = i + 4;
    int depth = 0;
    for (std::size_t k = i + 4; k < end - 1; ++k) {
      if (is(k, "(") || is(k, "[") || is(k, "{")) ++depth;
      else if (is(k, ")") || is(k, "]") || is(k, "}")) --depth;
      else if (depth == 0 && is(k, ",")) {
        args.emplace_back(from, k);
        from = k + 1;
      }
    }
    if (from < end - 1) args.emplace_back(from, end - 1);
    if (args.empty() || args[0].second - args[0].first != 1 || t_[args[0].first].kind != Token::string || !t_[args[0].first].plain)
      refuse(i, t_[i].text + "." + member + " with a command name that is not a string literal: semsim cannot tell what it runs");
    std::vector<std::string> words;
    for (const auto& [a, b] : args) {
      const bool one = b - a == 1;
      if (one && ((t_[a].kind == Token::string && t_[a].plain) || t_[a].kind == Token::number)) words.push_back(t_[a].text);
      else words.push_back("\x01(an expression)");
    }
    const auto& [la, lb] = args.back();
    const bool multi = is(lb - 1, "...") || (args.size() > 1 && is(lb - 1, ")") && !(is(la, "(") && close_of(la) == lb) &&
                                              !is_name(la, "tonumber") && !is_name(la, "tostring"));
    if (multi) refuse(i, "passes " + t_[i].text + "." + member + " a last argument that may be several words (a call or ...)");
    const CommandCheck check = check_command(words);
    if (!check.refused.empty()) refuse(i, "calls " + check.refused);
    static const std::set<std::string, std::less<>> kScripts{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "script"};
    std::string name = words[0];
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (kScripts.count(name)) refuse(i, "calls " + command_label(words) + ", a script from a script, which semsim cannot read");
    for (std::size_t k : check.keys) {
      const auto& [a, b] = args[k];
      const bool keys_word = is_name(a, "KEYS") && is(a + 1, "[") && close_of(a + 1) == b;
      const bool bound = b - a == 1 && t_[a].kind == Token::name && bound_keys_.count(t_[a].text);
      if (!keys_word && !bound)
        refuse(a, "gives " + command_label(words) + " a key that is not KEYS[i] (or a local bound to one): keys must "
                  "come through KEYS, where the proxy checks them");
    }
    return i + 3;  // the arguments are read again as the loop goes on (a call inside one)
  }

  std::vector<Token> t_;
  std::set<std::string, std::less<>> bound_keys_;
};

// SHA-1 (FIPS 180-4), as Redis names its scripts.
std::string sha1(std::string_view text) {
  std::uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  std::string m(text);
  const std::uint64_t bits = static_cast<std::uint64_t>(text.size()) * 8;
  m += static_cast<char>(0x80);
  while (m.size() % 64 != 56) m += '\0';
  for (int k = 7; k >= 0; --k) m += static_cast<char>((bits >> (k * 8)) & 0xff);
  const auto rotl = [](std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); };
  for (std::size_t chunk = 0; chunk < m.size(); chunk += 64) {
    std::uint32_t w[80];
    for (int k = 0; k < 16; ++k)
      w[k] = static_cast<std::uint32_t>(static_cast<unsigned char>(m[chunk + 4 * k])) << 24 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(m[chunk + 4 * k + 1])) << 16 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(m[chunk + 4 * k + 2])) << 8 |
             static_cast<std::uint32_t>(static_cast<unsigned char>(m[chunk + 4 * k + 3]));
    for (int k = 16; k < 80; ++k) w[k] = rotl(w[k - 3] ^ w[k - 8] ^ w[k - 14] ^ w[k - 16], 1);
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int k = 0; k < 80; ++k) {
      std::uint32_t f, q;
      if (k < 20) f = (b & c) | (~b & d), q = 0x5A827999;
      else if (k < 40) f = b ^ c ^ d, q = 0x6ED9EBA1;
      else if (k < 60) f = (b & c) | (b & d) | (c & d), q = 0x8F1BBCDC;
      else f = b ^ c ^ d, q = 0xCA62C1D6;
      const std::uint32_t next = rotl(a, 5) + f + e + q + w[k];
      e = d, d = c, c = rotl(b, 30), b = a, a = next;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  char hex[41];
  for (int k = 0; k < 5; ++k) std::snprintf(hex + 8 * k, 9, "%08x", h[k]);
  return std::string(hex, 40);
}

}  // namespace

std::string refused_script(std::string_view source) {
  try {
    Reader(lex(source)).check();
  } catch (const Refused& r) {
    return r.why;
  }
  return {};
}

std::string sha1_hex(std::string_view text) { return sha1(text); }

}  // namespace semsim
