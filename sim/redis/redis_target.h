// Where the Redis under test is: the --redis URL, with the password from the environment.
#pragma once

#include <optional>
#include <string>

namespace semsim {

struct RedisTarget {
  std::string unix_path;  // set for unix:///path
  std::string host;       // set for redis://host:port
  int port = 6379;
  int db = 0;
  std::string user;                     // ACL user, from the URL
  std::optional<std::string> password;  // from SEMSIM_REDIS_PASSWORD, never the command line

  std::string describe() const;  // for messages and run.ini; never shows the password
  // A redis-cli command line for this server, shell-quoted (-s PATH or -h HOST -p PORT, -n DB,
  // --user USER; the password from SEMSIM_REDIS_PASSWORD through REDISCLI_AUTH), to paste.
  std::string redis_cli() const;
};

// Parses redis://[user@]host[:port][/db] or unix:///path. Throws std::invalid_argument with a
// message saying what is wrong (a password in the URL is refused: use SEMSIM_REDIS_PASSWORD).
// `password` is what the environment holds (the caller reads SEMSIM_REDIS_PASSWORD).
RedisTarget parse_redis_url(const std::string& url, std::optional<std::string> password);

}  // namespace semsim
