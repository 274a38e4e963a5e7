#include "sim/core/distribution.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace semsim {

namespace {

long long parse_value(const std::string& text, Distribution::Unit unit, const std::string& whole) {
  if (unit == Distribution::Unit::duration) return parse_duration(text).count();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v))
    throw std::invalid_argument("bad number '" + text + "' in distribution '" + whole + "'");
  if (std::abs(v) > Distribution::kMaxNumber)
    throw std::invalid_argument("number '" + text + "' in distribution '" + whole + "' is out of range (at most " +
                                std::to_string(static_cast<long long>(Distribution::kMaxNumber)) + " either way)");
  return std::llround(v);
}

std::string format_value(long long v, Distribution::Unit unit) {
  return unit == Distribution::Unit::duration ? format_duration(Micros(v)) : std::to_string(v);
}

}  // namespace

Distribution::Distribution(Kind k, long long a, long long b, Unit u) : kind_(k), a_(a), b_(b), unit_(u) {
  switch (k) {
    case Kind::fixed: text_ = "fixed:" + format_value(a, u); break;
    case Kind::uniform: text_ = "uniform:" + format_value(a, u) + ".." + format_value(b, u); break;
    case Kind::normal: text_ = "normal:" + format_value(a, u) + "," + format_value(b, u); break;
    case Kind::exponential: text_ = "exp:" + format_value(a, u); break;
  }
}

Distribution Distribution::parse(const std::string& text, Unit unit) {
  const auto colon = text.find(':');
  const std::string kind = colon == std::string::npos ? "fixed" : text.substr(0, colon);
  const std::string body = colon == std::string::npos ? text : text.substr(colon + 1);
  const auto two = [&](const std::string& sep) {
    const auto at = body.find(sep);
    if (at == std::string::npos)
      throw std::invalid_argument("bad distribution '" + text + "': expected " + kind + ":A" + sep + "B");
    return std::pair{parse_value(body.substr(0, at), unit, text),
                     parse_value(body.substr(at + sep.size()), unit, text)};
  };
  if (kind == "fixed") return Distribution(Kind::fixed, parse_value(body, unit, text), 0, unit);
  if (kind == "uniform") {
    auto [lo, hi] = two("..");
    if (hi < lo) throw std::invalid_argument("bad distribution '" + text + "': upper bound below lower");
    return Distribution(Kind::uniform, lo, hi, unit);
  }
  if (kind == "normal") {
    auto [mean, sd] = two(",");
    if (sd < 0) throw std::invalid_argument("bad distribution '" + text + "': negative SD");
    return Distribution(Kind::normal, mean, sd, unit);
  }
  if (kind == "exp") {
    const long long mean = parse_value(body, unit, text);
    if (mean < 0) throw std::invalid_argument("bad distribution '" + text + "': negative mean");
    return Distribution(Kind::exponential, mean, 0, unit);
  }
  throw std::invalid_argument("bad distribution '" + text +
                              "': use fixed:D, uniform:D1..D2, normal:MEAN,SD or exp:MEAN");
}

long long Distribution::lowest() const {
  switch (kind_) {
    case Kind::fixed:
    case Kind::uniform: return a_;
    case Kind::exponential: return 0;
    case Kind::normal: return std::numeric_limits<long long>::min();
  }
  return std::numeric_limits<long long>::min();
}

std::optional<long long> Distribution::highest() const {
  switch (kind_) {
    case Kind::fixed: return a_;
    case Kind::uniform: return b_;
    default: return std::nullopt;
  }
}

long long Distribution::sample(Rng& rng) const {
  switch (kind_) {
    case Kind::fixed: return a_;
    case Kind::uniform: return rng.uniform_int(a_, b_);
    case Kind::normal: return std::llround(rng.normal(static_cast<double>(a_), static_cast<double>(b_)));
    case Kind::exponential: return std::llround(rng.exponential(static_cast<double>(a_)));
  }
  return a_;
}

}  // namespace semsim
