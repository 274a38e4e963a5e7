#include "reports/checks/master_votes.h"

#include <sstream>
#include <stdexcept>

#include "reports/history/key_values.h"

namespace semsim {

namespace {
// "1,2,3" (or "none") -> {1, 2, 3}.
std::set<int> masters_of(const std::optional<std::string>& list) {
  std::set<int> out;
  if (!list || *list == "none") return out;
  std::istringstream in(*list);
  for (std::string item; std::getline(in, item, ',');) {
    try {
      out.insert(std::stoi(item));
    } catch (const std::exception&) {
      throw std::invalid_argument("'" + *list + "' is not a list of masters");
    }
  }
  return out;
}
}  // namespace

void MasterVotes::granted(int client, const std::string& identifier, std::int64_t t_us, const std::string& detail) {
  const KeyValues kv = KeyValues::parse(detail);
  Hold hold{t_us, masters_of(kv.get("granted")), false};
  for (int m : masters_of(kv.get("reacquired"))) hold.masters.insert(m);
  holds_[{client, identifier}] = std::move(hold);
}

int MasterVotes::lose(int master, std::int64_t since_us, std::int64_t back_us, std::optional<std::int64_t> timeout_us,
                      int quorum) {
  int lost = 0;
  for (auto& [permit, hold] : holds_) {
    if (hold.lost || hold.since_us < since_us || !hold.masters.count(master)) continue;
    if (timeout_us && hold.since_us <= back_us - *timeout_us) continue;  // expired by then anyway
    hold.masters.erase(master);
    if (static_cast<int>(hold.masters.size()) < quorum) {
      hold.lost = true;
      ++lost;
    }
  }
  return lost;
}

}  // namespace semsim
