#include "sim/drivers/peer_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/drivers/driver_process.h"  // read_proc_file

namespace semsim {

namespace {

namespace fs = std::filesystem;

// An address as IPv6 bytes (IPv4 as ::ffff:a.b.c.d, as a dual-stack socket lists it) and a port.
struct End {
  std::array<unsigned char, 16> ip{};
  unsigned port = 0;
  bool operator==(const End&) const = default;
};

End v4_mapped(const unsigned char v4[4]) {
  End e;
  e.ip[10] = e.ip[11] = 0xff;
  std::memcpy(e.ip.data() + 12, v4, 4);
  return e;
}

std::optional<End> end_of(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    End e = v4_mapped(reinterpret_cast<const unsigned char*>(&in.sin_addr.s_addr));
    e.port = ntohs(in.sin_port);
    return e;
  }
  if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    End e;
    std::memcpy(e.ip.data(), &in6.sin6_addr, 16);
    e.port = ntohs(in6.sin6_port);
    return e;
  }
  return std::nullopt;
}

// "0100007F:1F90" (tcp) or 32 hex digits and a port (tcp6): the kernel prints each 32-bit word
// of the address as a number in this machine's byte order, the port in hex.
std::optional<End> parse_end(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || (colon != 8 && colon != 32)) return std::nullopt;
  unsigned char bytes[16];
  for (std::size_t w = 0; w < colon / 8; ++w) {
    const std::uint32_t word = static_cast<std::uint32_t>(std::stoul(text.substr(w * 8, 8), nullptr, 16));
    std::memcpy(bytes + w * 4, &word, 4);
  }
  End e;
  if (colon == 8) e = v4_mapped(bytes);
  else std::memcpy(e.ip.data(), bytes, 16);
  e.port = static_cast<unsigned>(std::stoul(text.substr(colon + 1), nullptr, 16));
  return e;
}

}  // namespace

std::optional<unsigned long> peer_socket_inode(int fd) {
  sockaddr_storage mine{}, theirs{};
  socklen_t mine_len = sizeof mine, theirs_len = sizeof theirs;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &mine_len) != 0 ||
      ::getpeername(fd, reinterpret_cast<sockaddr*>(&theirs), &theirs_len) != 0)
    return std::nullopt;
  const std::optional<End> us = end_of(mine), them = end_of(theirs);
  if (!us || !them) return std::nullopt;
  // The peer's socket is the row whose local end is the peer and whose remote end is us.
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(read_proc_file(table));
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      std::istringstream row(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout;
      unsigned long inode = 0;
      if (!(row >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode)) continue;
      try {
        if (inode != 0 && parse_end(local) == them && parse_end(remote) == us) return inode;
      } catch (const std::exception&) {
        // a row this parser does not read: not the one sought
      }
    }
  }
  return std::nullopt;
}

bool held_by_descendant(unsigned long inode, pid_t ancestor) {
  std::multimap<pid_t, pid_t> children;  // parent -> child
  std::error_code ec;
  // Processes come and go while this reads: each step may fail, and the walk goes on.
  for (fs::directory_iterator e("/proc", ec), end; !ec && e != end; e.increment(ec)) {
    const std::string name = e->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string text = read_proc_file((e->path() / "stat").string());
    const std::size_t close = text.rfind(')');  // the name in parentheses may hold anything
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    if (rest >> state >> parent) children.emplace(parent, static_cast<pid_t>(std::stol(name)));
  }
  const std::string wanted = "socket:[" + std::to_string(inode) + "]";
  std::vector<pid_t> todo{ancestor};
  while (!todo.empty()) {
    const pid_t pid = todo.back();
    todo.pop_back();
    std::error_code fd_ec;
    for (fs::directory_iterator fd("/proc/" + std::to_string(pid) + "/fd", fd_ec), end; !fd_ec && fd != end;
         fd.increment(fd_ec)) {
      std::error_code link_ec;
      if (fs::read_symlink(fd->path(), link_ec).string() == wanted) return true;
    }
    const auto [from, to] = children.equal_range(pid);
    for (auto it = from; it != to; ++it) todo.push_back(it->second);
  }
  return false;
}

}  // namespace semsim
