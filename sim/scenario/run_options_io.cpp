#include "sim/scenario/run_options_io.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <locale>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <boost/program_options.hpp>

#include "algorithms/registry.h"
#include "sim/redis/sentinel.h"

namespace semsim {

namespace po = boost::program_options;

namespace {

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

// Delays, holds, think times and pauses are lengths of time: none of them can be negative.
Distribution parse_length(const std::string& s) {
  Distribution d = Distribution::parse(s);
  if (d.negative()) throw std::invalid_argument("'" + s + "': a length of time must not be negative");
  return d;
}

Persistence parse_persistence(const std::string& s) {
  const auto p = persistence_from_string(s);
  if (!p) throw std::invalid_argument("use none, aof-everysec or aof-always");
  return *p;
}

std::string parse_maxmemory_policy(const std::string& s) {
  static const std::set<std::string> policies = {"noeviction",   "allkeys-lru",  "allkeys-lfu",     "allkeys-random",
                                                 "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"};
  if (!policies.count(s)) throw std::invalid_argument("not a Redis maxmemory policy");
  return s;
}

Micros parse_command_timeout(const std::string& s) {
  const Micros d = parse_duration(s);
  if (d < Micros(1000)) throw std::invalid_argument("must be at least 1ms");
  return d;
}

// true: sentinel.
bool parse_topology(const std::string& s) {
  if (s != "single" && s != "sentinel") throw std::invalid_argument("use single or sentinel");
  return s == "sentinel";
}

// Rates and probabilities come back exactly, whatever the global locale.
std::string format_number(double v) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::setprecision(17) << v;
  return out.str();
}

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

// Paths absolute: run.ini is replayed from the output folder, not from where the run started.
std::string absolute(const std::string& path) { return std::filesystem::absolute(path).string(); }

// One run option, said once: --help shows its name, help and default; run_options_from reads its
// text into RunOptions; write_run_ini writes it back as that text, so that run.ini replays the run.
struct RunOption {
  enum class Value {
    with_default,     // text; --help's default is what run.ini writes for a default RunOptions
    without_default,  // text, absent unless given
    flag,             // a switch (bool_switch): given or not
    repeated,         // text, absent unless given, and may be given again (--redis)
  };
  std::string name;
  std::string help;
  // Throws saying what is wrong with the text; run_options_from puts "--NAME=TEXT: " before it.
  // Empty: read in a named step of run_options_from, with the options it goes with.
  std::function<void(RunOptions&, const std::string& text, const std::string& base_dir)> read = nullptr;
  // nullopt: not written for this run. Empty: never written (the entry says why).
  std::function<std::optional<std::string>(const RunOptions&)> write = nullptr;
  Value value = Value::with_default;
  // Where --help's default is not what run.ini writes for a default RunOptions.
  std::optional<std::string> default_text = std::nullopt;
  // run.ini's order is older than this option's place in --help: run.ini has it right after this one.
  const char* written_after = nullptr;
};

// The factories below take a member pointer of RunOptions, or this for a member of its ServerSetup.
template <typename T>
auto server_field(T ServerSetup::*member) {
  return [member](auto& o) -> auto& { return o.server.*member; };
}

template <typename Field>
using FieldType = std::remove_cvref_t<std::invoke_result_t<Field, RunOptions&>>;

// An option that is one field: parsed into it, formatted from it.
template <typename Field, typename Parse, typename Format>
RunOption field_option(const char* name, Field field, Parse parse, Format format, const char* help) {
  return {.name = name,
          .help = help,
          .read = [field, parse](RunOptions& o, const std::string& text, const std::string&) {
            std::invoke(field, o) = static_cast<FieldType<Field>>(parse(text));
          },
          .write = [field, format](const RunOptions& o) -> std::optional<std::string> {
            return std::string(std::invoke(format, std::invoke(field, o)));
          }};
}

template <typename Field>
RunOption nonnegative_duration(const char* name, Field field, const char* help) {
  return field_option(name, field, parse_nonnegative_duration, format_duration, help);
}

template <typename Field>
RunOption signed_duration(const char* name, Field field, const char* help) {
  return field_option(name, field, parse_duration, format_duration, help);
}

template <typename Field>
RunOption distribution(const char* name, Field field, const char* help,
                       Distribution::Unit unit = Distribution::Unit::duration) {
  const auto parse = [unit](const std::string& s) { return Distribution::parse(s, unit); };
  return field_option(name, field, parse, &Distribution::text, help);
}

template <typename Field>
RunOption length(const char* name, Field field, const char* help) {
  return field_option(name, field, parse_length, &Distribution::text, help);
}

// A length of time that overrides another when given (--delay-out, --delay-in).
RunOption overriding_length(const char* name, std::optional<Distribution> RunOptions::*field, const char* help) {
  return {.name = name,
          .help = help,
          .read = [field](RunOptions& o, const std::string& text, const std::string&) {
            o.*field = parse_length(text);
          },
          .write = [field](const RunOptions& o) -> std::optional<std::string> {
            if (!(o.*field)) return std::nullopt;
            return (o.*field)->text();
          },
          .value = RunOption::Value::without_default};
}

template <typename Field>
RunOption integer(const char* name, Field field, long long lo, long long hi, const char* help) {
  const auto parse = [lo, hi](const std::string& s) { return parse_integer(s, lo, hi); };
  return field_option(name, field, parse, [](auto n) { return std::to_string(n); }, help);
}

// A number in [0, hi].
template <typename Field>
RunOption fraction(const char* name, Field field, double hi, const char* help) {
  const auto parse = [hi](const std::string& s) { return parse_fraction(s, hi); };
  return field_option(name, field, parse, format_number, help);
}

// A number in [-bound, bound].
template <typename Field>
RunOption signed_fraction(const char* name, Field field, double bound, const char* help) {
  const auto parse = [bound](const std::string& s) { return parse_fraction_signed(s, bound); };
  return field_option(name, field, parse, format_number, help);
}

RunOption flag(const char* name, bool RunOptions::*field, const char* help) {
  return {.name = name,
          .help = help,
          .read = [field](RunOptions& o, const std::string& text, const std::string&) { o.*field = text == "true"; },
          .write = [field](const RunOptions& o) -> std::optional<std::string> { return o.*field ? "true" : "false"; },
          .value = RunOption::Value::flag};
}

// --no-X: turns a field that is on by default off. run.ini says it only when given, as it always has.
RunOption turns_off(const char* name, bool RunOptions::*field, const char* help) {
  return {.name = name,
          .help = help,
          .read = [field](RunOptions& o, const std::string& text, const std::string&) { o.*field = text != "true"; },
          .write = [field](const RunOptions& o) -> std::optional<std::string> {
            if (o.*field) return std::nullopt;
            return "true";
          },
          .value = RunOption::Value::flag};
}

// A file the run reads, relative to the scenario file that names it.
RunOption input_file(const char* name, std::string RunOptions::*field, const char* help) {
  return {.name = name,
          .help = help,
          .read = [field](RunOptions& o, const std::string& text, const std::string& base_dir) {
            o.*field = resolve(text, base_dir);
          },
          .write = [field](const RunOptions& o) -> std::optional<std::string> {
            if ((o.*field).empty()) return std::nullopt;
            return absolute(o.*field);
          },
          .value = RunOption::Value::without_default};
}

RunOption never_written(RunOption option) {
  option.write = nullptr;
  return option;
}

RunOption written_after(const char* previous, RunOption option) {
  option.written_after = previous;
  return option;
}

// Every run option, in --help's order.
const std::vector<RunOption>& run_option_table() {
  using O = RunOptions;
  using S = ServerSetup;
  static const std::vector<RunOption> table = {
    {.name = "variant",
     .help = "semaphore variant (see `semsim run --list-variants`), script:FILE.ini, or driver:COMMAND (each client "
             "a real process running your own library: docs/drivers.md)",
     .read = [](O& o, const std::string& text, const std::string& base_dir) {
       o.variant = text.rfind("script:", 0) == 0 ? "script:" + resolve(text.substr(7), base_dir) : text;
     },
     .write = [](const O& o) -> std::optional<std::string> {
       return o.variant.rfind("script:", 0) == 0 ? "script:" + absolute(o.variant.substr(7)) : o.variant;
     },
     // RunOptions leaves the variant to the readers; the registry names the default.
     .default_text = default_variant().name},
    integer("clients", &O::clients, 1, kMaxClients, "number of simulated clients (1..1000000)"),
    integer("limit", &O::limit, 1, 1'000'000, "permits: how many may hold at once (1..1000000)"),
    nonnegative_duration("duration", &O::duration, "true (simulated) time the run lasts"),
    nonnegative_duration("timeout", &O::timeout, "the semaphore's timeout: how long a permit lives unrefreshed"),
    length("hold", &O::hold, "how long a holder keeps its permit (distribution)"),
    length("think", &O::think, "pause between a client's attempts (distribution)"),
    distribution("skew", &O::skew, "each client's clock offset (distribution over clients)"),
    distribution("drift", &O::drift_ppm, "each client's clock drift in ppm (distribution over clients, plain numbers)",
                 Distribution::Unit::number),
    length("delay", &O::delay, "network delay of each message, each direction (distribution)"),
    overriding_length("delay-out", &O::delay_out, "delay client -> Redis (overrides --delay)"),
    overriding_length("delay-in", &O::delay_in, "delay Redis -> client (overrides --delay)"),
    fraction("spike-probability", &O::spike_probability, 1, "chance that a message gets an extra delay spike (0..1)"),
    length("spike", &O::spike, "the extra delay of a spike (distribution)"),
    nonnegative_duration("refresh-every", &O::refresh_every, "holders refresh this often (0: never)"),
    integer("retries", &O::retries, 0, 1'000'000, "further tries after a refused acquire"),
    length("retry-delay", &O::retry_delay, "wait before each retry (distribution)"),
    fraction("pause-rate", &O::pause_rate, 1e6, "client pauses (GC-like stops) per client per second"),
    length("pause-length", &O::pause_length, "how long a pause lasts (distribution)"),
    fraction("crash-rate", &O::crash_rate, 1e6, "client crashes per client per second"),
    fraction("restart-rate", &O::restart_rate, 1000, "redis_restart faults per second (embedded Redis)"),
    fraction("disconnect-rate", &O::disconnect_rate, 1000, "disconnect faults (every connection drops) per second"),
    fraction("redis-pause-rate", &O::redis_pause_rate, 1000, "redis_pause faults per second"),
    length("redis-pause-length", &O::redis_pause_length, "how long Redis pauses (distribution)"),
    nonnegative_duration("sample-every", &O::sample_every, "read the admission set from Redis this often and "
                                                           "compare with what clients believe (0: never)"),
    nonnegative_duration("lock-timeout", &O::lock_timeout, "TTL of the lock (variants under a lock)"),
    nonnegative_duration("lock-acquire-timeout", &O::lock_acquire_timeout, "how long to retry the lock"),
    signed_duration("server-skew", &O::server_skew, "Redis's clock offset from true time (signed)"),
    signed_fraction("server-drift", &O::server_drift_ppm, 1e6, "Redis's clock drift in ppm (signed, at most 1e6)"),
    integer("replicas", server_field(&S::replicas), 0, 5, "real replicas of the embedded Redis (0..5): what a failover "
                                                          "promotes"),
    field_option("topology", server_field(&S::sentinel), parse_topology,
                 [](bool sentinel) { return sentinel ? "sentinel" : "single"; },
                 "single: the embedded primary and --replicas; sentinel: a primary, two replicas and three "
                 "redis-sentinel processes that elect a new primary when a failover kills it (real time: paced mode)"),
    // --sentinel and --master are read together in read_sentinel_address: the two make one address.
    // Never written, as --redis: which Redis a replay runs against is the replaying command's to say.
    {.name = "sentinel",
     .help = "host:port,...: find the primary of your Redis through these sentinels (with --master; instead of "
             "--redis); their password from SEMSIM_SENTINEL_PASSWORD",
     .value = RunOption::Value::without_default},
    {.name = "master",
     .help = "the master name the sentinels watch (with --sentinel)",
     .value = RunOption::Value::without_default},
    field_option("persistence", server_field(&S::persistence), parse_persistence,
                 [](Persistence p) { return to_string(p); },
                 "the embedded primary's persistence: none|aof-everysec|aof-always (what a redis_restart keeps)"),
    integer("maxmemory", server_field(&S::maxmemory), 0, INT64_MAX,
            "the embedded Redis's memory limit in bytes (0: none)"),
    field_option("maxmemory-policy", server_field(&S::maxmemory_policy), parse_maxmemory_policy,
                 std::identity(),
                 "what it evicts at the limit: noeviction, allkeys-lru, allkeys-lfu, allkeys-random, volatile-lru, "
                 "volatile-lfu, volatile-random, volatile-ttl"),
    flag("fill-memory", &O::fill_memory, "before the clients start, fill the embedded Redis to 256 KiB below "
                                         "--maxmemory with unrelated 1 KiB keys (TTL one hour) under the run's "
                                         "prefix, then write one more every millisecond, so that Redis must evict"),
    // Redlock over N masters (docs/redlock.md). run.ini writes them for runs of several masters
    // only, so that a one-master run's run.ini stays as it was.
    {.name = "masters",
     .help = "independent Redis masters (1..9): N embedded servers, each with its own clock, persistence and "
             "faults (or --redis given N times); for redlock, redlock-semaphore and scripts with masters = each",
     .read = [](O& o, const std::string& text, const std::string&) {
       o.masters = static_cast<int>(parse_integer(text, 1, 9));
     },
     .write = [](const O& o) -> std::optional<std::string> {
       if (o.masters == 1) return std::nullopt;
       return std::to_string(o.masters);
     },
     .default_text = "1"},
    {.name = "master-timeout",
     .help = "how long a client waits for one master's answer (simulated): no answer by then is a failed vote",
     .read = [](O& o, const std::string& text, const std::string&) {
       o.master_timeout = parse_duration(text);
       if (o.master_timeout < Micros(1)) throw std::invalid_argument("must be positive");
     },
     .write = [](const O& o) -> std::optional<std::string> {
       if (o.masters == 1 && o.master_timeout == RunOptions{}.master_timeout) return std::nullopt;
       return format_duration(o.master_timeout);
     },
     .default_text = format_duration(RunOptions{}.master_timeout)},
    {.name = "drift-factor",
     .help = "Redlock's clock drift allowance (0..1): validity = ttl - elapsed - (factor * ttl + 2ms)",
     .read = [](O& o, const std::string& text, const std::string&) { o.drift_factor = parse_fraction(text, 1); },
     .write = [](const O& o) -> std::optional<std::string> {
       if (o.masters == 1 && o.drift_factor == RunOptions{}.drift_factor) return std::nullopt;
       return format_number(o.drift_factor);
     },
     .default_text = format_number(RunOptions{}.drift_factor)},
    input_file("masters-file", &O::masters_file, "per-master table: master,skew,drift_ppm,persistence"),
    input_file("links-file", &O::links_file, "per client-master delays: client,master,delay_out,delay_in"),
    written_after("lock-acquire-timeout",  // where run.ini has always had it
                  field_option("command-timeout", &O::command_timeout, parse_command_timeout, format_duration,
                               "real time Redis has to answer: then the operations in flight end as info, a script "
                               "still running on the embedded server is killed, and the run stops")),
    integer("seed", &O::seed, 0, INT64_MAX, "the run seed: same seed, same history (virtual mode)"),
    {.name = "mode",
     .help = "virtual|paced (default: virtual, or paced for variants that rest on Redis's clock and for "
             "driver:COMMAND, which --mode virtual runs in virtual time: warp, docs/drivers.md)",
     .read = [](O& o, const std::string& text, const std::string&) {
       if (text == "virtual") o.mode = TimeMode::virtual_time;
       else if (text == "paced") o.mode = TimeMode::paced;
       else throw std::invalid_argument("use virtual or paced");
       o.mode_given = true;
     },
     .write = [](const O& o) -> std::optional<std::string> { return to_string(o.mode); },
     // No default in --help: it depends on the variant and the Redis (default_mode).
     .value = RunOption::Value::without_default},
    input_file("clients-file", &O::clients_file, "per-client table: client,skew,drift_ppm,delay_out,delay_in"),
    input_file("actions-file", &O::actions_file, "scripted actions: at,client,action,arg"),
    // Never written: which Redis a replay runs against is the replaying command's to say
    // (semsim scenario --redis); a scenario file may not name one.
    // Read with the masters (read_redis_urls): given N times, the user's N masters.
    {.name = "redis",
     .help = "redis://[user@]host:port[/db] or unix:///path (default: an embedded server); password from "
             "SEMSIM_REDIS_PASSWORD; given N times: your N masters (--masters N)",
     .value = RunOption::Value::repeated},
    // Never written: where a replay's files go is the replaying command's to say (semsim scenario
    // --out); a scenario file may not set it.
    {.name = "out",
     .help = "output folder (history.csv, summary.csv, run.ini, charts)",
     .read = [](O& o, const std::string& text, const std::string&) { o.out = text; },
     .default_text = RunOptions{}.out},
    // Never written: whether a replay draws charts is the replaying command's to say (semsim
    // scenario --charts); a scenario file may not set it.
    never_written(turns_off("no-charts", &O::charts, "do not draw charts")),
    written_after("mode",  // where run.ini has always had it
                  turns_off("no-pipeline", &O::pipeline,
                            "virtual mode: send each instant's requests on their own and wait for the replies, instead "
                            "of pipelining every request that nothing pending can precede (same history, slower; for "
                            "comparison)")),
  };
  return table;
}

// run.ini's order: the table's, but for the options it writes elsewhere (written_after).
std::vector<const RunOption*> run_ini_order() {
  std::vector<const RunOption*> order;
  for (const RunOption& option : run_option_table()) {
    if (option.written_after) continue;
    order.push_back(&option);
    for (const RunOption& moved : run_option_table())
      if (moved.written_after && option.name == moved.written_after) order.push_back(&moved);
  }
  return order;
}

// The text run_options_from reads: a switch's as run.ini writes it.
std::string text_of(const RunOption& option, const po::variable_value& value) {
  if (option.value == RunOption::Value::flag) return value.as<bool>() ? "true" : "false";
  return value.as<std::string>();
}

// The named steps of run_options_from, after every option is read on its own.

void give_sentinel_topology_its_replicas(RunOptions& o) {
  if (o.server.sentinel) o.server.replicas = std::max(o.server.replicas, 2);
}

void read_sentinel_address(const po::variables_map& vm, RunOptions& o) {
  if (vm.count("sentinel") != vm.count("master")) throw std::invalid_argument("--sentinel and --master go together");
  if (!vm.count("sentinel")) return;
  if (vm.count("redis")) throw std::invalid_argument("--sentinel finds the primary: not with --redis");
  const std::string sentinels = vm["sentinel"].as<std::string>();
  parse_sentinels(sentinels);  // bad entries are bad input now, not at connection time
  o.redis_url = "sentinel://" + sentinels + "/" + vm["master"].as<std::string>();
}

void check_fill_memory_has_a_limit(const RunOptions& o) {
  if (o.fill_memory && o.server.maxmemory == 0) throw std::invalid_argument("--fill-memory needs --maxmemory");
}

// Only --sentinel is refused here: --redis with these options is refused when its session opens
// (RedisSession), in that message's words, as it always has been.
void check_embedded_setup_without_sentinel(const po::variables_map& vm, const RunOptions& o) {
  if (!o.server.is_default() && vm.count("sentinel"))
    throw std::invalid_argument("--replicas, --topology, --persistence and --maxmemory set up the embedded Redis: not "
                                "with --redis or --sentinel");
}

// --redis once: the user's Redis; N times: the user's N masters (--masters N, or implied).
void read_redis_urls(const po::variables_map& vm, RunOptions& o) {
  if (!vm.count("redis")) return;
  const auto urls = vm["redis"].as<std::vector<std::string>>();
  if (urls.empty()) return;
  o.redis_url = urls.front();
  o.more_redis_urls.assign(urls.begin() + 1, urls.end());
  if (urls.size() == 1) return;
  const int n = static_cast<int>(urls.size());
  if (vm.count("masters") && !vm["masters"].defaulted() && o.masters != n)
    throw std::invalid_argument("--redis is given " + std::to_string(n) + " times but --masters is " +
                                std::to_string(o.masters) + ": give one URL per master");
  if (n > 9) throw std::invalid_argument("--redis is given " + std::to_string(n) + " times: at most 9 masters");
  o.masters = n;
}

// What several masters cannot go with (docs/redlock.md: out of scope).
void check_masters(const po::variables_map& vm, const RunOptions& o) {
  if (o.masters == 1) return;
  const std::string n = "--masters " + std::to_string(o.masters);
  // A driver over N masters (docs/drivers.md): each client gets one address per master, and its
  // library does what it does with them (npm redlock: Redlock).
  if (!variant_info(o.variant).multi_master && !variant_info(o.variant).real_processes) {
    std::string multi;
    for (const VariantInfo& v : variant_registry())
      if (v.multi_master) multi += v.name + ", ";
    throw std::invalid_argument(n + ": variant " + o.variant + " runs on one Redis; several masters are for " + multi +
                                "script variants with `masters = each`, and driver:COMMAND");
  }
  if (o.server.replicas > 0 || o.server.sentinel)
    throw std::invalid_argument(n + ": the masters of a Redlock run have no replicas (--replicas, --topology sentinel)");
  if (vm.count("sentinel")) throw std::invalid_argument(n + ": not with --sentinel");
  if (o.server.persistence == Persistence::aof_everysec)
    throw std::invalid_argument(n + ": not with --persistence aof-everysec (its fsync runs on the real clock); use "
                                    "none or aof-always");
  if (o.fill_memory) throw std::invalid_argument(n + ": not with --fill-memory");
  if (!o.redis_url.empty() && static_cast<int>(o.more_redis_urls.size()) + 1 != o.masters)
    throw std::invalid_argument(n + " with --redis: give --redis once per master");
}

// A lock (redlock) has one holder: --limit 1, the default for it; another limit is bad input (the
// checker would judge it against a limit the variant never grants).
void give_a_lock_its_limit(const po::variables_map& vm, RunOptions& o) {
  if (!variant_info(o.variant).lock) return;
  const bool given = vm.count("limit") && !vm["limit"].defaulted();
  if (given && o.limit != 1)
    throw std::invalid_argument("--limit " + std::to_string(o.limit) + ": variant " + o.variant +
                                " is a lock, one holder at a time (give --limit 1, or none)");
  o.limit = 1;
}

void choose_mode(const po::variables_map& vm, RunOptions& o) {
  // Asked even when --mode is given: an unknown variant is bad input here, before any output exists.
  const TimeMode variants_mode = default_mode(o.variant, !vm.count("redis") && !vm.count("sentinel"));
  if (!o.mode_given) o.mode = variants_mode;
  const bool drivers = variant_info(o.variant).real_processes;
  if (drivers && o.mode == TimeMode::virtual_time && (vm.count("redis") || vm.count("sentinel")))
    throw std::invalid_argument("--mode virtual with a driver (warp) needs Redis's clock to follow virtual time: the "
                                "embedded Redis, not --redis or --sentinel; use --mode paced (docs/drivers.md, warp)");
  if (drivers && o.mode == TimeMode::paced && (o.server_skew.count() != 0 || o.server_drift_ppm != 0))
    throw std::invalid_argument("--server-skew and --server-drift: a paced driver run is real time, and Redis's own "
                                "clock is the machine's (--mode virtual moves it; docs/drivers.md, warp)");
  if (drivers && o.fill_memory) throw std::invalid_argument("--fill-memory is not for a driver run");
  if (o.server.sentinel && o.mode == TimeMode::virtual_time) {
    if (o.mode_given)
      throw std::invalid_argument("--topology sentinel: the sentinels elect in real time; use --mode paced");
    o.mode = TimeMode::paced;
  }
}

}  // namespace

