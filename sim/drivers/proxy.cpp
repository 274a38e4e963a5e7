#include "sim/drivers/proxy.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "algorithms/api/command_policy.h"
#include "algorithms/api/lua_policy.h"
#include "algorithms/api/resp_command.h"
#include "sim/drivers/peer_process.h"

namespace semsim {

std::string Endpoint::describe() const {
  return unix_path.empty() ? host + ":" + std::to_string(port) : "unix:" + unix_path;
}

void Upstream::set(Endpoint endpoint) {
  const std::lock_guard<std::mutex> hold(lock_);
  endpoint_ = std::move(endpoint);
}

Endpoint Upstream::get() const {
  const std::lock_guard<std::mutex> hold(lock_);
  return endpoint_;
}

namespace {

void disable_nagle(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly on a unix socket
}

// A word of a driver's command as a message quotes it: at most 80 characters, control ones as '?'.
std::string quoted(const std::string& word) {
  std::string out = word.substr(0, 80);
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f || ch == '"') ch = '?';
  return "'" + out + (word.size() > 80 ? "...'" : "'");
}

}  // namespace

int listen_on_loopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot listen on 127.0.0.1 for a client's proxy: " + why);
  }
  port = ntohs(addr.sin_port);
  return fd;
}

// A blocking connect to Redis (local: quick); -1 when it cannot be reached.
int connect_to(const Endpoint& e) {
  if (!e.unix_path.empty()) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (e.unix_path.size() >= sizeof addr.sun_path) return -1;
    std::memcpy(addr.sun_path, e.unix_path.c_str(), e.unix_path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
    ::close(fd);
    return -1;
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(e.host.c_str(), std::to_string(e.port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd >= 0) disable_nagle(fd);
  return fd;
}

std::string refused_command(const std::vector<std::string>& words, const std::string& run_key) {
  const CommandCheck check = check_command(words);
  if (!check.refused.empty()) return check.refused;
  for (std::size_t i : check.keys)
    if (words[i].find(run_key) == std::string::npos)
      return command_label(words) + " names the key " + quoted(words[i]) + ", which is not this run's (each key must "
             "contain " + run_key + ", SEMSIM_KEY)";
  return {};
}

std::string ScriptScreen::screen(std::vector<std::string>& words, std::string& bytes) {
  if (words.empty()) return {};
  std::string name = words[0];
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string sub = words.size() > 1 ? words[1] : std::string();
  for (char& ch : sub) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const auto read = [&](const std::string& body) {
    if (const std::string why = refused_script(body); !why.empty())
      return command_label(words) + " with a script that semsim does not run on your Redis: " + why;
    const std::string sha = sha1_hex(body);
    const auto at = std::lower_bound(read_.begin(), read_.end(), sha);
    if (at == read_.end() || *at != sha) read_.insert(at, sha);
    return std::string();
  };
  if ((name == "eval" || name == "eval_ro") && words.size() > 1) return read(words[1]);
  if (name == "script" && sub == "load" && words.size() > 2) return read(words[2]);
  if (name == "fcall" || name == "fcall_ro")
    return command_label(words) + " runs a function of the server's, which the run cannot have loaded (FUNCTION is "
                                  "refused) and semsim cannot read";
  if ((name == "evalsha" || name == "evalsha_ro") && words.size() > 1 && !std::binary_search(read_.begin(), read_.end(), sub)) {
    words[1] = "semsim-has-not-read-this-script-noscript";  // 40 characters, not hex: no script's SHA1
    bytes = resp_command(words);
  }
  return {};
}

std::string refusal_message(const std::string& why) {
  return "the driver sent what a run does not send to Redis: " + why +
         "; its proxy passed nothing of it on and closed that connection (docs/drivers.md, what a driver may send)";
}

std::optional<bool> from_the_run(int fd, pid_t owner) {
  const std::optional<unsigned long> inode = peer_socket_inode(fd);
  if (!inode) return std::nullopt;
  return held_by_descendant(*inode, owner);
}

}  // namespace semsim
