// The harness acting on Redis at once, outside simulated time: a Client whose requests run on the
// link as soon as they are made, so that a variant's Task finishes inside start(). Used when a
// server fault has wiped Redis and the variant must set itself up again before anyone else runs.
#pragma once

#include "algorithms/api/client.h"
#include "sim/core/connection.h"

namespace semsim {

class LinkClient final : public Client, private Redis {
 public:
  LinkClient(Connection& link, Micros now, std::optional<Micros> server_now)
      : link_(link), now_(now), server_now_(server_now) {}

  Redis& redis() override { return *this; }
  Micros now() const override { return now_; }
  Task<void> sleep(Micros) override { co_return; }  // no simulated time passes here
  std::string new_identifier() override { return "harness"; }
  std::optional<Micros> server_now() const override { return server_now_; }

 private:
  Task<std::vector<Reply>> transaction(std::vector<Command> commands) override {
    co_return transaction_replies(link_.execute(as_transaction(std::move(commands))));
  }
  Task<std::vector<Reply>> pipeline(std::vector<Command> commands) override { co_return link_.execute(std::move(commands)); }

  Connection& link_;
  Micros now_;
  std::optional<Micros> server_now_;
};

}  // namespace semsim
