// semsim check: property-based search (RapidCheck) for invariant violations of one variant.
// Parses options, runs the search (property_search.h) and prints what it found.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <vector>

#include <boost/program_options.hpp>

#include "algorithms/api/semaphore.h"
#include "algorithms/registry.h"
#include "cli/commands.h"
#include "cli/shard_options.h"
#include "reports/history/text_format.h"
#include "sim/core/duration.h"
#include "sim/core/interrupt.h"
#include "sim/redis/shared_core.h"
#include "sim/run/sweep_runner.h"
#include "sim/search/property_search.h"
#include "sim/search/search_shards.h"

namespace semsim {

namespace po = boost::program_options;

namespace {

constexpr const char* kAbout = R"(
Each case is a whole generated scenario: 1..max-clients clients and a limit below their number,
per-client clock skew (+-300ms) and drift (+-2000 ppm), per-direction network delays and spikes,
hold/think workload, refresh, pauses and crashes at random rates, and scripted actions (acquires
at exact times, pauses, crashes, clock jumps, releases, refreshes); 200ms..2s of simulated time,
semaphore timeout 20ms..1s. Every case runs in virtual mode on the embedded server, Redis's clock
included: TTLs and lock expiry fire at their simulated instants.

Properties:
  safety         over_admission = 0, inside the variant's preconditions (every variant)
  liveness       no liveness gap: a free permit goes to whoever asks (where the variant says so)
  lease honesty  an ok'd acquire/refresh invoked at t keeps its permit until t + timeout (ditto)

Per variant (algorithms/registry.h): the seeds' preconditions (--no-preconditions searches
outside them) and the properties asserted:
)";

constexpr const char* kAboutEnd = R"(
Exit: 0 no violation in --cases cases; 1 a safety violation found (over-admission or lease
honesty; counterexample.ini written under --out, replay it with `semsim scenario`: its [expect]
fails again); 3 a liveness violation alone (counterexample.ini too); 2 bad input or setup error,
or no verdict: no violation, but the cases never exercised the variant (no acquire granted, or
more than half of the operations unknown: an error reply, a dropped connection); 130 interrupted.
)";

// The command as a shell takes it back ("semsim check" and the arguments, quoted where needed).
std::string quote_args(int argc, char** argv) {
  std::string out = "semsim check";
  for (int i = 1; i < argc; ++i) out += " " + shell_quote(argv[i]);
  return out;
}

void print_figures(std::ostream& out, const SearchReport& r) {
  out << std::fixed << std::setprecision(2) << "cases run: " << r.cases_run << " in " << r.seconds << " s ("
      << std::setprecision(1) << (r.seconds > 0 ? (r.cases_run + r.shrink_tries) / r.seconds : 0)
      << " runs/s, shrink runs included)";
  if (r.discarded) out << ", " << r.discarded << " discarded";
  out << "\n";
  if (!r.found) return;
  out << std::setprecision(2) << "first failure: case #" << r.first_failure_case << " after "
      << r.seconds_to_first_failure << " s\n"
      << "shrinking: " << r.shrink_steps << " steps accepted, " << r.shrink_tries << " runs\n"
      << "size: clients " << r.first.clients << " -> " << r.minimal.clients << ", actions " << r.first.actions.size()
      << " -> " << r.minimal.actions.size() << " (scripted acquires " << r.first.scripted_acquires() << " -> "
      << r.minimal.scripted_acquires() << ")\n";
}

