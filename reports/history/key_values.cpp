#include "reports/history/key_values.h"

#include <charconv>
#include <stdexcept>

namespace semsim {

namespace {

bool needs_quotes(std::string_view v) {
  return v.empty() || v.find_first_of(" \t\"=\\") != std::string_view::npos;
}

template <typename T>
std::optional<T> parse_number(std::string_view key, const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  T out{};
  auto r = std::from_chars(v->data(), v->data() + v->size(), out);
  if (r.ec != std::errc() || r.ptr != v->data() + v->size())
    throw std::invalid_argument("key " + std::string(key) + ": \"" + *v + "\" is not a number");
  return out;
}

}  // namespace

KeyValues KeyValues::parse(std::string_view text) {
  KeyValues kv;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t') {
      ++i;
      continue;
    }
    std::size_t eq = text.find('=', i);
    std::size_t space = text.find_first_of(" \t", i);
    if (eq == std::string_view::npos || (space != std::string_view::npos && space < eq))
      throw std::invalid_argument("expected key=value at \"" +
                                  std::string(text.substr(i, space - i)) + "\"");
    std::string key(text.substr(i, eq - i));
    i = eq + 1;
    std::string value;
    if (i < text.size() && text[i] == '"') {
      ++i;
      bool closed = false;
      while (i < text.size()) {
        char c = text[i++];
        if (c == '"') {
          closed = true;
          break;
        }
        if (c == '\\' && i < text.size()) c = text[i++];
        value.push_back(c);
      }
      if (!closed) throw std::invalid_argument("unterminated quote in value of " + key);
    } else {
      std::size_t end = text.find_first_of(" \t", i);
      if (end == std::string_view::npos) end = text.size();
      value.assign(text.substr(i, end - i));
      i = end;
    }
    kv.set(std::move(key), std::move(value));
  }
  return kv;
}

KeyValues& KeyValues::set(std::string key, std::string value) {
  for (auto& [k, v] : items_)
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  items_.emplace_back(std::move(key), std::move(value));
  return *this;
}

KeyValues& KeyValues::set(std::string key, std::int64_t value) {
  return set(std::move(key), std::to_string(value));
}

std::optional<std::string> KeyValues::get(std::string_view key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<std::int64_t> KeyValues::get_int(std::string_view key) const {
  return parse_number<std::int64_t>(key, get(key));
}

std::optional<std::uint64_t> KeyValues::get_uint(std::string_view key) const {
  return parse_number<std::uint64_t>(key, get(key));
}

std::optional<double> KeyValues::get_double(std::string_view key) const {
  return parse_number<double>(key, get(key));
}

std::string KeyValues::str() const {
  std::string out;
  for (const auto& [k, v] : items_) {
    if (!out.empty()) out.push_back(' ');
    out += k;
    out.push_back('=');
    if (!needs_quotes(v)) {
      out += v;
      continue;
    }
    out.push_back('"');
    for (char c : v) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  return out;
}

}  // namespace semsim
