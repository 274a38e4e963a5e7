#include "reports/history/text_format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace semsim {

void append_csv_field(std::string& out, std::string_view s) {
  bool needs_quotes = s.find_first_of(",\"") != std::string_view::npos;
  if (!needs_quotes && s.find_first_of("\r\n") == std::string_view::npos) {
    out.append(s);
    return;
  }
  if (needs_quotes) out.push_back('"');
  for (char c : s) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  if (needs_quotes) out.push_back('"');
}

std::string csv_field(std::string_view s) {
  std::string out;
  append_csv_field(out, s);
  return out;
}

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> fields(1);
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ',') {
      fields.emplace_back();
    } else if (line[i] == '"' && fields.back().empty()) {
      for (++i;; ++i) {  // a quoted field: "" is a quote, the closing quote ends it
        if (i >= line.size()) throw std::invalid_argument("a quoted CSV field without its closing quote");
        if (line[i] == '"' && (i + 1 >= line.size() || line[i + 1] != '"')) break;
        if (line[i] == '"') ++i;
        fields.back().push_back(line[i]);
      }
      if (i + 1 < line.size() && line[i + 1] != ',') throw std::invalid_argument("text after a quoted CSV field");
    } else {
      fields.back().push_back(line[i]);
    }
  }
  return fields;
}

std::string shell_word(std::string_view s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%") ==
                        std::string_view::npos)
    return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string fixed(double value, int decimals) {
  if (!std::isfinite(value)) return {};
  if (value == 0) value = 0;  // no "-0.000"
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  std::string s(buf, r.ptr);
  // A tiny negative value rounds to "-0.00"; print it as zero.
  if (s.front() == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

std::string fixed(const std::optional<double>& value, int decimals) {
  return value ? fixed(*value, decimals) : std::string();
}

std::string us_as_ms(std::int64_t us) {
  std::string s;
  if (us < 0) s.push_back('-');
  std::uint64_t a = us < 0 ? 0 - static_cast<std::uint64_t>(us) : static_cast<std::uint64_t>(us);
  append_uint(s, a / 1000);
  s.push_back('.');
  std::uint64_t frac = a % 1000;
  s.push_back(static_cast<char>('0' + frac / 100));
  s.push_back(static_cast<char>('0' + frac / 10 % 10));
  s.push_back(static_cast<char>('0' + frac % 10));
  return s;
}

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string shell_quote(std::string_view s) {
  constexpr std::string_view plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%";
  if (!s.empty() && s.find_first_not_of(plain) == std::string_view::npos) return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace semsim
