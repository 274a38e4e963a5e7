#include "sim/scenario/run_options_io.h"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <locale>
#include <set>
#include <sstream>
#include <ostream>
#include <stdexcept>

#include <boost/program_options.hpp>

#include "algorithms/registry.h"
#include "sim/redis/sentinel.h"

namespace semsim {

namespace po = boost::program_options;

po::options_description run_options_description() {
  const RunOptions d;
  po::options_description o("Run options (durations: 10ms, 1.5s, 2m, at most 100 hours either way; distributions: "
                            "fixed:D, uniform:D1..D2, normal:MEAN,SD, exp:MEAN; delays, holds, think times and "
                            "pauses are never negative; drift at most 1e6 ppm either way)");
  const auto text = [](std::string def) { return po::value<std::string>()->default_value(def); };
  o.add_options()
    ("variant", text(default_variant().name), "semaphore variant (see `semsim run --list-variants`), or script:FILE.ini")
    ("clients", text(std::to_string(d.clients)), "number of simulated clients (1..1000000)")
    ("limit", text(std::to_string(d.limit)), "permits: how many may hold at once (1..1000000)")
    ("duration", text(format_duration(d.duration)), "true (simulated) time the run lasts")
    ("timeout", text(format_duration(d.timeout)), "the semaphore's timeout: how long a permit lives unrefreshed")
    ("hold", text(d.hold.text()), "how long a holder keeps its permit (distribution)")
    ("think", text(d.think.text()), "pause between a client's attempts (distribution)")
    ("skew", text(d.skew.text()), "each client's clock offset (distribution over clients)")
    ("drift", text(d.drift_ppm.text()), "each client's clock drift in ppm (distribution over clients, plain numbers)")
    ("delay", text(d.delay.text()), "network delay of each message, each direction (distribution)")
    ("delay-out", po::value<std::string>(), "delay client -> Redis (overrides --delay)")
    ("delay-in", po::value<std::string>(), "delay Redis -> client (overrides --delay)")
    ("spike-probability", text("0"), "chance that a message gets an extra delay spike (0..1)")
    ("spike", text(d.spike.text()), "the extra delay of a spike (distribution)")
    ("refresh-every", text(format_duration(d.refresh_every)), "holders refresh this often (0: never)")
    ("retries", text(std::to_string(d.retries)), "further tries after a refused acquire")
    ("retry-delay", text(d.retry_delay.text()), "wait before each retry (distribution)")
    ("pause-rate", text("0"), "client pauses (GC-like stops) per client per second")
    ("pause-length", text(d.pause_length.text()), "how long a pause lasts (distribution)")
    ("crash-rate", text("0"), "client crashes per client per second")
    ("restart-rate", text("0"), "redis_restart faults per second (embedded Redis)")
    ("disconnect-rate", text("0"), "disconnect faults (every connection drops) per second")
    ("redis-pause-rate", text("0"), "redis_pause faults per second")
    ("redis-pause-length", text(d.redis_pause_length.text()), "how long Redis pauses (distribution)")
    ("sample-every", text(format_duration(d.sample_every)), "read the admission set from Redis this often and "
                                                             "compare with what clients believe (0: never)")
    ("lock-timeout", text(format_duration(d.lock_timeout)), "TTL of the lock (variants under a lock)")
    ("lock-acquire-timeout", text(format_duration(d.lock_acquire_timeout)), "how long to retry the lock")
    ("server-skew", text(format_duration(d.server_skew)), "Redis's clock offset from true time (signed)")
    ("server-drift", text("0"), "Redis's clock drift in ppm (signed, at most 1e6)")
    ("replicas", text("0"), "real replicas of the embedded Redis (0..5): what a failover promotes")
    ("topology", text("single"), "single: the embedded primary and --replicas; sentinel: a primary, two replicas and "
                                 "three redis-sentinel processes that elect a new primary when a failover kills it "
                                 "(real time: paced mode)")
    ("sentinel", po::value<std::string>(), "host:port,...: find the primary of your Redis through these sentinels "
                                           "(with --master; instead of --redis)")
    ("master", po::value<std::string>(), "the master name the sentinels watch (with --sentinel)")
    ("persistence", text("none"), "the embedded primary's persistence: none|aof-everysec|aof-always (what a "
                                  "redis_restart keeps)")
    ("maxmemory", text("0"), "the embedded Redis's memory limit in bytes (0: none)")
    ("maxmemory-policy", text(d.server.maxmemory_policy), "what it evicts at the limit: noeviction, allkeys-lru, "
                                                         "allkeys-lfu, allkeys-random, volatile-lru, volatile-lfu, "
                                                         "volatile-random, volatile-ttl")
    ("fill-memory", po::bool_switch(), "before the clients start, fill the embedded Redis up to --maxmemory with "
                                       "unrelated keys (no TTL) under the run's prefix, so that the run's writes evict")
    ("command-timeout", text(format_duration(d.command_timeout)), "real time Redis has to answer: then the operations in "
                                                                  "flight end as info, a script still running on the "
                                                                  "embedded server is killed, and the run stops")
    ("seed", text(std::to_string(d.seed)), "the run seed: same seed, same history (virtual mode)")
    ("mode", po::value<std::string>(), "virtual|paced (default: virtual, or paced for variants that rest on Redis's clock)")
    ("clients-file", po::value<std::string>(), "per-client table: client,skew,drift_ppm,delay_out,delay_in")
    ("actions-file", po::value<std::string>(), "scripted actions: at,client,action,arg")
    ("redis", po::value<std::string>(), "redis://[user@]host:port[/db] or unix:///path (default: an embedded server); "
                                        "password from SEMSIM_REDIS_PASSWORD")
    ("out", text(d.out), "output folder (history.csv, summary.csv, run.ini, charts)")
    ("no-charts", po::bool_switch(), "do not draw charts")
    ("no-pipeline", po::bool_switch(), "virtual mode: send each instant's requests on their own and wait for the "
                                       "replies, instead of pipelining every request that nothing pending can "
                                       "precede (same history, slower; for comparison)");
  return o;
}

namespace {

std::string get(const po::variables_map& vm, const char* name) { return vm[name].as<std::string>(); }

template <typename F>
auto convert(const char* name, const std::string& value, F f) {
  try {
    return f(value);
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("--") + name + "=" + value + ": " + e.what());
  }
}


// A number in [-bound, bound].
double parse_fraction_signed(const std::string& s, double bound) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !(std::abs(v) <= bound)) {
    std::ostringstream range;
    range << "must be a number from " << -bound << " to " << bound;
    throw std::invalid_argument(range.str());
  }
  return v;
}

