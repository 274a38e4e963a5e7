#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "algorithms/registry.h"
#include "sim/scenario/client_table.h"
#include "sim/scenario/run_options_io.h"
#include "sim/scenario/scenario.h"

namespace semsim {
namespace {

std::string scenario_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string load_error(const std::string& path) {
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScenarioFile, ReadsVariantsSweepAndExpectations) {
  const auto path = scenario_file("ok.ini",
                                  "variants = basic lua\nclients = 3\nsweep.skew = fixed:0ms uniform:-5ms..5ms\n"
                                  "[expect]\ngranted_min = 1\n[expect.basic]\nover_limit_ms_trend = nondecreasing\n");
  const Scenario s = load_scenario(path);
  ASSERT_EQ(s.runs.size(), 4u);  // 2 variants x 2 sweep values, variant-major
  EXPECT_EQ(s.runs[0].variant, "basic");
  EXPECT_EQ(s.runs[1].skew.text(), "uniform:-5ms..5ms");
  EXPECT_EQ(s.runs[2].variant, "lua");
  EXPECT_EQ(s.runs[3].clients, 3);
  ASSERT_EQ(s.expectations.size(), 2u);
  EXPECT_EQ(s.expectations[1].variant, "basic");
  EXPECT_EQ(s.expectations[1].kind, Expectation::Kind::trend);
}

TEST(ScenarioFile, AnUnknownKeyNamesFileLineAndKey) {
  const auto path = scenario_file("unknown.ini", "variant = basic\n# a comment\nclient = 3\n");
  EXPECT_NE(load_error(path).find(path + ":3: client: unknown key"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, AMalformedValueNamesItsLine) {
  const auto path = scenario_file("malformed.ini", "variant = basic\nclients = 2\nduration = 10 parsecs\n");
  EXPECT_NE(load_error(path).find(path + ":3: --duration=10 parsecs"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, AnUnknownMetricOrVariantInAnExpectationIsAnError) {
  const auto metric = scenario_file("metric.ini", "variant = basic\n[expect]\nhappiness = 1\n");
  EXPECT_NE(load_error(metric).find(metric + ":3: expect.happiness: unknown metric"), std::string::npos);
  const auto variant = scenario_file("variant.ini", "variant = basic\n[expect.fair]\nover_admission = 0\n");
  EXPECT_NE(load_error(variant).find("not among this scenario's variants"), std::string::npos);
}

TEST(ScenarioFile, TwoScriptsWithOneBaseNameGetFoldersOfTheirOwn) {
  EXPECT_EQ(variant_labels({"script:a/semaphore.ini", "script:../b/semaphore.ini", "lua", "script:c/lease.ini"}),
            (std::vector<std::string>{"a-semaphore", "b-semaphore", "lua", "lease"}));
  EXPECT_EQ(variant_labels({"script:x/a/s.ini", "script:y/a/s.ini"}), (std::vector<std::string>{"x-a-s", "y-a-s"}));
  EXPECT_EQ(variant_labels({"script:s.ini", "script:./s.ini"}), (std::vector<std::string>{"s", "s-2"}));
}

TEST(ScenarioFile, AnExpectationOnABaseNameThatTwoScriptsShareIsAmbiguous) {
  const std::string variants = "variants = script:a/semaphore.ini script:b/semaphore.ini\n";
  const auto ambiguous = scenario_file("ambiguous.ini", variants + "[expect.semaphore]\nover_admission = 0\n");
  EXPECT_NE(load_error(ambiguous).find(ambiguous + ":3: expect.semaphore.over_admission: 'semaphore' names 2 script "
                                       "variants: name one as written (script:FILE.ini) or by its label "
                                       "(a-semaphore, b-semaphore)"),
            std::string::npos)
      << load_error(ambiguous);
  const auto by_label = scenario_file("by_label.ini", variants + "[expect.b-semaphore]\nover_admission = 0\n");
  EXPECT_EQ(load_error(by_label), "");
}

TEST(ScenarioFile, ATrendNeedsASweep) {
  const auto path = scenario_file("trend.ini", "variant = basic\n[expect]\nover_admission_trend = increasing\n");
  EXPECT_NE(load_error(path).find("a trend needs a sweep"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, TheRedisAndTheOutputFolderAreTheCommandLinesToChoose) {
  const auto path = scenario_file("redis.ini", "variant = basic\nredis = redis://localhost\n");
  EXPECT_NE(load_error(path).find(path + ":2: redis: not allowed"), std::string::npos) << load_error(path);
}

TEST(ScenarioFile, ASweepOfNoOptionASwitchTheVariantsOrACommandLineOptionNamesItsLine) {
  // Each once ended in boost::bad_any_cast (a text stored where a switch or a list belongs) or
  // ran with the swept value ignored.
  const std::pair<const char*, const char*> cases[] = {
      {"sweep.fill-memory = 1 2", "'fill-memory' is a switch"},
      {"sweep.redis = a b", "redis: not allowed"},
      {"sweep.out = a b", "out: not allowed"},
      {"sweep.no-charts = 1 2", "no-charts: not allowed"},
      {"sweep.variant = basic lua", "the variants are not swept"},
      {"sweep. = 1 2", "no option named"},  // once boost's ambiguous_option, uncaught
  };
  for (const auto& [line, error] : cases) {
    const auto path = scenario_file("sweep-refused.ini", std::string("variant = basic\n") + line + "\n");
    EXPECT_NE(load_error(path).find(path + ":2: sweep."), std::string::npos) << line << ": " << load_error(path);
    EXPECT_NE(load_error(path).find(error), std::string::npos) << line << ": " << load_error(path);
  }
}

TEST(ScenarioFile, AnEmptyFileADirectoryAndDevNullAreErrors) {
  const auto empty = scenario_file("empty.ini", "# only a comment\n");
  EXPECT_NE(load_error(empty).find("nothing to run"), std::string::npos) << load_error(empty);
  EXPECT_NE(load_error("/dev/null").find("nothing to run"), std::string::npos);
  EXPECT_NE(load_error(::testing::TempDir()).find("is a directory"), std::string::npos);
}

TEST(ScenarioFile, AnExpectationOnANumberMustBeANumber) {
  const auto path = scenario_file("abc.ini", "clients = 2\n[expect]\nover_admission = abc\n");
  EXPECT_NE(load_error(path).find(path + ":3: expect.over_admission: 'abc' is not a number"), std::string::npos)
      << load_error(path);
  // Words stay words where the column holds words.
  EXPECT_EQ(load_error(scenario_file("word.ini", "clients = 2\n[expect]\nliveness = valid\n")), "");
}

TEST(ScenarioFile, SyntaxErrorsAndRepeatedKeysNameTheirLine) {
  const auto syntax = scenario_file("syntax.ini", "clients = 2\nno equals sign here\n");
  EXPECT_NE(load_error(syntax).find(syntax + ":2: "), std::string::npos) << load_error(syntax);
  const auto twice = scenario_file("twice.ini", "seed = 1\nclients = 2\nclients = 3\n");
  EXPECT_NE(load_error(twice).find(twice + ":2: "), std::string::npos) << load_error(twice);
}

TEST(ScenarioFile, NegativeLengthsAndOverflowingDriftsAreRefused) {
  const auto delay = scenario_file("neg_delay.ini", "clients = 2\ndelay = fixed:-5ms\n");
  EXPECT_NE(load_error(delay).find(delay + ":2: "), std::string::npos) << load_error(delay);
  const auto drift = scenario_file("big_drift.ini", "clients = 2\ndrift = fixed:1e308\n");
  EXPECT_NE(load_error(drift).find("out of range"), std::string::npos) << load_error(drift);
  const auto skew = scenario_file("big_skew.ini", "clients = 2\nskew = fixed:100000000s\n");
  EXPECT_NE(load_error(skew).find(skew + ":2: "), std::string::npos) << load_error(skew);
}

// Found by scenario_fuzz: Boost's own message for a bad line loops for ever when the line holds
// its placeholder "%invalid_line%". The error must come at once, naming the line.
TEST(ScenarioFile, ALineHoldingBoostsPlaceholderIsRefusedAtOnce) {
  const auto path = scenario_file("placeholder.ini", "clients = 2\n%%%invalid_line%%%\n");
  EXPECT_NE(load_error(path).find(path + ":2: not a `key = value` line"), std::string::npos) << load_error(path);
}

namespace po = boost::program_options;
using CommandLine = std::vector<std::pair<std::string, std::string>>;

// run.ini as write_run_ini writes it for the options of this command line ("" after a name: a switch).
std::string run_ini_of_command_line(const CommandLine& options) {
  std::vector<std::string> args;
  for (const auto& [name, value] : options) args.push_back("--" + name + (value.empty() ? "" : "=" + value));
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(run_options_description()).run(), vm);
  po::notify(vm);
  std::ostringstream ini;
  write_run_ini(ini, run_options_from(vm));
  return ini.str();
}

std::string run_ini_of_run_ini(const std::string& text) {
  std::istringstream in(text);
  po::variables_map vm;
  po::store(po::parse_config_file(in, run_options_description()), vm);
  po::notify(vm);
  std::ostringstream ini;
  write_run_ini(ini, run_options_from(vm));
  return ini.str();
}

// run.ini's line for an option ("" when it has none).
std::string line_of_option(const std::string& ini, const std::string& name) {
  std::istringstream lines(ini);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(name + " = ", 0) == 0) return line;
  return "";
}

// Where runs go and which Redis they use are the replaying command line's to say: never in run.ini.
const std::set<std::string> kNeverWritten = {"redis", "sentinel", "master", "out", "no-charts"};

// Every option run.ini carries, at a value other than its default, all in one consistent run
// (--topology sentinel wants paced time; --fill-memory wants --maxmemory).
const CommandLine kNonDefaults = {
    {"variant", "script:" SEMSIM_SOURCE_DIR "/examples/lua-script/semaphore.ini"},
    {"clients", "3"},
    {"limit", "2"},
    {"duration", "1500ms"},
    {"timeout", "2s"},
    {"hold", "uniform:1ms..3ms"},
    {"think", "fixed:7ms"},
    {"skew", "normal:0ms,1ms"},
    {"drift", "uniform:-5..5"},
    {"delay", "exp:1ms"},
    {"delay-out", "fixed:2ms"},
    {"delay-in", "fixed:3ms"},
    {"spike-probability", "0.3"},
    {"spike", "fixed:4ms"},
    {"refresh-every", "5ms"},
    {"retries", "3"},
    {"retry-delay", "exp:2ms"},
    {"pause-rate", "0.1"},
    {"pause-length", "fixed:2ms"},
    {"crash-rate", "0.123456789"},
    {"restart-rate", "0.5"},
    {"disconnect-rate", "0.25"},
    {"redis-pause-rate", "1e-3"},
    {"redis-pause-length", "fixed:7ms"},
    {"sample-every", "0ms"},
    {"lock-timeout", "2s"},
    {"lock-acquire-timeout", "5ms"},
    {"server-skew", "-3ms"},
    {"server-drift", "-12.5"},
    {"replicas", "3"},
    {"topology", "sentinel"},
    {"persistence", "aof-always"},
    {"maxmemory", "10000000"},
    {"maxmemory-policy", "allkeys-lru"},
    {"fill-memory", ""},
    {"command-timeout", "2s"},
    {"seed", "42"},
    {"mode", "paced"},
    {"clients-file", "clients.csv"},  // relative: run.ini makes it absolute
    {"actions-file", "actions.csv"},
    {"no-pipeline", ""},
};

// The options of several masters, at values other than their defaults, in one consistent run (no
// replicas, no sentinel: the first set cannot have them).
const CommandLine kMastersNonDefaults = {
    {"variant", "redlock"},         {"masters", "3"},
    {"master-timeout", "20ms"},     {"drift-factor", "0.02"},
    {"masters-file", "masters.csv"}, {"links-file", "links.csv"},
};
// Written only for runs of several masters, so that a one-master run's run.ini stays as it was.
const std::set<std::string> kWrittenForSeveralMasters = {"masters", "master-timeout", "drift-factor"};

TEST(RunIni, ReadingRunIniBackWritesTheSameRunIniForEveryOption) {
  std::set<std::string> covered(kNeverWritten);
  for (const auto& [name, value] : kNonDefaults) covered.insert(name);
  for (const auto& [name, value] : kMastersNonDefaults) covered.insert(name);
  const po::options_description description = run_options_description();
  for (const auto& option : description.options())
    EXPECT_TRUE(covered.count(option->long_name()))
        << "--" << option->long_name() << ": give it a non-default value here";

  const std::string defaults = run_ini_of_command_line({});
  const std::string written = run_ini_of_command_line(kNonDefaults);
  for (const auto& [name, value] : kNonDefaults) {
    EXPECT_NE(line_of_option(written, name), "") << "--" << name << " is not in run.ini:\n" << written;
    EXPECT_NE(line_of_option(written, name), line_of_option(defaults, name))
        << "--" << name << " is written as its default";
  }
  EXPECT_EQ(run_ini_of_run_ini(written), written);
}

TEST(RunIni, ReadingRunIniBackWritesTheSameRunIniForTheMastersOptions) {
  const std::string defaults = run_ini_of_command_line({{"variant", "redlock"}, {"masters", "3"}});
  const std::string written = run_ini_of_command_line(kMastersNonDefaults);
  for (const auto& [name, value] : kMastersNonDefaults) {
    EXPECT_NE(line_of_option(written, name), "") << "--" << name << " is not in run.ini:\n" << written;
    if (name != "variant" && name != "masters") {
      EXPECT_NE(line_of_option(written, name), line_of_option(defaults, name)) << "--" << name << " is written as its default";
    }
  }
  EXPECT_EQ(run_ini_of_run_ini(written), written);
  // A one-master run writes none of them.
  const std::string one = run_ini_of_command_line({});
  for (const std::string& name : kWrittenForSeveralMasters) EXPECT_EQ(line_of_option(one, name), "") << one;
}

TEST(RunIni, WhereRunsGoAndWhichRedisTheyUseAreNeverWritten) {
  const std::string sentinel =
      run_ini_of_command_line({{"sentinel", "localhost:26379"}, {"master", "m"}, {"out", "x"}, {"no-charts", ""}});
  const std::string redis = run_ini_of_command_line({{"redis", "redis://localhost:6379"}});
  for (const std::string& name : kNeverWritten) {
    EXPECT_EQ(line_of_option(sentinel, name), "") << sentinel;
    EXPECT_EQ(line_of_option(redis, name), "") << redis;
  }
}

TEST(RunIni, EveryDefaultInHelpIsWhatRunIniWritesForARunGivenNoOptions) {
  const std::string defaults = run_ini_of_command_line({});
  const po::options_description description = run_options_description();
  for (const auto& option : description.options()) {
    boost::any value;
    const bool shows_default = option->semantic()->apply_default(value) && option->semantic()->max_tokens() != 0;
    if (!shows_default) continue;  // none, or a switch
    const std::string name = option->long_name();
    const std::string shown = boost::any_cast<std::string>(value);
    if (kNeverWritten.count(name)) continue;
    if (kWrittenForSeveralMasters.count(name)) {
      if (name != "masters") {
        EXPECT_EQ(line_of_option(run_ini_of_command_line({{"variant", "redlock"}, {"masters", "2"}}), name),
                  name + " = " + shown);
      }
      continue;
    }
    EXPECT_EQ(line_of_option(defaults, name), name + " = " + shown);
  }
  // --out is never written: its default is RunOptions's own.
  boost::any out;
  ASSERT_TRUE(description.find("out", false).semantic()->apply_default(out));
  EXPECT_EQ(boost::any_cast<std::string>(out), RunOptions{}.out);
  // A default RunOptions is a run given no options, but for the variant that the readers choose.
  RunOptions plain;
  plain.variant = default_variant().name;
  std::ostringstream ini;
  write_run_ini(ini, plain);
  EXPECT_EQ(ini.str(), defaults);
}

TEST(RunIni, RatesAndProbabilitiesComeBackExactly) {
  RunOptions o;
  o.variant = "basic";
  o.spike_probability = 0.1 + 0.2;
  o.crash_rate = 1.0 / 3;
  o.server_drift_ppm = -1e6 / 7;
  std::ostringstream ini;
  write_run_ini(ini, o);
  std::istringstream in(ini.str());
  po::variables_map vm;
  po::store(po::parse_config_file(in, run_options_description()), vm);
  const RunOptions back = run_options_from(vm);
  EXPECT_EQ(back.spike_probability, o.spike_probability);
  EXPECT_EQ(back.crash_rate, o.crash_rate);
  EXPECT_EQ(back.server_drift_ppm, o.server_drift_ppm);
}

// run.ini's keys, their order and their formats, as run.ini has always had them: a diff of two
// run.ini files shows only what the runs do differently.
TEST(RunIni, ARunGivenNoOptionsIsWrittenAsAlways) {
  EXPECT_EQ(run_ini_of_command_line({}),
            "variant = basic\nclients = 10\nlimit = 5\nduration = 10s\ntimeout = 10s\nhold = fixed:50ms\n"
            "think = exp:50ms\nskew = fixed:0ms\ndrift = fixed:0\ndelay = fixed:0ms\nspike-probability = 0\n"
            "spike = fixed:100ms\nrefresh-every = 0ms\nretries = 0\nretry-delay = fixed:1ms\npause-rate = 0\n"
            "pause-length = fixed:1s\ncrash-rate = 0\nrestart-rate = 0\ndisconnect-rate = 0\nredis-pause-rate = 0\n"
            "redis-pause-length = fixed:100ms\nsample-every = 50ms\nlock-timeout = 10s\nlock-acquire-timeout = 10ms\n"
            "command-timeout = 10s\nserver-skew = 0ms\nserver-drift = 0\nreplicas = 0\ntopology = single\n"
            "persistence = none\nmaxmemory = 0\nmaxmemory-policy = noeviction\nfill-memory = false\nseed = 1\n"
            "mode = virtual\n");
  // The options written only when given, where they go.
  const std::string given =
      run_ini_of_command_line({{"delay-out", "fixed:1ms"}, {"no-pipeline", ""}, {"clients-file", "/c.csv"}});
  EXPECT_NE(given.find("delay = fixed:0ms\ndelay-out = fixed:1ms\nspike-probability = 0\n"), std::string::npos)
      << given;
  EXPECT_NE(given.find("mode = virtual\nno-pipeline = true\nclients-file = /c.csv\n"), std::string::npos) << given;
}

}  // namespace
}  // namespace semsim
