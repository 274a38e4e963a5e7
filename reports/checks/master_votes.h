// With several masters (Redlock) a permit stands on the masters that voted for it: the outcome
// row of its acquire (or of its last refresh) says which (`granted=1,2,3`). A permit is a client's
// identifier: a client may hold several. A master that comes
// back from a fault without its data takes its vote away; a permit is lost when its votes fall
// below the quorum. Definitions: reports/DEFINITIONS.md, "Several masters".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace semsim {

class MasterVotes {
 public:
  // An acquire ok (or a refresh ok) at t_us whose detail names the masters that granted it
  // (`granted=1,2,3`, `reacquired=4`); masters 1-based. Throws std::invalid_argument on a detail
  // that is not key=value pairs.
  void granted(int client, const std::string& identifier, std::int64_t t_us, const std::string& detail);
  // The permit ended: release invoke or refresh fail naming it.
  void ended(int client, const std::string& identifier) { holds_.erase({client, identifier}); }
  // Every permit of the client ended: its crash.
  void crashed(int client) {
    holds_.erase(holds_.lower_bound({client, std::string()}), holds_.lower_bound({client + 1, std::string()}));
  }
  // Master `master` (1-based) came back at `back_us` without the writes made since `since_us`:
  // the votes it gave to permits granted at or after then (and less than the timeout old at
  // `back_us`: exactly that old, they have run out) are gone. The permits that fall below
  // `quorum` by it, counted once each.
  int lose(int master, std::int64_t since_us, std::int64_t back_us, std::optional<std::int64_t> timeout_us, int quorum);

 private:
  struct Hold {
    std::int64_t since_us = 0;  // when its votes were last written
    std::set<int> masters;
    bool lost = false;
  };
  std::map<std::pair<int, std::string>, Hold> holds_;  // by client and identifier
};

}  // namespace semsim