double parse_fraction(const std::string& s, double hi) {
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size() || !(v >= 0) || v > hi) {
    std::ostringstream range;
    range << "must be a number from 0 to " << hi;
    throw std::invalid_argument(range.str());
  }
  return v;
}

Micros parse_nonnegative_duration(const std::string& s) {
  const Micros d = parse_duration(s);
  if (d.count() < 0) throw std::invalid_argument("must not be negative");
  return d;
}

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

}  // namespace

TimeMode default_mode(const std::string& variant, bool embedded_redis) {
  // On a user's Redis, TTL keys and lock expiry live on its real clock: only paced time keeps
  // them meaningful. The embedded server's clock follows virtual time (sim/redis/redis_clock.h).
  return !embedded_redis && variant_info(variant).clock == ClockBasis::redis_ttl ? TimeMode::paced
                                                                                 : TimeMode::virtual_time;
}

RunOptions run_options_from(const po::variables_map& vm, const std::string& base_dir) {
  RunOptions o;
  o.variant = get(vm, "variant");
  if (o.variant.rfind("script:", 0) == 0) o.variant = "script:" + resolve(o.variant.substr(7), base_dir);
  o.clients = static_cast<int>(convert("clients", get(vm, "clients"), [](auto& s) { return parse_integer(s, 1, kMaxClients); }));
  o.limit = static_cast<int>(convert("limit", get(vm, "limit"), [](auto& s) { return parse_integer(s, 1, 1'000'000); }));
  o.duration = convert("duration", get(vm, "duration"), parse_nonnegative_duration);
  o.timeout = convert("timeout", get(vm, "timeout"), parse_nonnegative_duration);
  const auto dist = [&](const char* name) {
    return convert(name, get(vm, name), [](auto& s) { return Distribution::parse(s); });
  };
  // Delays, holds, think times and pauses are lengths of time: none of them can be negative.
  const auto length = [&](const char* name) {
    return convert(name, get(vm, name), [](auto& s) {
      Distribution d = Distribution::parse(s);
      if (d.negative()) throw std::invalid_argument("'" + s + "': a length of time must not be negative");
      return d;
    });
  };
  o.hold = length("hold");
  o.think = length("think");
  o.skew = dist("skew");
  o.drift_ppm = convert("drift", get(vm, "drift"), [](auto& s) { return Distribution::parse(s, Distribution::Unit::number); });
  o.delay = length("delay");
  if (vm.count("delay-out")) o.delay_out = length("delay-out");
  if (vm.count("delay-in")) o.delay_in = length("delay-in");
  o.spike_probability = convert("spike-probability", get(vm, "spike-probability"), [](auto& s) { return parse_fraction(s, 1); });
  o.spike = length("spike");
  o.refresh_every = convert("refresh-every", get(vm, "refresh-every"), parse_nonnegative_duration);
  o.retries = static_cast<int>(convert("retries", get(vm, "retries"), [](auto& s) { return parse_integer(s, 0, 1'000'000); }));
  o.retry_delay = length("retry-delay");
  o.pause_rate = convert("pause-rate", get(vm, "pause-rate"), [](auto& s) { return parse_fraction(s, 1e6); });
  o.pause_length = length("pause-length");
  o.crash_rate = convert("crash-rate", get(vm, "crash-rate"), [](auto& s) { return parse_fraction(s, 1e6); });
  o.restart_rate = convert("restart-rate", get(vm, "restart-rate"), [](auto& s) { return parse_fraction(s, 1000); });
  o.disconnect_rate = convert("disconnect-rate", get(vm, "disconnect-rate"), [](auto& s) { return parse_fraction(s, 1000); });
  o.redis_pause_rate = convert("redis-pause-rate", get(vm, "redis-pause-rate"), [](auto& s) { return parse_fraction(s, 1000); });
  o.redis_pause_length = length("redis-pause-length");
  o.sample_every = convert("sample-every", get(vm, "sample-every"), parse_nonnegative_duration);
  o.lock_timeout = convert("lock-timeout", get(vm, "lock-timeout"), parse_nonnegative_duration);
  o.lock_acquire_timeout = convert("lock-acquire-timeout", get(vm, "lock-acquire-timeout"), parse_nonnegative_duration);
  o.server_skew = convert("server-skew", get(vm, "server-skew"), parse_duration);
  o.server_drift_ppm = convert("server-drift", get(vm, "server-drift"), [](auto& s) { return parse_fraction_signed(s, 1e6); });
  o.server.replicas = static_cast<int>(convert("replicas", get(vm, "replicas"), [](auto& s) { return parse_integer(s, 0, 5); }));
  o.server.persistence = convert("persistence", get(vm, "persistence"), [](const std::string& s) {
    const auto p = persistence_from_string(s);
    if (!p) throw std::invalid_argument("use none, aof-everysec or aof-always");
    return *p;
  });
  o.server.maxmemory = static_cast<std::uint64_t>(
      convert("maxmemory", get(vm, "maxmemory"), [](auto& s) { return parse_integer(s, 0, INT64_MAX); }));
  o.server.maxmemory_policy = convert("maxmemory-policy", get(vm, "maxmemory-policy"), [](const std::string& s) {
    static const std::set<std::string> policies = {"noeviction",   "allkeys-lru",  "allkeys-lfu",     "allkeys-random",
                                                   "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"};
    if (!policies.count(s)) throw std::invalid_argument("not a Redis maxmemory policy");
    return s;
  });
  const std::string topology = get(vm, "topology");
  if (topology != "single" && topology != "sentinel") throw std::invalid_argument("--topology=" + topology + ": use single or sentinel");
  o.server.sentinel = topology == "sentinel";
  if (o.server.sentinel) o.server.replicas = std::max(o.server.replicas, 2);
  if (vm.count("sentinel") != vm.count("master")) throw std::invalid_argument("--sentinel and --master go together");
  if (vm.count("sentinel")) {
    if (vm.count("redis")) throw std::invalid_argument("--sentinel finds the primary: not with --redis");
    parse_sentinels(get(vm, "sentinel"));  // bad entries are bad input now, not at connection time
    o.redis_url = "sentinel://" + get(vm, "sentinel") + "/" + get(vm, "master");
  }
  o.fill_memory = vm.count("fill-memory") && vm["fill-memory"].as<bool>();
  if (o.fill_memory && o.server.maxmemory == 0) throw std::invalid_argument("--fill-memory needs --maxmemory");
  if (!o.server.is_default() && !o.redis_url.empty())
    throw std::invalid_argument("--replicas, --topology, --persistence and --maxmemory set up the embedded Redis: not with "
                                "--redis or --sentinel");
  o.command_timeout = convert("command-timeout", get(vm, "command-timeout"), [](auto& s) {
    const Micros d = parse_duration(s);
    if (d < Micros(1000)) throw std::invalid_argument("must be at least 1ms");
    return d;
  });
  o.seed = static_cast<std::uint64_t>(convert("seed", get(vm, "seed"), [](auto& s) { return parse_integer(s, 0, INT64_MAX); }));
  o.mode = default_mode(o.variant, !vm.count("redis") && !vm.count("sentinel"));
  if (vm.count("mode")) {
    const std::string m = get(vm, "mode");
    if (m == "virtual") o.mode = TimeMode::virtual_time;
    else if (m == "paced") o.mode = TimeMode::paced;
    else throw std::invalid_argument("--mode=" + m + ": use virtual or paced");
    o.mode_given = true;
  }
  if (o.server.sentinel && o.mode == TimeMode::virtual_time) {
    if (o.mode_given) throw std::invalid_argument("--topology sentinel: the sentinels elect in real time; use --mode paced");
    o.mode = TimeMode::paced;
  }
  if (vm.count("clients-file")) o.clients_file = resolve(get(vm, "clients-file"), base_dir);
  if (vm.count("actions-file")) o.actions_file = resolve(get(vm, "actions-file"), base_dir);
  if (vm.count("redis")) o.redis_url = get(vm, "redis");
  o.out = get(vm, "out");
  o.charts = !(vm.count("no-charts") && vm["no-charts"].as<bool>());
  o.pipeline = !(vm.count("no-pipeline") && vm["no-pipeline"].as<bool>());
  return o;
}

