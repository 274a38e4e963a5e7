// `script:FILE.ini` variants: the user's Lua scripts as a semaphore. The INI format, placeholders
// and reply conventions are documented in script_variant.h and docs/script-variants.md.
//
// Every Redis command of this variant is built here: SCRIPT LOAD in prepare(),
// one EVALSHA per operation (as the built-in `lua` variant, so that a script re-expressing it sees
// the same simulated timing), SCRIPT LOAD + EVALSHA again on NOSCRIPT, and TIME only where the run
// has no server clock and server_time = time.
#include "algorithms/scripts/script_variant.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/api/all_settled.h"
#include "algorithms/api/command_policy.h"
#include "algorithms/api/protocol.h"
#include "algorithms/redlock.h"
#include "algorithms/scripts/script_spec.h"

namespace semsim {
namespace {

using namespace scripts;  // Spec, Script, Matcher, expand, describe

// "1500ms", "1s", "250us": a duration as a user writes it (sim/core's format_duration, which the
// algorithms do not link).
std::string duration_text(Micros d) {
  const long long us = d.count();
  if (us % 1'000'000 == 0) return num(us / 1'000'000) + "s";
  return us % 1'000 == 0 ? num(us / 1'000) + "ms" : num(us) + "us";
}

class ScriptSemaphore : public Semaphore {
 public:
  ScriptSemaphore(Spec spec, SemaphoreConfig config) : spec_(std::move(spec)), config_(std::move(config)) {
    // A library that takes whole seconds (EX n) cannot be asked for 1.5 s: refused, not rounded.
    if (spec_.timeout_step && config_.timeout.count() % spec_.timeout_step->count() != 0)
      throw SetupError(spec_.timeout_step_where + ": timeout.step: the timeout (--timeout " +
                       duration_text(config_.timeout) + ") is not a multiple of " + duration_text(*spec_.timeout_step) +
                       ", the unit this library takes its timeouts in");
  }

  Task<void> prepare(Client& client) override {
    std::vector<Script*> scripts{&spec_.acquire, &spec_.release};
    if (spec_.refresh) scripts.push_back(&*spec_.refresh);
    if (spec_.setup) scripts.push_back(&*spec_.setup);
    // Every command checked before anything runs, the setup included.
    for (Script* script : scripts)
      if (!script->command.empty()) check_command_before_the_run(client, *script);
    for (Script* script : scripts) {
      if (script->uses_server_now && spec_.server_time == ServerTime::fail && !client.server_now())
        throw SetupError(spec_.ini + ": " + script->op + " uses {server_now_*} and server_time = fail, "
                         "but this run has no server clock");
      if (!script->command.empty()) continue;
      // With masters = each on every master (the SHA1 is the same everywhere).
      for (int m = 0; m < (spec_.masters.each ? client.masters() : 1); ++m) {
        Reply loaded = co_await client.redis(m).call(cmd("SCRIPT", "LOAD", script->source));
        if (loaded.kind != Reply::Kind::string && loaded.kind != Reply::Kind::status)
          throw SetupError(script->path + ": SCRIPT LOAD failed: " +
                           (loaded.is_error() ? loaded.text : describe(loaded)));
        script->sha = loaded.text;
      }
    }
    for (int m = 0; m < (spec_.masters.each ? client.masters() : 1); ++m) co_await run_setup(client, m);
  }

  // Redis lost its data (a restart, a failover): what the setup wrote is gone too. (With several
  // masters the client is the one that lost it.)
  Task<void> after_data_loss(Client& client) override { co_await run_setup(client, 0); }

  Task<std::optional<Grant>> acquire(Client& client) override {
    std::string identifier = client.new_identifier();  // drawn even if unused: same stream as `lua`
    if (spec_.masters.each) co_return co_await acquire_on_masters(client, std::move(identifier), true);
    Reply reply = co_await call(client, spec_.acquire, identifier);
    if (spec_.acquire.yes.matches(reply)) {
      long long token = 0;
      if (spec_.token_from_reply) {
        if (reply.kind != Reply::Kind::integer)
          throw ReplyError(spec_.acquire.path + ": acquire.token = reply, but the granted reply was " + describe(reply));
        token = reply.integer;
      }
      if (spec_.keeps_replies) replies_[identifier] = reply_text(reply);
      co_return Grant{std::move(identifier), token};
    }
    if (spec_.acquire.no.matches(reply)) co_return std::nullopt;
    throw unexpected(spec_.acquire, reply, "granted", "refused");
  }

