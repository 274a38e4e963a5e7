// Starvation: the longest wait. A client starts waiting at the invoke of an acquire that is
// rejected (fail) while it was not already waiting; it stops at its next acquire ok (the wait is
// ok - that invoke), at its crash, when it stops wanting (a `done` row: its script has no further
// acquire), or at the end of the history (the wait is then still open).
// A waiting client is also what liveness looks for.
#pragma once

#include <cstdint>
#include <vector>

#include "reports/checks/summary.h"

namespace semsim {

class WaitTracker {
 public:
  void rejected(int client, std::int64_t invoke_us);
  void granted(int client, std::int64_t ok_us);
  void crashed(int client, std::int64_t t_us);
  void stopped_wanting(int client, std::int64_t t_us);
  bool is_waiting(int client) const {
    return static_cast<std::size_t>(client) < clients_.size() && clients_[client].waiting;
  }
  int waiting() const { return waiting_; }
  void finish(std::int64_t end_us, Summary& s) const;

 private:
  struct State {
    bool waiting = false;
    std::int64_t since_us = 0;
  };
  State& at(int client);
  void stop(int client, std::int64_t t_us, bool open);

  std::vector<State> clients_;
  int waiting_ = 0;
  std::int64_t longest_us_ = 0;
  int longest_client_ = -1;
  bool longest_open_ = false;
};

}  // namespace semsim
