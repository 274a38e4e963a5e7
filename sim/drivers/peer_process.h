// Who is at the other end of a connection to a driver's proxy: the proxy serves only semsim and
// the processes it started (drivers and their children, which stay its descendants: semsim is
// their subreaper), never another process on the machine (docs/drivers.md). Linux's /proc.
#pragma once

#include <sys/types.h>

#include <optional>

namespace semsim {

// The inode of the socket at the other end of `fd`, a TCP connection accepted from this machine,
// as /proc/net/tcp and tcp6 list it; nullopt if it is not there (the peer closed it already).
std::optional<unsigned long> peer_socket_inode(int fd);

// Whether `ancestor` or one of its descendants (by /proc/PID/stat's parent chains) holds the
// socket `inode` open.
bool held_by_descendant(unsigned long inode, pid_t ancestor);

}  // namespace semsim
