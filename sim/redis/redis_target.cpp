#include "sim/redis/redis_target.h"

#include <sys/un.h>

#include <charconv>
#include <stdexcept>
#include <string_view>

#include "reports/history/text_format.h"

namespace semsim {
namespace {

// A whole-string decimal in [lo, hi]; `what` names the field for the message.
int parse_number(std::string_view text, int lo, int hi, const char* what, const std::string& url) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < lo ||
      value > hi)
    throw std::invalid_argument("bad " + std::string(what) + " '" + std::string(text) +
                                "' in Redis URL '" + url + "' (expected " + std::to_string(lo) +
                                ".." + std::to_string(hi) + ")");
  return value;
}

void parse_unix(std::string_view rest, const std::string& url, RedisTarget& target) {
  if (rest.empty() || rest.front() != '/')
    throw std::invalid_argument("bad Redis URL '" + url +
                                "': a unix socket needs an absolute path, as in unix:///run/redis.sock");
  // The kernel's sun_path holds 107 bytes and a terminating zero; hiredis would cut a longer path
  // short and connect to whatever listens at the prefix.
  constexpr std::size_t limit = sizeof(sockaddr_un::sun_path) - 1;
  if (rest.size() > limit)
    throw std::invalid_argument("bad Redis URL '" + url + "': its unix socket path is " + std::to_string(rest.size()) +
                                " bytes, and the kernel's limit is " + std::to_string(limit) +
                                " (use a shorter path, e.g. a symbolic link to the socket's folder)");
  target.unix_path = std::string(rest);
}

void parse_tcp(std::string_view rest, const std::string& url, RedisTarget& target) {
  // A password on the command line ends up in shell history and `ps`: refuse it outright, before
  // anything else, so that no later error message repeats it: user:pass@ (the password may itself
  // hold '/' or '@', so look at everything up to the last '@').
  if (auto at = rest.rfind('@'); at != std::string_view::npos && rest.substr(0, at).find(':') != std::string_view::npos)
    throw std::invalid_argument("the Redis URL contains a password; put it in the environment variable "
                                "SEMSIM_REDIS_PASSWORD instead");
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    auto db = rest.substr(slash + 1);
    if (!db.empty()) target.db = parse_number(db, 0, 1'000'000, "database number", url);
    rest = rest.substr(0, slash);
  }
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    auto userinfo = rest.substr(0, at);  // no ':' in it: a password was refused above
    if (userinfo.empty())
      throw std::invalid_argument("bad Redis URL '" + url + "': empty user name before '@'");
    target.user = std::string(userinfo);
    rest = rest.substr(at + 1);
  }
  std::string_view port;
  if (!rest.empty() && rest.front() == '[') {  // IPv6 literal: [::1]:6379
    auto close = rest.find(']');
    if (close == std::string_view::npos)
      throw std::invalid_argument("bad Redis URL '" + url + "': missing ']' after IPv6 address");
    target.host = std::string(rest.substr(1, close - 1));
    auto after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':')
        throw std::invalid_argument("bad Redis URL '" + url + "': expected ':port' after ']'");
      port = after.substr(1);
      if (port.empty()) throw std::invalid_argument("bad Redis URL '" + url + "': empty port");
    }
  } else if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    target.host = std::string(rest.substr(0, colon));
    port = rest.substr(colon + 1);
    if (port.empty()) throw std::invalid_argument("bad Redis URL '" + url + "': empty port");
  } else {
    target.host = std::string(rest);
  }
  if (target.host.empty())
    throw std::invalid_argument("bad Redis URL '" + url + "': no host");
  if (!port.empty()) target.port = parse_number(port, 1, 65535, "port", url);
}

}  // namespace

std::string RedisTarget::describe() const {
  if (!unix_path.empty()) return "unix://" + unix_path + (db != 0 ? " db " + std::to_string(db) : "");
  std::string out = "redis://";
  if (!user.empty()) out += user + "@";
  out += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  out += ":" + std::to_string(port);
  if (db != 0) out += "/" + std::to_string(db);
  return out;
}

std::string RedisTarget::redis_cli() const {
  std::string out = password ? "REDISCLI_AUTH=\"$SEMSIM_REDIS_PASSWORD\" redis-cli" : "redis-cli";
  if (!unix_path.empty()) out += " -s " + shell_quote(unix_path);
  else out += " -h " + shell_quote(host) + " -p " + std::to_string(port);
  if (db != 0) out += " -n " + std::to_string(db);
  if (!user.empty()) out += " --user " + shell_quote(user);
  return out;
}

RedisTarget parse_redis_url(const std::string& url, std::optional<std::string> password) {
  RedisTarget target;
  std::string_view view = url;
  constexpr std::string_view unix_scheme = "unix://";
  constexpr std::string_view redis_scheme = "redis://";
  if (view.starts_with(unix_scheme)) {
    parse_unix(view.substr(unix_scheme.size()), url, target);
  } else if (view.starts_with(redis_scheme)) {
    parse_tcp(view.substr(redis_scheme.size()), url, target);
  } else {
    throw std::invalid_argument("bad Redis URL '" + url +
                                "': expected redis://[user@]host[:port][/db] or unix:///path");
  }
  // An empty SEMSIM_REDIS_PASSWORD means "no password", not AUTH with "".
  if (password && !password->empty()) target.password = std::move(password);
  return target;
}

}  // namespace semsim
