#include "sim/drivers/tcp_peer.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace semsim {

namespace {

TcpPeer::Counts counts_of(const tcp_info& info) {
  // On loopback nothing is retransmitted; what is not sent yet (Nagle, a full window) is written.
  return {info.tcpi_bytes_sent - info.tcpi_bytes_retrans + info.tcpi_notsent_bytes, info.tcpi_bytes_received};
}

}  // namespace

TcpPeer::TcpPeer() : netlink_(::socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) {}

TcpPeer::~TcpPeer() {
  if (netlink_ >= 0) ::close(netlink_);
}

std::optional<TcpPeer::Counts> TcpPeer::own(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
  return counts_of(info);
}

std::optional<TcpPeer::Counts> TcpPeer::peer(int fd) {
  sockaddr_in ours{}, theirs{};
  socklen_t len = sizeof ours;
  if (netlink_ < 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&ours), &len) != 0 || ours.sin_family != AF_INET)
    return std::nullopt;
  len = sizeof theirs;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&theirs), &len) != 0) return std::nullopt;
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } ask{};
  ask.header.nlmsg_len = sizeof ask;
  ask.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  ask.header.nlmsg_flags = NLM_F_REQUEST;
  ask.request.sdiag_family = AF_INET;
  ask.request.sdiag_protocol = IPPROTO_TCP;
  ask.request.idiag_ext = 1 << (INET_DIAG_INFO - 1);
  ask.request.idiag_states = ~0u;
  // The peer's socket: its source is our destination.
  ask.request.id.idiag_sport = theirs.sin_port;
  ask.request.id.idiag_dport = ours.sin_port;
  std::memcpy(&ask.request.id.idiag_src[0], &theirs.sin_addr, 4);
  std::memcpy(&ask.request.id.idiag_dst[0], &ours.sin_addr, 4);
  ask.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  ask.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (::sendto(netlink_, &ask, sizeof ask, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) != sizeof ask)
    return std::nullopt;
  alignas(nlmsghdr) char buffer[8192];
  ssize_t n = ::recv(netlink_, buffer, sizeof buffer, 0);
  if (n <= 0) return std::nullopt;
  for (auto* h = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(h, static_cast<unsigned>(n)); h = NLMSG_NEXT(h, n)) {
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY) return std::nullopt;  // an error: not found
    auto* message = static_cast<inet_diag_msg*>(NLMSG_DATA(h));
    int left = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof *message));
    for (auto* a = reinterpret_cast<rtattr*>(message + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
      if (a->rta_type != INET_DIAG_INFO) continue;
      tcp_info info{};
      std::memcpy(&info, RTA_DATA(a), std::min<std::size_t>(sizeof info, RTA_PAYLOAD(a)));
      return counts_of(info);
    }
  }
  return std::nullopt;
}

}  // namespace semsim