// The search the command line asks for (but --redis and --jobs). Throws std::invalid_argument.
SearchSettings read_settings(const po::variables_map& vm, int argc, char** argv) {
  SearchSettings s;
  if (!vm.count("variant")) throw std::invalid_argument("--variant is required");
  s.variant = vm["variant"].as<std::string>();
  // A driver's cases run its real processes in warp (virtual time: docs/drivers.md, warp).
  const bool driver = s.variant.starts_with("driver:");
  if (!driver) make_semaphore(s.variant, SemaphoreConfig{});  // throws naming the known variants
  if (driver && vm.count("redis"))
    throw std::invalid_argument("--variant driver:...: the search runs the driver in virtual time, which needs the "
                                "embedded Redis (its clock follows virtual time), not --redis");
  if (vm.count("limit")) {
    s.limit = vm["limit"].as<int>();
    if (s.limit < 1) throw std::invalid_argument("--limit must be at least 1");
    if (variant_info(s.variant).lock && s.limit != 1)
      throw std::invalid_argument("--limit " + std::to_string(s.limit) + ": variant " + s.variant + " is a lock, one holder");
  }
  if (vm.count("timeout")) {
    s.timeout_us = parse_duration(vm["timeout"].as<std::string>()).count();
    if (s.timeout_us < 1000) throw std::invalid_argument("--timeout must be at least 1ms");
  }
  s.cases = vm["cases"].as<int>();
  if (s.cases < 1) throw std::invalid_argument("--cases must be at least 1");
  s.seed = vm["seed"].as<std::uint64_t>();
  s.max_clients = vm["max-clients"].as<int>();
  if (s.max_clients < 2 || s.max_clients > 64) throw std::invalid_argument("--max-clients must be between 2 and 64");
  s.out = vm["out"].as<std::string>();
  s.preconditions = !vm["no-preconditions"].as<bool>();
  s.allow_delay = vm["allow-delay"].as<bool>();
  s.server_jumps = vm["server-jumps"].as<bool>();
  s.server_faults = vm["server-faults"].as<bool>();
  s.masters = vm["masters"].as<int>();
  if (s.masters < 1 || s.masters > 9) throw std::invalid_argument("--masters must be between 1 and 9");
  if (s.masters > 1 && !variant_info(s.variant).multi_master)
    throw std::invalid_argument("--masters " + std::to_string(s.masters) + ": variant " + s.variant +
                                " runs on one Redis (several masters: redlock, redlock-semaphore, scripts with masters = each)");
  if (s.masters > 1 && s.server_faults)
    throw std::invalid_argument("--masters: the masters' own faults are generated; --server-faults is for one Redis");
  if (vm.count("drop-precondition")) {
    s.dropped = vm["drop-precondition"].as<std::vector<std::string>>();
    Preconditions probe;
    for (const std::string& name : s.dropped) drop_precondition(probe, name);  // a bad name is bad input now
  }
  if (vm.count("shard")) s.shard = parse_shard(vm["shard"].as<std::string>());
  if (s.shard.count > s.cases)
    throw std::invalid_argument("--shard " + s.shard.text() + ": --cases " + std::to_string(s.cases) + " gives some of " +
                                std::to_string(s.shard.count) + " shards no case");
  s.progress = isatty(STDERR_FILENO);
  s.reproduce = quote_args(argc, argv);
  return s;
}