  // masters.release_on_refusal = last (npm redlock 5's own retries): every try of one acquire
  // sends the same identifier, and a refused try keeps the votes it got (the keys stay, and block
  // the next try where the script refuses a key that exists, its own included); only the last try
  // that --retries allows releases everywhere when refused.
  Task<std::optional<Grant>> acquire_try(Client& client, AcquireTry attempt) override {
    if (!spec_.masters.each || spec_.masters.release_on_refusal != Masters::Release::last)
      co_return co_await acquire(client);
    auto [chain, first] = chains_.try_emplace(attempt.chain);
    if (first) chain->second = client.new_identifier();
    std::string identifier = chain->second;
    std::optional<Grant> grant;
    try {
      grant = co_await acquire_on_masters(client, std::move(identifier), attempt.last);
    } catch (...) {
      chains_.erase(attempt.chain);
      throw;
    }
    if (grant || attempt.last) chains_.erase(attempt.chain);
    co_return grant;
  }

  std::optional<Micros> master_timeout(Micros run_timeout) const override {
    if (spec_.masters.wait_forever) return std::nullopt;
    return spec_.masters.timeout.value_or(run_timeout);
  }

  Task<bool> release(Client& client, std::string identifier) override {
    if (spec_.masters.each) {
      const Votes v = co_await vote(client, spec_.release, identifier, client.now(), false);
      co_return v.yes() >= quorum(client.masters());
    }
    Reply reply = co_await call(client, spec_.release, identifier);
    replies_.erase(identifier);  // the permit is given back, whatever the reply says
    if (spec_.release.yes.matches(reply)) co_return true;
    if (spec_.release.no.matches(reply)) co_return false;
    throw unexpected(spec_.release, reply, "ok", "missing");
  }

  Task<bool> refresh(Client& client, std::string identifier) override {
    if (!spec_.refresh) throw ReplyError(spec_.ini + ": no refresh script (add `refresh = FILE.lua`)");
    if (spec_.masters.each) co_return co_await refresh_on_masters(client, std::move(identifier));
    Reply reply = co_await call(client, *spec_.refresh, identifier);
    if (spec_.refresh->yes.matches(reply)) co_return true;
    if (spec_.refresh->no.matches(reply)) co_return false;
    throw unexpected(*spec_.refresh, reply, "ok", "lost");
  }

  int quorum(int masters) const override { return spec_.masters.quorum.value_or(masters / 2 + 1); }

  std::string admission_set() const override {
    if (!spec_.admission_set) return {};
    const std::string none;
    return expand(*spec_.admission_set, Values{config_, none, Micros{0}, std::nullopt});
  }

  LeaseProbe lease_probe() const override {
    switch (spec_.lease.kind) {
      case LeaseHonesty::Kind::admission_set: return LeaseProbe::rank;
      case LeaseHonesty::Kind::ttl: return LeaseProbe::ttl;
      case LeaseHonesty::Kind::none: break;
    }
    return LeaseProbe::none;
  }

  // ZRANK of the identifier in the admission set, or PTTL of the permit's key (lease_honesty).
  Command lease_probe_command(const std::string& identifier) const override {
    if (spec_.lease.kind == LeaseHonesty::Kind::admission_set) return Command{"ZRANK", admission_set(), identifier};
    const auto it = replies_.find(identifier);
    const Values values{config_, identifier, Micros{0}, std::nullopt, it == replies_.end() ? nullptr : &it->second};
    Command probe{"PTTL", expand(spec_.lease.key, values)};
    if (!probe[1].starts_with(config_.name))
      throw SetupError(spec_.ini + ": lease_honesty: '" + probe[1] + "' is a key outside this run's own (it must "
                       "start with " + config_.name + ", which {key} stands for)" +
                       (values.reply ? ", made of acquire's reply '" + *values.reply + "' ({reply})" : std::string()) +
                       ": refused, nothing was sent");
    return probe;
  }

