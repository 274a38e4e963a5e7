#include "sim/redis/sentinel.h"

#include <stdexcept>

#include "sim/core/run_options.h"
#include "sim/redis/redis_link.h"

namespace semsim {

RedisTarget primary_from_sentinels(const std::vector<RedisTarget>& sentinels, const std::string& master,
                                   const RedisTarget& data_node) {
  std::string tried;
  for (const RedisTarget& sentinel : sentinels) {
    try {
      auto link = RedisLink::connect(sentinel, std::chrono::milliseconds(1000));
      const Reply r = link->execute({{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", master}}, std::chrono::milliseconds(1000)).at(0);
      if (r.kind == Reply::Kind::array && r.elements.size() == 2) {
        RedisTarget t = data_node;
        t.unix_path.clear();
        t.host = r.elements[0].text;
        t.port = static_cast<int>(std::stol(r.elements[1].text));
        return t;
      }
      tried += (tried.empty() ? "" : "; ") + sentinel.describe() + ": " + (r.is_error() ? r.text : "no master named " + master);
    } catch (const LinkError& e) {
      tried += (tried.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  throw LinkError("no sentinel named the primary of '" + master + "' (" + tried + ")");
}

std::vector<RedisTarget> parse_sentinels(const std::string& list) {
  std::vector<RedisTarget> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string entry = list.substr(start, end - start);
    const std::size_t colon = entry.rfind(':');
    if (entry.empty() || colon == std::string::npos || colon == 0)
      throw std::invalid_argument("'" + entry + "' is not host:port");
    RedisTarget t;
    t.host = entry.substr(0, colon);
    try {
      t.port = static_cast<int>(parse_integer(entry.substr(colon + 1), 1, 65535));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("'" + entry + "': port " + e.what());
    }
    out.push_back(t);
    start = end + 1;
  }
  return out;
}

}  // namespace semsim
