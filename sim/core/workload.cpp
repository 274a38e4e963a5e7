#include "sim/core/workload.h"

#include <algorithm>
#include <map>
#include <set>

#include "algorithms/api/all_settled.h"

#include "marks/coverage_marks.h"

namespace semsim {

Workload::Workload(const RunOptions& options, Semaphore& semaphore, Recorder& recorder, const Scheduler& scheduler,
                   int clients)
    : options_(options), semaphore_(semaphore), recorder_(recorder), scheduler_(scheduler), holding_(clients + 1),
      scripted_acquires_left_(clients + 1, 0) {}

void Workload::fault(SimClient& client, Op op, std::string detail) {
  if (op == Op::crash) {
    holding_[client.id()].clear();
    std::erase_if(in_flight_, [&](const auto& f) { return f.second.client == &client; });  // silent for ever
  }
  recorder_.record(client.id(), client.now(), op, Phase::ok, {}, std::move(detail));
}

bool Workload::holds(const SimClient& client, const std::string& identifier) const {
  const std::vector<Grant>& held = holding_[client.id()];
  return std::any_of(held.begin(), held.end(), [&](const Grant& g) { return g.identifier == identifier; });
}

void Workload::forget(const SimClient& client, const std::string& identifier) {
  std::erase_if(holding_[client.id()], [&](const Grant& g) { return g.identifier == identifier; });
}

std::uint64_t Workload::invoke(SimClient& client, Op op, const std::string& identifier) {
  client.take_notes();  // what an earlier operation left unsaid
  recorder_.record(client.id(), client.now(), op, Phase::invoke, identifier);
  if (spare_.empty()) {
    in_flight_.emplace_hint(in_flight_.end(), next_token_, InFlight{&client, op, identifier});
  } else {
    auto node = std::move(spare_.back());
    spare_.pop_back();
    node.key() = next_token_;
    node.mapped().client = &client;
    node.mapped().op = op;
    node.mapped().identifier = identifier;
    in_flight_.insert(in_flight_.end(), std::move(node));
  }
  return next_token_++;
}

void Workload::outcome(std::uint64_t token, SimClient& client, Op op, Phase phase, std::string identifier,
                       std::string detail) {
  if (auto node = in_flight_.extract(token)) spare_.push_back(std::move(node));
  // What a multi-master variant noted (votes, elapsed, validity) follows the outcome's own detail.
  if (std::string notes = client.take_notes(); !notes.empty()) detail += (detail.empty() ? "" : " ") + notes;
  recorder_.record(client.id(), client.now(), op, phase, std::move(identifier), std::move(detail));
}

void Workload::connection_lost(const std::string& why) {
  if (!in_flight_.empty()) mark(Mark::in_flight_at_connection_loss);
  for (auto& [token, f] : in_flight_)
    recorder_.record(f.client->id(), f.client->now(), f.op, Phase::info, f.identifier, "connection lost: " + why);
  in_flight_.clear();
}

Task<std::optional<Grant>> Workload::acquire(SimClient& client, AcquireTry attempt) {
  const std::uint64_t token = invoke(client, Op::acquire, {});
  std::optional<Grant> grant;
  std::string error;
  try {
    grant = co_await semaphore_.acquire_try(client, attempt);
  } catch (const ReplyError& e) {
    error = std::string("error: ") + e.what();
  } catch (const ConnectionLost& e) {
    error = std::string("connection lost: ") + e.what();
  } catch (const NoAnswer& e) {
    error = std::string("no answer: ") + e.what();
  }
  if (!error.empty()) {
    // An error reply mid-protocol (a Lua error, say) or a dropped connection: what it left in
    // Redis is unknown.
    outcome(token, client, Op::acquire, Phase::info, {}, error);
    co_return std::nullopt;
  }
  if (!grant) {
    outcome(token, client, Op::acquire, Phase::fail);
    co_return std::nullopt;
  }
  holding_[client.id()].push_back(*grant);
  outcome(token, client, Op::acquire, Phase::ok, grant->identifier,
          grant->fencing_token ? "token=" + std::to_string(grant->fencing_token) : std::string());
  probe_lease(client, grant->identifier, "grant");
  co_return grant;
}

Task<bool> Workload::release(SimClient& client, std::string identifier) {
  forget(client, identifier);
  const std::uint64_t token = invoke(client, Op::release, identifier);
  probe_lease(client, identifier, "release");  // before the release can reach Redis
  bool released = false;
  std::string error;
  try {
    released = co_await semaphore_.release(client, identifier);
  } catch (const ReplyError& e) {
    error = std::string("error: ") + e.what();
  } catch (const ConnectionLost& e) {
    error = std::string("connection lost: ") + e.what();
  } catch (const NoAnswer& e) {
    error = std::string("no answer: ") + e.what();
  }
  if (!error.empty())
    outcome(token, client, Op::release, Phase::info, identifier, error);
  else
    outcome(token, client, Op::release, released ? Phase::ok : Phase::fail, identifier,
            released ? "" : "permit already gone");
  co_return released;
}

Task<bool> Workload::refresh(SimClient& client, std::string identifier) {
  const std::uint64_t token = invoke(client, Op::refresh, identifier);
  bool kept = false;
  std::string error;
  try {
    kept = co_await semaphore_.refresh(client, identifier);
  } catch (const ReplyError& e) {
    error = std::string("error: ") + e.what();
  } catch (const ConnectionLost& e) {
    error = std::string("connection lost: ") + e.what();
  } catch (const NoAnswer& e) {
    error = std::string("no answer: ") + e.what();
  }
  if (!error.empty()) {
    outcome(token, client, Op::refresh, Phase::info, identifier, error);
    co_return true;  // unknown: the client goes on believing
  }
  if (!kept) mark(Mark::refresh_lost_permit);
  if (!kept) forget(client, identifier);
  outcome(token, client, Op::refresh, kept ? Phase::ok : Phase::fail, identifier, kept ? "" : "permit lost");
  if (kept && holds(client, identifier)) probe_lease(client, identifier, "refresh");  // not once released
  co_return kept;
}

Task<void> Workload::hold_then_release(SimClient& client, Grant grant, Micros hold) {
  const TrueTime until = scheduler_.now() + hold;
  if (options_.refresh_every.count() > 0) {
    while (scheduler_.now() < until) {
      co_await client.sleep(std::min(options_.refresh_every, until - scheduler_.now()));
      if (!holds(client, grant.identifier)) co_return;  // released or lost meanwhile (scripted)
      if (scheduler_.now() >= until) break;
      if (!co_await refresh(client, grant.identifier)) co_return;
    }
  } else {
    co_await client.sleep(hold);
  }
  if (holds(client, grant.identifier)) co_await release(client, grant.identifier);
}

Task<void> Workload::sample(SimClient& harness, Micros every) {
  const std::string admission_set = semaphore_.admission_set();
  for (;;) {
    co_await harness.sleep(every);
    if (scheduler_.now() >= end_of_run(options_)) co_return;
    std::set<std::string> admitted;
    if (harness.masters() == 1 && !admission_set.empty()) {
      Command zrange{"ZRANGE", admission_set, "0", std::to_string(options_.limit - 1)};  // g++ 12: no braces in co_await
      Reply r;
      bool lost = false;
      try {
        r = co_await harness.redis().call(std::move(zrange));
      } catch (const ConnectionLost&) {
        lost = true;  // a server fault: the next sample reads again
      }
      if (lost) continue;
      for (const Reply& m : r.elements) admitted.insert(m.text);
    } else {
      admitted = co_await admitted_by_quorum(harness);
    }
    int believers = 0, stale = 0;  // permits believed held, and those Redis does not admit
    for (const std::vector<Grant>& held : holding_)
      for (const Grant& g : held) {
        ++believers;
        if (!admitted.count(g.identifier)) ++stale;
      }
    recorder_.record(0, harness.now(), Op::sample, Phase::info, {},
                     "admitted=" + std::to_string(admitted.size()) + " believers=" + std::to_string(believers) +
                         " stale=" + std::to_string(stale));
  }
}

void Workload::probe_lease(SimClient& holder, const std::string& identifier, const char* at) {
  if (harness_) harness_->spawn(lease_row(holder, semaphore_.lease_probe_command(identifier), identifier, at));
}

Task<void> Workload::lease_row(SimClient& holder, Command probe, std::string identifier, std::string at) {
  const std::string asked = probe.empty() ? std::string() : probe[0] + " " + probe[1];
  Reply r;
  try {
    r = co_await harness_->redis().call(std::move(probe));
  } catch (const ConnectionLost&) {
    co_return;  // a server fault: nothing seen
  } catch (const NoAnswer&) {
    co_return;
  }
  // PTTL answers an integer (-2: no key, -1: no expiry), ZRANK an integer or nil; anything else
  // means the INI names the wrong key (a ZRANK on a string): the run cannot judge its leases.
  if (r.kind != Reply::Kind::integer && !(r.is_nil() && semaphore_.lease_probe() == Semaphore::LeaseProbe::rank))
    throw SetupError("lease_honesty: " + asked + " answered " + (r.is_error() ? r.text : "a " + std::string(
                     r.kind == Reply::Kind::array ? "list" : "string")) + ": not the permit's key or admission set");
  const std::string seen = semaphore_.lease_probe() == Semaphore::LeaseProbe::ttl
                               ? "ttl_ms=" + std::to_string(r.integer)
                               : std::string("admitted=") + (!r.is_nil() && r.integer < options_.limit ? "1" : "0");
  recorder_.record(holder.id(), holder.now(), Op::lease, Phase::info, identifier, "at=" + at + " " + seen);
}

// Every master at once: the identifiers it admits (the first `limit` of the admission set, or the
// values of the holder keys); admitted are those a quorum of masters admits. A master that does
// not answer (down, paused past the master timeout) admits nothing.
Task<std::set<std::string>> Workload::admitted_by_quorum(SimClient& harness) {
  const std::string admission_set = semaphore_.admission_set();
  const std::vector<std::string> keys = semaphore_.holder_keys();
  std::vector<Task<Reply>> reads;
  for (int m = 0; m < harness.masters(); ++m) {
    Command read = admission_set.empty() ? Command{"MGET"}
                                         : Command{"ZRANGE", admission_set, "0", std::to_string(options_.limit - 1)};
    if (admission_set.empty()) read.insert(read.end(), keys.begin(), keys.end());
    reads.push_back(harness.redis(m).call(std::move(read)));
  }
  std::vector<Settled<Reply>> answers = co_await all_settled(std::move(reads));
  std::map<std::string, int> votes;
  for (const Settled<Reply>& answer : answers) {
    if (!answer.ok()) continue;
    std::set<std::string> here;
    for (const Reply& id : answer.value->elements)
      if (!id.is_nil()) here.insert(id.text);
    for (const std::string& id : here) ++votes[id];
  }
  const int quorum = harness.masters() > 1 ? semaphore_.quorum(harness.masters()) : 1;
  std::set<std::string> admitted;
  for (const auto& [id, n] : votes)
    if (n >= quorum) admitted.insert(id);
  co_return admitted;
}

Task<void> Workload::fill(SimClient& harness, std::string prefix) {
  const std::string value(1024, 'x');
  for (std::uint64_t n = 0;; ++n) {
    co_await harness.sleep(Micros(1000));
    if (scheduler_.now() >= end_of_run(options_)) co_return;
    Command set{"SET", prefix + "filler:run:" + std::to_string(n), value, "PX", "3600000"};
    try {
      co_await harness.redis().call(std::move(set));
    } catch (const ConnectionLost&) {
    } catch (const NoAnswer&) {
    }
  }
}

namespace {
// At least 1 µs: with zero delays, a refused client that thinks for 0 would retry at the same
// instant for ever and true time would never move.
Micros at_least_1us(Micros d) { return std::max(d, Micros(1)); }
}  // namespace

Task<void> Workload::loop(SimClient& client) {
  const TrueTime end = end_of_run(options_);
  for (;;) {
    co_await client.sleep(at_least_1us(options_.think.sample_duration(client.rng())));
    if (scheduler_.now() >= end) co_return;
    std::optional<Grant> grant = co_await acquire_with_retries(client);
    if (grant) co_await hold_then_release(client, *grant, options_.hold.sample_duration(client.rng()));
  }
}

// --retries, for the workload's acquires and a script's alike: a refused acquire is tried again
// after --retry-delay, up to --retries times, until the run ends.
Task<std::optional<Grant>> Workload::acquire_with_retries(SimClient& client) {
  const TrueTime end = end_of_run(options_);
  // The tries of one acquire, for a variant that keeps state across them (AcquireTry). A try is
  // the last when --retries allows no further one; a chain the run's end cuts short stays open.
  const std::uint64_t chain = ++acquire_chains_;
  const auto attempt = [&](int retry) { return AcquireTry{chain, retry, retry >= options_.retries}; };
  std::optional<Grant> grant = co_await acquire(client, attempt(0));
  for (int retry = 0; !grant && retry < options_.retries && scheduler_.now() < end; ++retry) {
    co_await client.sleep(at_least_1us(options_.retry_delay.sample_duration(client.rng())));
    grant = co_await acquire(client, attempt(retry + 1));
  }
  co_return grant;
}

Task<void> Workload::scripted(SimClient& client, ScriptedAction action) {
  using K = ScriptedAction::Kind;
  switch (action.kind) {
    case K::acquire: {
      const Micros hold = action.arg ? *action.arg : options_.hold.sample_duration(client.rng());
      std::optional<Grant> grant = co_await acquire_with_retries(client);
      if (--scripted_acquires_left_[client.id()] == 0 && !grant)
        recorder_.record(client.id(), client.now(), Op::done, Phase::ok, {}, "no further acquire in the script");
      if (grant) co_await hold_then_release(client, *grant, hold);
      break;
    }
    // On the permit the client was granted first, of those it still holds, as a driver run's
    // client does (a copy: the list changes).
    case K::release:
      if (!holding_[client.id()].empty()) co_await release(client, std::string(holding_[client.id()].front().identifier));
      break;
    case K::refresh:
      if (!holding_[client.id()].empty()) co_await refresh(client, std::string(holding_[client.id()].front().identifier));
      break;
    default:
      break;  // faults are applied by the simulation itself
  }
}

}  // namespace semsim
