// How far the bytes on a loopback TCP connection between semsim and a driver have got, from both
// ends' TCP counters (the driver's from the kernel's socket diagnostics, NETLINK_SOCK_DIAG). Warp
// needs it: loopback is not synchronous (the kernel may hand a segment to a softirq thread; Nagle
// may hold a driver's small write), so a driver can look asleep with bytes still on their way to or
// from it. Acknowledgements tell nothing here: the other side may delay them by 40 ms.
#pragma once

#include <cstdint>
#include <optional>

namespace semsim {

class TcpPeer {
 public:
  TcpPeer();
  ~TcpPeer();
  TcpPeer(const TcpPeer&) = delete;
  TcpPeer& operator=(const TcpPeer&) = delete;

  struct Counts {
    std::uint64_t written = 0;   // bytes the application wrote (sent, and still queued to send)
    std::uint64_t received = 0;  // bytes that reached its socket
  };
  // The counters of the socket at the other end of `fd` (our end of a loopback connection);
  // nullopt when the kernel does not say (the peer closed, no diagnostics).
  std::optional<Counts> peer(int fd);
  // The same of our own end.
  static std::optional<Counts> own(int fd);

 private:
  int netlink_ = -1;
};

}  // namespace semsim
