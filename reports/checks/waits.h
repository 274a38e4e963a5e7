// Starvation: the longest wait. A client starts waiting at the invoke of an acquire that is
// rejected (fail) while it was not already waiting (the invoke its fail pairs with: the client's
// earliest pending one, the caller's to say); it stops at its next acquire ok, at its crash, when
// it stops wanting (a `done` row: its script has no further acquire), or at the end of the history
// (the wait is then still open). Between equal waits the lower client id is named, then that
// client's earlier wait; a longest wait of 0 names no client.
// A waiting client is also what liveness looks for.
#pragma once

#include <cstdint>
#include <vector>

#include "reports/checks/client_parts.h"
#include "reports/checks/summary.h"

namespace semsim {

class WaitTracker {
 public:
  struct Client {
    bool waiting = false;
    std::int64_t since_us = 0;
  };

  void rejected(int client, std::int64_t invoke_us) { rejected(at(client), invoke_us); }
  // With the client's part at hand (the checker's row), inline: most rows of a history are
  // rejections of a client already waiting.
  void rejected(Client& me, std::int64_t invoke_us) {
    if (me.waiting) return;
    me.waiting = true;
    me.since_us = invoke_us;
    ++waiting_;
  }
  void granted(int client, std::int64_t ok_us);
  void crashed(int client, std::int64_t t_us);
  void stopped_wanting(int client, std::int64_t t_us);
  int waiting() const { return waiting_; }
  void finish(std::int64_t end_us, Summary& s) const;

  // Parts kept in the caller's rows (client_parts.h) rather than in a vector of this tracker.
  void view_clients(Client* first, std::size_t stride, std::size_t n) { clients_.view(first, stride, n); }

 private:
  struct Longest {
    std::int64_t us = 0;
    int client = -1;
    bool open = false;
    void consider(std::int64_t d, int c, bool is_open);
  };
  Client& at(int client) {
    clients_.grow_to(static_cast<std::size_t>(client) + 1);
    return clients_[static_cast<std::size_t>(client)];
  }
  void stop(int client, std::int64_t t_us, bool open);

  ClientParts<Client> clients_;
  int waiting_ = 0;
  Longest longest_;
};

}  // namespace semsim