void write_run_ini(std::ostream& out, const RunOptions& o) {
  // Paths absolute: run.ini is replayed from the output folder, not from where the run started.
  const bool script = o.variant.rfind("script:", 0) == 0;
  out.imbue(std::locale::classic());
  out << std::setprecision(17);  // rates and probabilities come back exactly
  out << "variant = " << (script ? "script:" + std::filesystem::absolute(o.variant.substr(7)).string() : o.variant) << "\n"
      << "clients = " << o.clients << "\n"
      << "limit = " << o.limit << "\n"
      << "duration = " << format_duration(o.duration) << "\n"
      << "timeout = " << format_duration(o.timeout) << "\n"
      << "hold = " << o.hold.text() << "\n"
      << "think = " << o.think.text() << "\n"
      << "skew = " << o.skew.text() << "\n"
      << "drift = " << o.drift_ppm.text() << "\n"
      << "delay = " << o.delay.text() << "\n";
  if (o.delay_out) out << "delay-out = " << o.delay_out->text() << "\n";
  if (o.delay_in) out << "delay-in = " << o.delay_in->text() << "\n";
  out << "spike-probability = " << o.spike_probability << "\n"
      << "spike = " << o.spike.text() << "\n"
      << "refresh-every = " << format_duration(o.refresh_every) << "\n"
      << "retries = " << o.retries << "\n"
      << "retry-delay = " << o.retry_delay.text() << "\n"
      << "pause-rate = " << o.pause_rate << "\n"
      << "pause-length = " << o.pause_length.text() << "\n"
      << "crash-rate = " << o.crash_rate << "\n"
      << "restart-rate = " << o.restart_rate << "\n"
      << "disconnect-rate = " << o.disconnect_rate << "\n"
      << "redis-pause-rate = " << o.redis_pause_rate << "\n"
      << "redis-pause-length = " << o.redis_pause_length.text() << "\n"
      << "sample-every = " << format_duration(o.sample_every) << "\n"
      << "lock-timeout = " << format_duration(o.lock_timeout) << "\n"
      << "lock-acquire-timeout = " << format_duration(o.lock_acquire_timeout) << "\n"
      << "command-timeout = " << format_duration(o.command_timeout) << "\n"
      << "server-skew = " << format_duration(o.server_skew) << "\n"
      << "server-drift = " << o.server_drift_ppm << "\n"
      << "replicas = " << o.server.replicas << "\n"
      << "topology = " << (o.server.sentinel ? "sentinel" : "single") << "\n"
      << "persistence = " << to_string(o.server.persistence) << "\n"
      << "maxmemory = " << o.server.maxmemory << "\n"
      << "maxmemory-policy = " << o.server.maxmemory_policy << "\n"
      << "fill-memory = " << (o.fill_memory ? "true" : "false") << "\n"
      << "seed = " << o.seed << "\n"
      << "mode = " << to_string(o.mode) << "\n";
  if (!o.pipeline) out << "no-pipeline = true\n";
  if (!o.clients_file.empty()) out << "clients-file = " << std::filesystem::absolute(o.clients_file).string() << "\n";
  if (!o.actions_file.empty()) out << "actions-file = " << std::filesystem::absolute(o.actions_file).string() << "\n";
}

}  // namespace semsim