 private:
  Task<void> run_setup(Client& client, int master) {
    if (!spec_.setup) co_return;
    try {
      co_await call(client, *spec_.setup, std::string(), master);
    } catch (const ReplyError& e) {
      throw SetupError(std::string("setup failed: ") + e.what());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Several masters (masters = each): every operation runs on every master at once, and its
  // outcome is a vote, as Redlock's (algorithms/redlock.cpp) but with the INI's scripts.

  struct Votes {
    std::vector<int> yes_masters, silent;  // said yes; did not answer in time
    int no_count = 0, masters = 0;         // said no (or failed)
    std::vector<bool> said_no;             // per master: answered no (not silent, not an error)
    int yes() const { return static_cast<int>(yes_masters.size()); }
  };

  // `script` on every master with the words expanded at `now` (the client's clock when the
  // operation began, as libraries take Date.now() once per attempt), each master's own server
  // clock for {server_now_*}. A reply that is neither yes nor no, an error, no answer: a failed vote.
  Task<Votes> vote(Client& client, Script& script, std::string identifier, Micros now, bool wait_quorum) {
    Votes v;
    v.masters = client.masters();
    v.said_no.assign(static_cast<std::size_t>(v.masters), false);
    std::vector<Task<Reply>> calls;
    for (int m = 0; m < v.masters; ++m) calls.push_back(call(client, script, identifier, m, now));
    Enough<Reply> enough;
    if (wait_quorum) {
      // npm redlock 5: the operation is decided as soon as a quorum votes for it, or against it.
      const int q = quorum(v.masters);
      enough = [&script, q](const std::vector<Settled<Reply>>& so_far) {
        int yes = 0, no = 0;
        for (const auto& s : so_far) {
          if (!s.settled) continue;
          if (s.ok() && script.yes.matches(*s.value)) ++yes;
          else ++no;
        }
        return yes >= q || no >= q;
      };
    }
    std::vector<Settled<Reply>> answers = co_await all_settled(std::move(calls), enough);
    for (int m = 0; m < v.masters; ++m) {
      const Settled<Reply>& a = answers[static_cast<std::size_t>(m)];
      if (a.ok() && script.yes.matches(*a.value)) {
        v.yes_masters.push_back(m);
        continue;
      }
      ++v.no_count;
      if (a.ok() && script.no.matches(*a.value)) v.said_no[static_cast<std::size_t>(m)] = true;
      if (!a.settled) continue;
      try {
        if (a.error) std::rethrow_exception(a.error);
      } catch (const NoAnswer&) {
        v.silent.push_back(m);
      } catch (const LinkError&) {
      } catch (const ReplyError&) {
      }
    }
    co_return v;
  }

  // Redlock's validity: ttl - elapsed - (drift_factor * ttl + 2 ms), the ttl being the timeout.
  Micros validity(Micros elapsed) const {
    const long long ttl_ms = ceil_ms(config_.timeout);
    const double factor = spec_.masters.drift_factor.value_or(config_.drift_factor);
    return Micros(ttl_ms * 1000) - elapsed - Micros((static_cast<long long>(static_cast<double>(ttl_ms) * factor) + 2) * 1000);
  }

  // What the history says of a vote: votes=K/N granted=... elapsed_us= [validity_us=] [refused=].
  std::string detail(const Votes& v, Micros elapsed, bool held) const {
    const auto list = [](const std::vector<int>& masters) {
      std::string out;
      for (int m : masters) out += (out.empty() ? "" : ",") + num(m + 1);
      return out.empty() ? std::string("none") : out;
    };
    std::string d = "votes=" + num(v.yes()) + "/" + num(v.masters) + " granted=" + list(v.yes_masters);
    if (!v.silent.empty()) d += " no_answer=" + list(v.silent);
    d += " elapsed_us=" + num(elapsed.count());
    if (spec_.masters.validity) d += " validity_us=" + num(validity(elapsed).count());
    if (!held) d += v.yes() < quorum(v.masters) ? " refused=quorum" : " refused=validity";
    return d;
  }

  bool held(const Votes& v, Micros elapsed) const {
    return v.yes() >= quorum(v.masters) && (!spec_.masters.validity || validity(elapsed) > Micros(0));
  }

  Task<void> release_everywhere(Client& client, const std::string& identifier) {
    co_await vote(client, spec_.release, identifier, client.now(), false);  // best effort: outcomes unread
  }

  // `last_try`: no try follows a refusal of this one (AcquireTry::last).
  Task<std::optional<Grant>> acquire_on_masters(Client& client, std::string identifier, bool last_try) {
    const Micros start = client.now();
    const Votes v = co_await vote(client, spec_.acquire, identifier, start, spec_.masters.wait_quorum);
    const Micros elapsed = client.now() - start;
    const bool granted = held(v, elapsed);
    client.note(detail(v, elapsed, granted));
    if (granted) co_return Grant{std::move(identifier), 0};
    using Release = Masters::Release;
    const Release r = spec_.masters.release_on_refusal;
    if (r == Release::yes || (r == Release::last && last_try)) co_await release_everywhere(client, identifier);
    co_return std::nullopt;
  }

  Task<bool> refresh_on_masters(Client& client, std::string identifier) {
    const Micros start = client.now();
    const Votes v = co_await vote(client, *spec_.refresh, identifier, start, spec_.masters.wait_quorum);
    const Micros elapsed = client.now() - start;
    const bool kept = held(v, elapsed);
    std::string d = detail(v, elapsed, kept);
    if (kept && spec_.masters.refresh_reacquire && v.yes() < v.masters) {
      // npm redis-semaphore: "try to acquire on failed nodes", with the refresh's own `now`.
      std::vector<Task<Reply>> again;
      std::vector<int> where;
      for (int m = 0; m < v.masters; ++m)
        if (std::find(v.yes_masters.begin(), v.yes_masters.end(), m) == v.yes_masters.end()) {
          again.push_back(call(client, spec_.acquire, identifier, m, start));
          where.push_back(m);
        }
      std::vector<Settled<Reply>> answers = co_await all_settled(std::move(again));
      std::vector<int> reacquired;
      for (std::size_t i = 0; i < answers.size(); ++i)
        if (answers[i].ok() && spec_.acquire.yes.matches(*answers[i].value)) reacquired.push_back(where[i]);
      std::string list;
      for (int m : reacquired) list += (list.empty() ? "" : ",") + num(m + 1);
      d += " reacquired=" + (list.empty() ? std::string("none") : list);
    }
    client.note(d);
    // A refresh is one try: `last` releases as `yes` does.
    if (!kept && spec_.masters.release_on_refusal != Masters::Release::no) co_await release_everywhere(client, identifier);
    co_return kept;
  }

  // Refuses (SetupError) a plain command that may not run (algorithms/api/command_policy.h) or whose
  // words as expanded now, before it is sent, name a key outside the run's own. In prepare() with
  // sample values, and on every call: a word made of acquire's reply ({reply}) can change which
  // words are keys (`STORE`, a number of keys).
  void check_command_words(const Script& script, const Command& words, const std::string* reply) const {
    const CommandCheck check = check_command(words);
    if (!check.refused.empty())
      throw SetupError(script.path + ": " + script.op + ".command: " + check.refused +
                       (reply ? " (made of acquire's reply '" + *reply + "' ({reply}))" : std::string()) +
                       ": refused, nothing was sent (docs/script-variants.md, what a command may do)");
    check_own_keys(script, words, check.keys, reply);
  }

  // The command as a first call would expand it, a sample under the run's prefix standing for
  // {reply}, which is not known before acquire.
  void check_command_before_the_run(Client& client, const Script& script) const {
    const std::string id = "00000000-0000-4000-8000-000000000000";
    std::optional<Micros> server_now = client.server_now();
    if (!server_now && spec_.server_time != ServerTime::empty) server_now = client.now();
    const std::string sample_reply = config_.name + "reply";
    const Values values{config_, id, client.now(), server_now, &sample_reply};
    check_command_words(script, expand_words(script.command, values), nullptr);
  }

  // One EVALSHA (after one TIME only where server_time = time and the run has no server clock)
  // on `master`, with {now_*} at `now` if given, else the client's clock when the words are made.
  // `identifier` is a copy: it must outlive the suspensions.
  Task<Reply> call(Client& client, Script& script, std::string identifier, int master = 0,
                   std::optional<Micros> now = std::nullopt) {
    Redis& redis = client.redis(master);
    std::optional<Micros> server_now = client.server_now(master);
    if (script.uses_server_now && !server_now) {
      if (spec_.server_time == ServerTime::fail)
        throw ReplyError(script.path + ": {server_now_*} with server_time = fail, and this run has no server clock");
      if (spec_.server_time == ServerTime::time) {
        Reply t = co_await redis.call(cmd("TIME"));
        const auto& parts = elements_of(t);
        if (parts.size() != 2) throw ReplyError("TIME: unexpected reply " + describe(t));
        server_now = Micros{integer_of(parts[0]) * 1'000'000 + integer_of(parts[1])};
      }
    }
    const Values values{config_, identifier, now.value_or(client.now()), server_now, reply_of(script, identifier)};
    if (!script.command.empty()) {
      Command plain = expand_words(script.command, values);
      check_command_words(script, plain, values.reply);
      Reply reply = co_await redis.call(std::move(plain));
      if (reply.is_error() && !script.yes.takes_errors() && !script.no.takes_errors())
        throw ReplyError(script.path + ": " + reply.text);
      co_return reply;
    }
    std::vector<std::string> keys = expand_words(script.keys, values), args = expand_words(script.args, values);
    std::vector<std::size_t> all(keys.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    check_own_keys(script, keys, all, values.reply);
    Reply reply;
    try {
      reply = co_await evalsha(redis, script.source, script.sha, keys, args);
    } catch (const ReplyError& e) {
      throw ReplyError(script.path + ": " + e.what());  // every message names the script
    }
    // A Lua runtime error: Redis's text names the script line ("user_script:7: ..."), unless the
    // INI reads error replies as an answer (`error`).
    if (reply.is_error() && !script.yes.takes_errors() && !script.no.takes_errors())
      throw ReplyError(script.path + ": " + reply.text);
    co_return reply;
  }

  // Acquire's granted reply for a grant's release and refresh ({reply}); nullptr where no word uses it.
  const std::string* reply_of(const Script& script, const std::string& identifier) const {
    if (!spec_.keeps_replies || (&script != &spec_.release && !(spec_.refresh && &script == &*spec_.refresh)))
      return nullptr;
    const auto it = replies_.find(identifier);
    if (it == replies_.end())
      throw ReplyError(script.path + ": {reply}: no granted acquire is known for the identifier " + identifier);
    return &it->second;
  }

  // Refuses (SetupError, nothing sent) a command or a script call with a key outside the run's own.
  // Before the run with sample values, and on every call with the words as they are then: {key}
  // words are under it by construction, a key from acquire's reply ({reply}) only if the library
  // named one of the run's. The run then stops (exit 2).
  void check_own_keys(const Script& script, const Command& words, const std::vector<std::size_t>& key_words,
                      const std::string* reply = nullptr) const {
    for (std::size_t i : key_words)
      if (i < words.size() && !words[i].starts_with(config_.name))
        throw SetupError(script.path + ": " + script.op + (script.command.empty() ? ".keys" : ".command") + ": '" +
                         words[i] + "' is a key outside this run's own (every key must start with {key} or "
                         "{key:NAME}, which stand for " + config_.name + ")" +
                         (reply ? ", made of acquire's reply '" + *reply + "' ({reply})" : std::string()) +
                         ": refused, nothing was sent");
  }

  ReplyError unexpected(const Script& script, const Reply& reply, const char* yes, const char* no) const {
    return ReplyError(script.path + ": " + script.op + " replied " + describe(reply) + ", which is neither " +
                      script.op + "." + yes + " (" + script.yes.spec + ") nor " + script.op + "." + no + " (" +
                      script.no.spec + ")");
  }

  Spec spec_;
  SemaphoreConfig config_;
  std::map<std::string, std::string> replies_;  // identifier -> acquire's granted reply, until released
  std::map<std::uint64_t, std::string> chains_;  // AcquireTry::chain -> its identifier (release_on_refusal = last)
};

}  // namespace

std::unique_ptr<Semaphore> make_script_semaphore(const std::string& ini_path, SemaphoreConfig config) {
  return std::make_unique<ScriptSemaphore>(scripts::read_script_spec(ini_path), std::move(config));
}

VariantInfo script_variant_info(const std::string& ini_path) {
  // The promise of the built-in variants of the declared clock: a client-clock script gets the
  // seeds' client-clock promise (as fair), a server- or TTL-timed one the lease promise (as lua,
  // ttl-key). Safety is asserted, and lease honesty where the INI asks for it: a script's
  // liveness is its own business.
  VariantInfo v{.name = "script:FILE.ini", .source = "yours: Lua scripts named by an INI file (docs/script-variants.md)",
                .clock = ClockBasis::redis_time, .preconditions = lease_promise()};
  if (ini_path.empty()) {
    v.preconditions.text = "by its `clock`: client: " + client_clock_promise().text + "; server or ttl (the default "
                           "is server): " + lease_promise().text;
    return v;
  }
  v.clock = scripts::read_script_clock(ini_path);
  v.multi_master = scripts::read_script_each_master(ini_path);
  if (v.clock == ClockBasis::client) v.preconditions = client_clock_promise();
  v.timeout_step = scripts::read_script_timeout_step(ini_path);
  // Asked for by the INI (lease_honesty = ...): what a lease library promises, seen on Redis.
  v.lease_honesty = scripts::read_script_lease_honesty(ini_path);
  if (v.multi_master) {  // over several masters, Redlock's assumptions besides (docs/redlock.md)
    const Preconditions redlock = redlock_promise();
    v.preconditions.within_validity = redlock.within_validity;
    v.preconditions.master_clock_rate = redlock.master_clock_rate;
    v.preconditions.no_master_jumps = redlock.no_master_jumps;
    v.preconditions.delayed_restarts = redlock.delayed_restarts;
    v.preconditions.text += "; over several masters, " + redlock.text;
  }
  return v;
}

}  // namespace semsim
