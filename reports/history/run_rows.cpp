#include "reports/history/run_rows.h"

#include "reports/history/text_format.h"

namespace semsim {

Event run_start_event(std::uint64_t seq, std::int64_t true_us, const KeyValues& options) {
  Event e;
  e.seq = seq;
  e.true_us = true_us;
  e.client = 0;
  e.op = Op::run;
  e.phase = Phase::info;
  e.client_us = true_us;
  e.detail = options.str();
  return e;
}

Event run_end_event(std::uint64_t seq, std::int64_t true_us, std::int64_t commands,
                    const std::optional<std::string>& failure_reason, std::optional<double> wall_s) {
  KeyValues kv;
  if (failure_reason) kv.set("reason", *failure_reason);
  kv.set("commands", commands);
  if (wall_s) kv.set("wall_s", fixed(*wall_s, 3));
  Event e;
  e.seq = seq;
  e.true_us = true_us;
  e.client = 0;
  e.op = Op::run;
  e.phase = failure_reason ? Phase::fail : Phase::ok;
  e.client_us = true_us;
  e.detail = kv.str();
  return e;
}

}  // namespace semsim
