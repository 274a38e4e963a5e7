// Finding the primary through Redis Sentinel: the first sentinel that answers names it.
#pragma once

#include <string>
#include <vector>

#include "sim/redis/redis_target.h"

namespace semsim {

// SENTINEL GET-MASTER-ADDR-BY-NAME on each sentinel in turn; throws LinkError naming every
// sentinel tried when none answers with an address. The result keeps `data_node`'s credentials
// and database (the sentinels' own connections use theirs: SEMSIM_SENTINEL_PASSWORD).
RedisTarget primary_from_sentinels(const std::vector<RedisTarget>& sentinels, const std::string& master,
                                   const RedisTarget& data_node = {});

// "host:port,host:port" -> targets; throws std::invalid_argument naming the bad entry.
std::vector<RedisTarget> parse_sentinels(const std::string& list);

}  // namespace semsim