// What is searched: the variant, its properties and the preconditions the cases keep to.
void print_plan(std::ostream& out, const SearchSettings& s) {
  const Properties props = properties_for(s.variant);
  out << "semsim check: variant " << s.variant << ", seed " << s.seed << ", " << s.cases << " cases, up to "
      << s.max_clients << " clients"
      << (s.limit ? ", limit " + std::to_string(s.limit) : std::string())
      << (s.timeout_us ? ", timeout " + format_duration(Micros(s.timeout_us)) : std::string())
      << (s.variant.starts_with("driver:") ? " (the driver's real processes, in virtual time: warp)" : "") << "\n"
      << "properties: safety" << (props.liveness ? ", liveness" : "") << (props.lease_honesty ? ", lease honesty" : "")
      << "\npreconditions: "
      << (s.preconditions ? preconditions_for(s.variant).text : std::string("none (--no-preconditions)"))
      << (s.preconditions && s.allow_delay ? " [--allow-delay: network delay allowed]" : "")
      << [&] {
           std::string dropped;
           for (const std::string& name : s.dropped) dropped += (dropped.empty() ? "" : ", ") + name;
           return dropped.empty() || !s.preconditions ? std::string() : " [dropped: " + dropped + "]";
         }()
      << (s.masters > 1 ? "\nmasters: " + std::to_string(s.masters) + " per case, each with its clock rate and jumps, "
                          "restarts with downtime and pauses, and clients partitioned from some"
                        : std::string())
      << (s.server_jumps ? "\nserver clock: jumps and drift generated (outside the seeds' preconditions, which "
                           "assume a monotone server clock)"
                         : "")
      << (s.server_faults ? "\nRedis faults: restarts, failovers, dropped connections and pauses generated (outside "
                            "the seeds' preconditions, which assume a Redis that never loses a write)"
                          : "")
      << "\n";
  if (const Micros step = variant_info(s.variant).timeout_step; step.count() > 0)
    out << "time scale: timeout.step " << format_duration(step) << ": every timeout a multiple of it"
        << (step > Micros(20'000) ? ", the workload's times scaled by step / 20 ms" : "") << "\n";
  if (s.shard.sharded())
    out << "shard " << s.shard.text() << ": runs cases " << s.shard.index << ", " << s.shard.index + s.shard.count
        << ", ... (" << s.shard.owned(s.cases) << " of " << s.cases << "), every case generated as the whole search does\n";
}

// The verdict, and on a violation the shrunk case with how to reproduce and replay it.
void print_result(std::ostream& out, const SearchSettings& s, const SearchReport& r) {
  if (!r.found) {
    if (!r.not_exercised.empty())
      out << "NO VERDICT: the variant was never exercised: " << r.not_exercised << "\n";
    else
      out << "no violation in " << r.cases_run << " cases (" << r.exercise.granted << " grants of "
          << r.exercise.acquires << " acquires, " << r.exercise.operations << " operations, " << r.exercise.unknown
          << " unknown)\n";
    print_figures(out, r);
    return;
  }
  out << "VIOLATION: " << to_string(r.violation) << ": " << r.minimal_outcome.detail << "\n"
      << "  first at case #" << r.first_failure_case << ": " << describe(r.first) << "\n"
      << "  shrunk to: " << describe(r.minimal) << "\n"
      << "  preconditions:        " << preconditions_verdict(r.minimal, s.variant, s.lock_timeout_us) << "\n"
      << "  counterexample:       " << r.counterexample << " (with the clients.csv and actions.csv beside it)\n"
      << "  replay the case:      semsim scenario " << shell_quote(r.counterexample)
      << (r.replay_failed ? "  (replayed: fails again)" : "  (replay did not fail its expectations: see the file)")
      << "\n"
      << "  against a real client: semsim scenario " << r.counterexample
      << " --variant \"driver:COMMAND\" --repeat 10  (docs/drivers.md)\n"
      << "  reproduce the search: " << s.reproduce << "\n";
  print_figures(out, r);
}

}  // namespace

int check_command(int argc, char** argv) {
  po::options_description o("semsim check --variant V [options]: property-based search for invariant violations");
  o.add_options()("help,h", "this help")
    ("variant", po::value<std::string>(), "the variant to search (see `semsim run --list-variants`)")
    ("cases", po::value<int>()->default_value(100), "how many generated cases must pass")
    ("seed", po::value<std::uint64_t>()->default_value(1), "RapidCheck's seed: the same seed, the same search")
    ("max-clients", po::value<int>()->default_value(6), "the most clients a case may have (2..64)")
    ("limit", po::value<int>(), "every case with this many permits (default: drawn per case; a lock: 1). For a "
                                "driver, what its library is set up with (SEMSIM_LIMIT)")
    ("timeout", po::value<std::string>(), "every case with this lease (default: drawn per case). For a driver, what "
                                          "its library is set up with (SEMSIM_TIMEOUT_MS)")
    ("jobs", po::value<int>(), "cases run at a time, each on a Redis of its own (default: the number of cores); "
                               "the same seed finds the same first case and counterexample whatever N is")
    ("out", po::value<std::string>()->default_value("semsim-out/check"), "where counterexample.ini and its CSVs go")
    ("redis", po::value<std::string>(), "run against this Redis instead of an embedded one (see semsim run --help)")
    ("no-preconditions", po::bool_switch(), "search outside the variant's preconditions too")
    ("server-jumps", po::bool_switch(), "also generate jumps and drift of Redis's own clock (outside the seeds' "
                                        "preconditions, which assume a monotone server clock)")
    ("server-faults", po::bool_switch(), "also generate faults of Redis itself: restarts (persistence none or "
                                         "aof-always), failovers to a lagging replica, dropped connections and "
                                         "pauses (outside the seeds' preconditions, which assume a Redis that never "
                                         "loses a write)")
    ("allow-delay", po::bool_switch(), "keep the other preconditions but allow network delay (shows the INCR/ZADD race)")
    ("masters", po::value<int>()->default_value(1), "Redlock: every case over N masters (1..9), with each master's "
                                                    "clock rate and jumps, restarts with downtime, pauses, and clients "
                                                    "partitioned from some of them (docs/redlock.md)")
    ("drop-precondition", po::value<std::vector<std::string>>()->composing(),
     "search outside this one precondition, keeping the others (repeatable): lease-budget, clock-spread, no-delay, "
     "bounded-delay, within-validity, master-clock-rate, no-master-jumps, delayed-restarts")
    ("shard", po::value<std::string>(), kShardHelp);
  SearchSettings s;
  std::string redis_url;
  int jobs = 1;
  std::string unsharded;  // what a shard records for its merge
  try {
    po::variables_map vm;
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(o).run();
    unsharded = unsharded_command("check", parsed);
    po::store(parsed, vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << o << kAbout << preconditions_help() << kAboutEnd << "\n" << docs_footer();
      return kExitOk;
    }
    s = read_settings(vm, argc, argv);
    if (vm.count("redis")) redis_url = vm["redis"].as<std::string>();
    if (s.server_faults && !redis_url.empty())
      throw std::invalid_argument("--server-faults restarts and fails over the embedded Redis: not with --redis");
    jobs = vm.count("jobs") ? vm["jobs"].as<int>() : default_jobs();
    if (jobs < 1 || jobs > 64) throw std::invalid_argument("--jobs must be between 1 and 64");
  } catch (const std::exception& e) {
    std::cerr << "semsim check: " << e.what() << "\n";
    return kExitBadInput;
  }

  print_plan(std::cout, s);
  try {
    std::filesystem::create_directories(s.out);
    remove_older_manifest(s.out);  // an older shard's
    // Every server is started here, on the main thread: a server dies with the thread that forked it.
    std::vector<std::unique_ptr<RedisSession>> servers;
    std::vector<RedisSession*> redis;
    for (int j = 0; j < jobs; ++j) redis.push_back(servers.emplace_back(std::make_unique<RedisSession>(redis_url)).get());
    // Every master too (the cases' persistence restarts a master where it must).
    if (s.masters > 1)
      for (auto& server : servers) server->use_masters(std::vector<ServerSetup>(static_cast<std::size_t>(s.masters)), {});
    if (jobs > 1)  // a core each (shared_core.h)
      for (int j = 0; const int cpu : job_cores(static_cast<std::size_t>(jobs))) servers[j++]->set_home_core(cpu);
    const SearchReport r = search(s, redis);
    if (s.shard.sharded())  // also when it stopped early: the merge names what it did not judge
      search_manifest(s, r, servers[0]->describe(), servers[0]->server_version(), unsharded).write(s.out);
    if (!r.error.empty()) {
      // Interrupted: what was searched so far is a partial result, and its first line says so.
      if (interrupt_signal()) std::cout << "PARTIAL: " << r.error << std::endl;
      std::cerr << "semsim check: " << r.error << "\n";
      return exit_code_after_error();
    }
    print_result(std::cout, s, r);
    if (s.shard.sharded())
      std::cout << "shard " << s.shard.text() << ": judged its cases up to #" << r.judged_through
                << "; merge the shards: semsim merge DIR... --out DIR (docs/scale-out.md)\n";
    if (!r.not_exercised.empty()) {
      std::cerr << "semsim check: no verdict: " << r.not_exercised
                << " (a search that never exercised the variant is no pass: reports/DEFINITIONS.md, Exercised)\n";
      return exit_code(Finding::not_exercised);
    }
    if (!r.found) return exit_code(Finding::none);
    return exit_code(r.violation == Violation::liveness ? Finding::liveness_violation_alone : Finding::safety_violation);
  } catch (const std::exception& e) {
    std::cerr << "semsim check: " << what_failed(e) << "\n";
    return exit_code_after_error();
  }
}

}  // namespace semsim