po::options_description run_options_description() {
  const RunOptions defaults;
  po::options_description o("Run options (durations: 10ms, 1.5s, 2m, at most 100 hours either way; distributions: "
                            "fixed:D, uniform:D1..D2, normal:MEAN,SD, exp:MEAN; delays, holds, think times and "
                            "pauses are never negative; drift at most 1e6 ppm either way)");
  for (const RunOption& option : run_option_table()) {
    const po::value_semantic* value = nullptr;
    switch (option.value) {
      case RunOption::Value::with_default:
        value = po::value<std::string>()->default_value(option.default_text ? *option.default_text
                                                                            : *option.write(defaults));
        break;
      case RunOption::Value::without_default: value = po::value<std::string>(); break;
      case RunOption::Value::flag: value = po::bool_switch(); break;
      case RunOption::Value::repeated: value = po::value<std::vector<std::string>>()->composing(); break;
    }
    o.add_options()(option.name.c_str(), value, option.help.c_str());
  }
  return o;
}

TimeMode default_mode(const std::string& variant, bool embedded_redis) {
  // On a user's Redis, TTL keys and lock expiry live on its real clock: only paced time keeps
  // them meaningful. The embedded server's clock follows virtual time (sim/redis/redis_clock.h).
  if (variant_info(variant).real_processes) return TimeMode::paced;  // real processes live in real time
  return !embedded_redis && variant_info(variant).clock == ClockBasis::redis_ttl ? TimeMode::paced
                                                                                 : TimeMode::virtual_time;
}

RunOptions run_options_from(const po::variables_map& vm, const std::string& base_dir) {
  RunOptions o;
  for (const RunOption& option : run_option_table()) {
    if (!option.read || !vm.count(option.name)) continue;
    const std::string text = text_of(option, vm[option.name]);
    try {
      option.read(o, text, base_dir);
    } catch (const std::exception& e) {
      throw std::invalid_argument("--" + option.name + "=" + text + ": " + e.what());
    }
  }
  give_sentinel_topology_its_replicas(o);
  read_redis_urls(vm, o);
  read_sentinel_address(vm, o);
  check_fill_memory_has_a_limit(o);
  check_embedded_setup_without_sentinel(vm, o);
  check_masters(vm, o);
  give_a_lock_its_limit(vm, o);
  choose_mode(vm, o);
  return o;
}

void write_run_ini(std::ostream& out, const RunOptions& o) {
  static const std::vector<const RunOption*> order = run_ini_order();
  for (const RunOption* option : order)
    if (option->write)
      if (const auto text = option->write(o)) out << option->name << " = " << *text << "\n";
}

}  // namespace semsim
