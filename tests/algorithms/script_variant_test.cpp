// `script:FILE.ini` variants on a real Redis: every error path names the file (and line) at
// fault, the example re-expression of the built-in `lua` behaves exactly as it does, and the
// broken example over-admits.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "algorithms/api/semaphore.h"
#include "algorithms/lua.h"
#include "algorithms/scripts/script_spec.h"
#include "algorithms/scripts/script_variant.h"
#include "tests/algorithms/direct_client.h"
#include "marks/coverage_marks.h"

namespace semsim::test {
namespace {

namespace fs = std::filesystem;

const std::string kExamples = std::string(SEMSIM_SOURCE_DIR) + "/examples/";
const std::string kLuaExample = kExamples + "lua-script/semaphore.ini";
const std::string kBrokenExample = std::string(SEMSIM_SOURCE_DIR) + "/scenarios/broken-script/semaphore.ini";

// Scripts that are enough for a valid INI file when a test is about something else.
constexpr const char* kReturn1 = "return 1\n";

class ScriptVariantTest : public RedisFixture {
 protected:
  void SetUp() override {
    RedisFixture::SetUp();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("semsim-script-test-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    RedisFixture::TearDown();
  }

  // Writes `text` to dir_/name and returns its path.
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  // An INI naming acquire.lua and release.lua (both `return 1` unless written otherwise first).
  std::string ini(const std::string& text) {
    if (!fs::exists(dir_ / "acquire.lua")) write("acquire.lua", kReturn1);
    if (!fs::exists(dir_ / "release.lua")) write("release.lua", kReturn1);
    return write("v.ini", text);
  }

  SemaphoreConfig config(int limit) const {
    SemaphoreConfig c;
    c.name = prefix() + "sem";
    c.limit = limit;
    c.timeout = Micros{1'000'000};
    return c;
  }
  std::unique_ptr<Semaphore> make(const std::string& ini_path, int limit = 1) {
    auto semaphore = make_script_semaphore(ini_path, config(limit));
    auto preparer = client("prepare");
    run(semaphore->prepare(*preparer));
    return semaphore;
  }
  // The SetupError's message, or "" (a test failure) if none was thrown.
  std::string setup_error(const std::string& ini_path) {
    try {
      make(ini_path);
    } catch (const SetupError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no SetupError for " << ini_path;
    return {};
  }

  fs::path dir_;
};

// Includes `needle`, or says what it got.
::testing::AssertionResult has(const std::string& haystack, const std::string& needle) {
  if (haystack.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << needle << "' not in: " << haystack;
}

// ---- errors at setup --------------------------------------------------------------------------

TEST_F(ScriptVariantTest, MissingIniFileNamesIt) {
  const std::string path = (dir_ / "nowhere.ini").string();
  const std::string error = setup_error(path);
  EXPECT_TRUE(has(error, path + ": cannot read the script variant's INI file"));
}

TEST_F(ScriptVariantTest, MissingScriptFileNamesTheIniFileAndLine) {
  const std::string path = ini("# a comment\n\nacquire = acquire.lua\nrelease = gone/release.lua\n");
  const std::string error = setup_error(path);
  EXPECT_TRUE(has(error, path + ":4: release: cannot read script 'gone/release.lua'"));
  EXPECT_TRUE(has(error, (dir_ / "gone/release.lua").string()));  // where it looked: the INI's folder
}

TEST_F(ScriptVariantTest, UnknownKeyNamesFileAndLine) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\nacquire.grant = 1\n");
  EXPECT_TRUE(has(setup_error(path), path + ":3: acquire.grant: unknown key"));
}

TEST_F(ScriptVariantTest, UnknownKeyInsideASectionNamesFileAndLine) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\n[acquire]\nkeys = {key}\n"
                               "granted = 1  # fine\n\nrefusd = 0\n");
  EXPECT_TRUE(has(setup_error(path), path + ":7: acquire.refusd: unknown key"));
}

TEST_F(ScriptVariantTest, SectionKeysMeanTheSameAsDottedKeys) {
  write("acquire.lua", "return 7\n");
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\n[acquire]\ngranted = 7\n");
  auto semaphore = make(path);
  auto c = client("c");
  EXPECT_TRUE(run(semaphore->acquire(*c)));
}

TEST_F(ScriptVariantTest, UnknownPlaceholderNamesFileAndLine) {
  const std::string path = ini("acquire = acquire.lua\nacquire.args = {id} {nowms}\nrelease = release.lua\n");
  const std::string error = setup_error(path);
  EXPECT_TRUE(has(error, path + ":2: acquire.args: unknown placeholder {nowms}"));
}

TEST_F(ScriptVariantTest, UnclosedBraceNamesFileAndLine) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\nrelease.keys = {key\n");
  EXPECT_TRUE(has(setup_error(path), path + ":3: release.keys: unclosed '{'"));
}

TEST_F(ScriptVariantTest, KeyGivenTwiceNamesTheSecondLine) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\nacquire.granted = 1\n"
                               "acquire.granted = 2\n");
  EXPECT_TRUE(has(setup_error(path), path + ":4: acquire.granted: given twice (first on line 3)"));
}

TEST_F(ScriptVariantTest, LineThatIsNotKeyValueNamesFileAndLine) {
  const std::string path = ini("acquire = acquire.lua\nrelease release.lua\n");
  EXPECT_TRUE(has(setup_error(path), path + ":2: not `key = value`"));
}

TEST_F(ScriptVariantTest, MissingAcquireOrReleaseNamesTheFile) {
  EXPECT_TRUE(has(setup_error(ini("release = release.lua\n")), "v.ini: acquire: missing"));
  EXPECT_TRUE(has(setup_error(ini("acquire = acquire.lua\n")), "v.ini: release: missing"));
}

TEST_F(ScriptVariantTest, BadReplyMatcherNamesFileAndLine) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\nacquire.granted = postive\n");
  EXPECT_TRUE(has(setup_error(path), path + ":3: acquire.granted: 'postive' is not a reply"));
}

TEST_F(ScriptVariantTest, TokenFromReplyNeedsIntegerGrants) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\nacquire.granted = \"OK\"\n"
                               "acquire.token = reply\n");
  EXPECT_TRUE(has(setup_error(path), path + ":4: acquire.token: reply needs acquire.granted to be integers"));
}

TEST_F(ScriptVariantTest, OptionsOfAnAbsentRefreshScriptAreErrors) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\nrefresh.args = {id}\n");
  EXPECT_TRUE(has(setup_error(path), path + ":3: refresh.args: given, but there is no `refresh = FILE.lua`"));
}

TEST_F(ScriptVariantTest, LuaCompileErrorAtLoadNamesTheScriptAndLine) {
  const std::string script = write("acquire.lua", "local x = 1\nlocal y = = 2\nreturn x\n");
  const std::string error = setup_error(ini("acquire = acquire.lua\nrelease = release.lua\n"));
  EXPECT_TRUE(has(error, script + ": SCRIPT LOAD failed:"));
  EXPECT_TRUE(has(error, "user_script:2"));  // Lua's own text, with the script line
}

TEST_F(ScriptVariantTest, ServerTimeFailWithoutAServerClockIsASetupError) {
  const std::string path = ini("acquire = acquire.lua\nacquire.args = {server_now_ms}\nrelease = release.lua\n"
                               "server_time = fail\n");
  time_.server_clock = false;
  EXPECT_TRUE(has(setup_error(path), "server_time = fail"));
}

// ---- errors at call: ReplyError (recorded as outcome unknown), never a crash ------------------

TEST_F(ScriptVariantTest, LuaRuntimeErrorIsAReplyErrorNamingTheScript) {
  const std::string script = write("acquire.lua", "local n = nil\nreturn n + 1\n");
  auto semaphore = make(ini("acquire = acquire.lua\nrelease = release.lua\n"));
  auto c = client("c");
  try {
    run(semaphore->acquire(*c));
    FAIL() << "no ReplyError";
  } catch (const ReplyError& e) {
    EXPECT_TRUE(has(e.what(), script + ": "));
    EXPECT_TRUE(has(e.what(), "user_script:2"));
  }
}

TEST_F(ScriptVariantTest, UnexpectedReplyIsAReplyErrorNamingTheScript) {
  const std::string script = write("release.lua", "return 'hello'\n");
  auto semaphore = make(ini("acquire = acquire.lua\nrelease = release.lua\n"));
  auto c = client("c");
  try {
    run(semaphore->release(*c, "someone"));
    FAIL() << "no ReplyError";
  } catch (const ReplyError& e) {
    EXPECT_TRUE(has(e.what(), script + ": release replied the string \"hello\", which is neither release.ok (1)"));
  }
}

TEST_F(ScriptVariantTest, AnIntegerWhereTextWasExpectedIsUnexpected) {
  write("acquire.lua", "return 1\n");  // 1, but the INI says the string "granted"
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.granted = 'granted'\nacquire.refused = nil\n"
                            "release = release.lua\n"));
  auto c = client("c");
  EXPECT_THROW(run(semaphore->acquire(*c)), ReplyError);
}

TEST_F(ScriptVariantTest, RefreshWithoutAScriptIsAReplyError) {
  auto semaphore = make(ini("acquire = acquire.lua\nrelease = release.lua\n"));
  auto c = client("c");
  EXPECT_THROW(run(semaphore->refresh(*c, "someone")), ReplyError);
}

// ---- calling conventions ----------------------------------------------------------------------

TEST_F(ScriptVariantTest, PlaceholdersExpandToTheConfigTheClientAndItsClock) {
  // The script records its KEYS and ARGV so that the test can read what was passed.
  write("acquire.lua",
        "redis.call('RPUSH', KEYS[1], unpack(KEYS))\n"
        "redis.call('RPUSH', KEYS[1], unpack(ARGV))\n"
        "return 1\n");
  const std::string path = ini(
      "acquire = acquire.lua\n"
      "acquire.keys = {key:log} {key}\n"
      "acquire.args = {id} {limit} {timeout_ms} {timeout_us} {timeout_s} {lock_timeout_ms} {now_ms} {now_us} "
      "{now_s} {server_now_ms} {server_now_us} {server_now_s} \"\" 'a b' x{{y}}:{limit} {key}:q\n"
      "release = release.lua\n");
  auto semaphore = make_script_semaphore(path, [&] {
    SemaphoreConfig c = config(3);
    c.timeout = Micros{2'500'500};
    c.lock_timeout = Micros{1'000};
    return c;
  }());
  auto preparer = client("prepare");
  run(semaphore->prepare(*preparer));
  time_.true_now = Micros{1'700'000'000'123'456};
  auto c = client("c", Micros{-10'000});  // its clock is 10 ms behind
  auto grant = run(semaphore->acquire(*c));
  ASSERT_TRUE(grant);
  EXPECT_EQ(grant->identifier, "c-1");
  EXPECT_EQ(grant->fencing_token, 0);  // acquire.token defaults to none

  const std::string key = prefix() + "sem";
  Reply log = command({"LRANGE", key + ":log", "0", "-1"});
  std::vector<std::string> got;
  for (const Reply& r : log.elements) got.push_back(r.text);
  const std::vector<std::string> want{
      key + ":log", key,  // KEYS
      "c-1", "3", "2501", "2500500", "2.5005", "1", "1700000000113", "1700000000113456", "1700000000.113456",
      "1700000000123", "1700000000123456", "1700000000.123456", "", "a b", "x{y}:3", key + ":q"};
  EXPECT_EQ(got, want);
}

TEST_F(ScriptVariantTest, ReleaseAndRefreshGetTheIdentifierAcquireReturned) {
  write("acquire.lua", "return 1\n");
  write("release.lua", "redis.call('SET', KEYS[1], ARGV[1])\nreturn 1\n");
  write("refresh.lua", "return redis.call('GET', KEYS[1]) == ARGV[1] and 1 or 0\n");
  auto semaphore = make(ini("acquire = acquire.lua\nrelease = release.lua\nrelease.keys = {key:last}\n"
                            "release.args = {id}\nrefresh = refresh.lua\nrefresh.keys = {key:last}\n"
                            "refresh.args = {id}\n"));
  auto c = client("c");
  auto grant = run(semaphore->acquire(*c));
  ASSERT_TRUE(grant);
  EXPECT_TRUE(run(semaphore->release(*c, grant->identifier)));
  EXPECT_EQ(command({"GET", prefix() + "sem:last"}).text, grant->identifier);
  EXPECT_TRUE(run(semaphore->refresh(*c, grant->identifier)));
  EXPECT_FALSE(run(semaphore->refresh(*c, "someone-else")));
}

TEST_F(ScriptVariantTest, LuaBooleansWorkWithTheDefaultConventions) {
  write("acquire.lua", "return redis.call('INCR', KEYS[1]) <= 1\n");  // true -> 1, false -> nil
  auto semaphore = make(ini("acquire = acquire.lua\nrelease = release.lua\n"));
  auto c = client("c");
  EXPECT_TRUE(run(semaphore->acquire(*c)));
  EXPECT_FALSE(run(semaphore->acquire(*c)));
}

TEST_F(ScriptVariantTest, ServerTimeTimeAsksRedisWhereTheRunHasNoServerClock) {
  write("acquire.lua", "redis.call('SET', KEYS[1], ARGV[1])\nreturn 1\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.args = {server_now_s}\nrelease = release.lua\n"));
  time_.server_clock = false;
  auto c = client("c");
  ASSERT_TRUE(run(semaphore->acquire(*c)));
  Reply time = command({"TIME"});
  const double passed = std::stod(command({"GET", prefix() + "sem"}).text);
  EXPECT_NEAR(passed, std::stod(time.elements.at(0).text), 5.0);  // Redis's clock, not the fake one
}

TEST_F(ScriptVariantTest, ServerTimeEmptyPassesAnEmptyArgument) {
  write("acquire.lua", "return ARGV[1] == '' and 1 or 0\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.args = {server_now_us}\nrelease = release.lua\n"
                            "server_time = empty\n"));
  time_.server_clock = false;
  auto c = client("c");
  EXPECT_TRUE(run(semaphore->acquire(*c)));
}

TEST_F(ScriptVariantTest, NoscriptLoadsTheScriptAgainAndRetries) {
  auto semaphore = make(kLuaExample, 1);
  command({"SCRIPT", "FLUSH"});  // as after a server restart
  auto c = client("c");
  const MarkWatch reloaded(Mark::noscript_reload);
  EXPECT_TRUE(run(semaphore->acquire(*c)));
  EXPECT_TRUE(reloaded.hit());
}

// ---- the examples -----------------------------------------------------------------------------

TEST_F(ScriptVariantTest, ExampleGrantsUpToLimitAndRefusesBeyond) {
  auto semaphore = make(kLuaExample, 2);
  EXPECT_EQ(semaphore->admission_set(), prefix() + "sem");
  auto a = client("a"), b = client("b"), c = client("c");
  auto ga = run(semaphore->acquire(*a));
  auto gb = run(semaphore->acquire(*b));
  ASSERT_TRUE(ga && gb);
  EXPECT_EQ(ga->fencing_token, 1);  // acquire.token = reply: the INCR'd fence
  EXPECT_EQ(gb->fencing_token, 2);
  EXPECT_FALSE(run(semaphore->acquire(*c)));
  EXPECT_EQ(integer_of(command({"ZCARD", prefix() + "sem"})), 2);

  // release frees a permit, once
  EXPECT_TRUE(run(semaphore->release(*a, ga->identifier)));
  EXPECT_FALSE(run(semaphore->release(*a, ga->identifier)));
  auto gc = run(semaphore->acquire(*c));
  ASSERT_TRUE(gc);
  EXPECT_EQ(gc->fencing_token, 3);
}

TEST_F(ScriptVariantTest, ExampleRefreshExtendsAndReportsLoss) {
  auto semaphore = make(kLuaExample, 1);  // timeout 1 s
  auto a = client("a"), b = client("b");
  auto ga = run(semaphore->acquire(*a));
  ASSERT_TRUE(ga);
  time_.true_now += Micros{800'000};
  EXPECT_TRUE(run(semaphore->refresh(*a, ga->identifier)));  // now good until 1.8 s
  time_.true_now += Micros{800'000};                         // 1.6 s: past the first lease
  EXPECT_FALSE(run(semaphore->acquire(*b)));                 // still held thanks to the refresh
  time_.true_now += Micros{300'000};                         // 1.9 s: expired
  EXPECT_FALSE(run(semaphore->refresh(*a, ga->identifier)));  // lost, and removed
  EXPECT_EQ(integer_of(command({"ZCARD", prefix() + "sem"})), 0);
  EXPECT_TRUE(run(semaphore->acquire(*b)));
}

TEST_F(ScriptVariantTest, BrokenExampleOverAdmits) {
  auto semaphore = make(kBrokenExample, 2);
  int granted = 0;
  std::vector<std::unique_ptr<DirectClient>> clients;
  for (int i = 0; i < 5; ++i) {
    clients.push_back(client("c" + std::to_string(i)));
    if (run(semaphore->acquire(*clients.back()))) ++granted;
  }
  EXPECT_EQ(granted, 3);  // limit + 1: the planted `<=`
  EXPECT_EQ(integer_of(command({"ZCARD", prefix() + "sem"})), 3);
}

// The example must be the built-in `lua`, step for step: the same sequence of operations on both
// gives the same outcomes, tokens and Redis state, with and without a server clock.
class ExampleMatchesBuiltin : public ScriptVariantTest, public ::testing::WithParamInterface<bool> {};

TEST_P(ExampleMatchesBuiltin, SameOutcomesForTheSameOperations) {
  time_.server_clock = GetParam();
  SemaphoreConfig builtin_config = config(2), script_config = config(2);
  builtin_config.name = prefix() + "builtin";
  script_config.name = prefix() + "script";
  LuaSemaphore builtin(builtin_config);
  auto script = make_script_semaphore(kLuaExample, script_config);
  auto preparer = client("prepare");
  run(builtin.prepare(*preparer));
  run(script->prepare(*preparer));

  // Two sets of clients with the same names: the same identifiers on both sides.
  std::vector<std::unique_ptr<DirectClient>> left, right;
  for (int i = 0; i < 4; ++i) {
    left.push_back(client("c" + std::to_string(i)));
    right.push_back(client("c" + std::to_string(i)));
  }
  std::vector<std::optional<Grant>> held_left(4), held_right(4);
  // A fixed, varied schedule: acquire, refresh, release, and time passing past leases. Without a
  // server clock Redis's real TIME decides expiry, so time only moves within a lease then.
  const std::string ops = "aaaaRrAtrAlaaRtRaLlarAa";
  int who = 0, grants = 0, refusals = 0, lost = 0;  // the schedule must reach every outcome
  for (char op : ops) {
    const int i = who++ % 4;
    SCOPED_TRACE(std::string("op ") + op + " client " + std::to_string(i));
    switch (op) {
      case 'a':
      case 'A': {
        auto l = run(builtin.acquire(*left[i]));
        auto r = run(script->acquire(*right[i]));
        ASSERT_EQ(l.has_value(), r.has_value());
        ++(l ? grants : refusals);
        if (l) {
          EXPECT_EQ(l->identifier, r->identifier);
          EXPECT_EQ(l->fencing_token, r->fencing_token);
          held_left[i] = l;
          held_right[i] = r;
        }
        break;
      }
      case 'r':
      case 'R': {
        const std::string id = held_left[i] ? held_left[i]->identifier : "nobody";
        const bool kept = run(builtin.refresh(*left[i], id));
        EXPECT_EQ(kept, run(script->refresh(*right[i], id)));
        lost += !kept;
        break;
      }
      case 'l':
      case 'L': {
        const std::string id = held_left[i] ? held_left[i]->identifier : "nobody";
        EXPECT_EQ(run(builtin.release(*left[i], id)), run(script->release(*right[i], id)));
        held_left[i].reset();
        held_right[i].reset();
        break;
      }
      case 't':
        if (GetParam()) time_.true_now += Micros{700'000};
        break;
    }
  }
  EXPECT_GT(grants, 0);
  EXPECT_GT(refusals, 0);
  EXPECT_GT(lost, 0);
  // And Redis holds the same: the same members with the same expiry.
  EXPECT_EQ(command({"ZRANGE", prefix() + "builtin", "0", "-1", "WITHSCORES"}).elements.size(),
            command({"ZRANGE", prefix() + "script", "0", "-1", "WITHSCORES"}).elements.size());
  if (GetParam()) {
    const auto l = command({"ZRANGE", prefix() + "builtin", "0", "-1", "WITHSCORES"}).elements;
    const auto r = command({"ZRANGE", prefix() + "script", "0", "-1", "WITHSCORES"}).elements;
    ASSERT_EQ(l.size(), r.size());
    for (std::size_t k = 0; k < l.size(); ++k) EXPECT_EQ(l[k].text, r[k].text);
  }
  EXPECT_EQ(command({"GET", prefix() + "builtin:fence"}).text, command({"GET", prefix() + "script:fence"}).text);
}

INSTANTIATE_TEST_SUITE_P(ServerClock, ExampleMatchesBuiltin, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Simulator") : std::string("RedisTime");
                         });

// The same check through the whole simulator: one seed in virtual mode, hostile conditions, the
// built-in and the example give the same history, event for event (only the run line, which
// names the variant, differs), hence the same summary.
std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST_F(ScriptVariantTest, ExampleGivesTheBuiltinsHistoryInTheSimulator) {
  const auto history_after_run_line = [&](const std::string& variant, const std::string& out) {
    const std::string command = std::string(SEMSIM_BINARY) + " run --variant " + variant +
                                " --clients 12 --limit 3 --duration 2s --seed 5 --delay exp:2ms"
                                " --spike-probability 0.05 --skew uniform:-20ms..20ms --refresh-every 20ms"
                                " --retries 1 --pause-rate 0.2 --pause-length fixed:150ms --hold uniform:10ms..60ms"
                                " --timeout 80ms --out " + (dir_ / out).string() + " > " + (dir_ / (out + ".log")).string() +
                                " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << read_file(dir_ / (out + ".log"));
    std::string history = read_file(dir_ / out / "history.csv");
    // header, then the run line (which names the variant)
    for (int line = 0; line < 2; ++line) history.erase(0, history.find('\n') + 1);
    return history;
  };
  const std::string builtin = history_after_run_line("lua", "builtin");
  const std::string script = history_after_run_line("script:" + kLuaExample, "script");
  EXPECT_GT(builtin.size(), 1000u);
  EXPECT_NE(builtin.find(",acquire,ok,"), std::string::npos);
  EXPECT_NE(builtin.find(",acquire,fail,"), std::string::npos);
  EXPECT_TRUE(builtin == script) << "the example's history differs from the built-in lua's";
}

TEST_F(ScriptVariantTest, AKeyOutsideTheRunsPrefixIsRefusedNamingFileAndLine) {
  // `app:z` would be a foreign key on the user's Redis: the script could empty it.
  const std::string path = ini("acquire = acquire.lua\nacquire.keys = app:z {key:fence}\nrelease = release.lua\n");
  const std::string error = setup_error(path);
  EXPECT_TRUE(has(error, path + ":2: acquire.keys: every key must start with {key} or {key:NAME}")) << error;
  EXPECT_TRUE(has(error, "'app:z'")) << error;
  // Under the prefix, with a suffix, is fine.
  EXPECT_NO_THROW(make(ini("acquire = acquire.lua\nacquire.keys = {key}:z {key:fence}\nrelease = release.lua\n")));
}

}  // namespace
}  // namespace semsim::test

// ---- what libraries need: setup, commands, sums, reply patterns, declared clocks ---------------

namespace semsim::test {
namespace {

class LibraryStyleTest : public ScriptVariantTest {};

TEST_F(LibraryStyleTest, ASetupScriptRunsOnceBeforeUseAndAgainAfterDataLoss) {
  write("setup.lua", "redis.call('SET', KEYS[1], ARGV[1])\nreturn 1\n");
  write("acquire.lua", "if redis.call('GET', KEYS[1]) == false then return redis.error_reply('not set up') end\n"
                       "return tonumber(redis.call('GET', KEYS[1]))\n");
  auto semaphore = make(ini("setup = setup.lua\nsetup.keys = {key:permits}\nsetup.args = {limit}\n"
                            "acquire = acquire.lua\nacquire.keys = {key:permits}\nacquire.granted = 1\n"
                            "release = release.lua\n"));
  auto c = client("c");
  EXPECT_TRUE(run(semaphore->acquire(*c)));  // the count (limit 1) is there
  command({"DEL", prefix() + "sem:permits"});  // Redis lost its data
  EXPECT_THROW(run(semaphore->acquire(*c)), ReplyError);
  run(semaphore->after_data_loss(*c));
  EXPECT_TRUE(run(semaphore->acquire(*c)));
}

TEST_F(LibraryStyleTest, ASetupThatFailsIsASetupErrorNamingTheScript) {
  const std::string script = write("setup.lua", "return redis.error_reply('no')\n");
  EXPECT_TRUE(has(setup_error(ini("setup = setup.lua\nacquire = acquire.lua\nrelease = release.lua\n")),
                  "setup failed: " + script + ": ERR no"));
  const std::string path = ini("setup.args = {limit}\nacquire = acquire.lua\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(path), path + ":1: setup.args: given, but there is no `setup = FILE.lua`"));
}

TEST_F(LibraryStyleTest, APlainCommandIsAnOperationWithTheSameReplyMatchers) {
  auto semaphore = make(ini("acquire.command = ZADD {key} 1 {id}\nrelease.command = ZREM {key} {id}\n"));
  auto c = client("c");
  auto grant = run(semaphore->acquire(*c));  // ZADD answers 1: granted
  ASSERT_TRUE(grant);
  EXPECT_EQ(command({"ZCARD", prefix() + "sem"}).integer, 1);
  EXPECT_TRUE(run(semaphore->release(*c, grant->identifier)));    // ZREM 1: ok
  EXPECT_FALSE(run(semaphore->release(*c, grant->identifier)));   // ZREM 0: missing
}

TEST_F(LibraryStyleTest, BadCommandsNameFileAndLine) {
  const std::string both = ini("acquire = acquire.lua\nacquire.command = GET {key}\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(both), both + ":2: acquire.command: give either"));
  const std::string foreign = ini("acquire = acquire.lua\nrelease.command = DEL somebody-elses-key\n");
  EXPECT_TRUE(has(setup_error(foreign), foreign + ":2: release.command: the command's first argument must be a key"));
  const std::string named = ini("acquire = acquire.lua\nrelease.command = {key} ZREM\n");
  EXPECT_TRUE(has(setup_error(named), named + ":2: release.command: the first word must be the command's name"));
  const std::string with_args = ini("acquire = acquire.lua\nrelease.command = ZREM {key} {id}\nrelease.args = {id}\n");
  EXPECT_TRUE(has(setup_error(with_args), with_args + ":3: release.args: not with release.command"));
}

TEST_F(LibraryStyleTest, SumsAddTimesOfOneUnit) {
  write("acquire.lua", "redis.call('RPUSH', KEYS[1], unpack(ARGV))\nreturn 1\n");
  const std::string path = ini("acquire = acquire.lua\nacquire.keys = {key:log}\n"
                               "acquire.args = {now_ms+timeout_ms} {server_now_us+lock_timeout_us} {now_s+timeout_s}\n"
                               "release = release.lua\n");
  auto semaphore = make_script_semaphore(path, [&] {
    SemaphoreConfig c = config(1);
    c.timeout = Micros{2'500'500};  // 2501 ms rounded up, as {timeout_ms} alone
    c.lock_timeout = Micros{1'000};
    return c;
  }());
  auto preparer = client("prepare");
  run(semaphore->prepare(*preparer));
  time_.true_now = Micros{1'700'000'000'123'456};
  auto c = client("c", Micros{-10'000});
  ASSERT_TRUE(run(semaphore->acquire(*c)));
  std::vector<std::string> got;
  for (const Reply& r : command({"LRANGE", prefix() + "sem:log", "0", "-1"}).elements) got.push_back(r.text);
  EXPECT_EQ(got, (std::vector<std::string>{"1700000002614", "1700000000124456", "1700000002.613956"}));
}

TEST_F(LibraryStyleTest, BadSumsNameFileAndLine) {
  const std::string mixed = ini("acquire = acquire.lua\nacquire.args = {now_ms+timeout_us}\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(mixed), mixed + ":2: acquire.args: {now_ms+timeout_us} mixes units"));
  const std::string unknown = ini("acquire = acquire.lua\nacquire.args = {now_ms+limit}\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(unknown), unknown + ":2: acquire.args: {now_ms+limit}: 'limit' cannot be added"));
  const std::string typo = ini("acquire = acquire.lua\nacquire.args = {now_ms+timeuot_ms}\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(typo), typo + ":2: acquire.args: {now_ms+timeuot_ms}: 'timeuot_ms' cannot be added"));
}

TEST_F(LibraryStyleTest, ReplyPatternsMatchPrefixesAnyStringAndErrors) {
  write("acquire.lua", "if ARGV[1] == 'c-1' then return 1 end\nreturn ':' .. '1712000'\n");
  write("release.lua", "return redis.error_reply('NOTHELD')\n");
  write("refresh.lua", "return 'whatever'\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.args = {id}\nacquire.refused = \":\"*\n"
                            "release = release.lua\nrelease.missing = error\n"
                            "refresh = refresh.lua\nrefresh.ok = string\n"));
  auto c = client("c");
  EXPECT_TRUE(run(semaphore->acquire(*c)));   // c-1: 1
  EXPECT_FALSE(run(semaphore->acquire(*c)));  // c-2: ":1712000" matches ":"*
  EXPECT_FALSE(run(semaphore->release(*c, "x")));  // an error reply read as "missing"
  EXPECT_TRUE(run(semaphore->refresh(*c, "x")));   // any string
}

TEST_F(LibraryStyleTest, AMatcherThatCannotMatchIsAnErrorNotText) {
  for (const char* bad : {":*", "\":\" *", "strings", "err"}) {
    const std::string path = ini(std::string("acquire = acquire.lua\nacquire.refused = ") + bad + "\nrelease = release.lua\n");
    EXPECT_TRUE(has(setup_error(path), path + ":2: acquire.refused:")) << bad;
  }
}

TEST_F(LibraryStyleTest, TheDeclaredClockChoosesThePromise) {
  const auto info_of = [&](const std::string& clock) {
    return script_variant_info(ini((clock.empty() ? "" : "clock = " + clock + "\n") + "acquire = acquire.lua\nrelease = release.lua\n"));
  };
  EXPECT_EQ(info_of("client").clock, ClockBasis::client);
  EXPECT_TRUE(info_of("client").preconditions.clock_spread);
  EXPECT_TRUE(info_of("client").preconditions.no_delay);  // what --allow-delay relaxes, as for fair
  EXPECT_EQ(info_of("ttl").clock, ClockBasis::redis_ttl);
  EXPECT_EQ(info_of("server").clock, ClockBasis::redis_time);
  EXPECT_EQ(info_of("").clock, ClockBasis::redis_time);  // the default
  EXPECT_FALSE(info_of("").preconditions.clock_spread);
  const std::string bad = ini("clock = wall\nacquire = acquire.lua\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(bad), bad + ":1: clock: 'wall' is not client, server or ttl"));
  EXPECT_EQ(variant_label("script:" + bad), "v");
  EXPECT_EQ(variant_label("lua"), "lua");
}

// ---- library protocols: whole seconds, one key per permit, replies passed on ------------------

class LibraryProtocolTest : public ScriptVariantTest {
 protected:
  // The words acquire passed, as acquire.lua (RPUSH of KEYS then ARGV into KEYS[1]) logged them.
  std::vector<std::string> logged(const std::string& key) {
    std::vector<std::string> got;
    for (const Reply& r : command({"LRANGE", key, "0", "-1"}).elements) got.push_back(r.text);
    return got;
  }
};

TEST_F(LibraryProtocolTest, WholeSecondsRoundUpSoThatATtlIsNeverShorterThanAsked) {
  write("acquire.lua", "redis.call('RPUSH', KEYS[1], unpack(ARGV))\nreturn 1\n");
  const std::string path = ini("acquire = acquire.lua\nacquire.keys = {key:log}\n"
                               "acquire.args = {timeout_whole_s} {lock_timeout_whole_s} {timeout_s}\nrelease = release.lua\n");
  for (const auto& [timeout, lock_timeout, want] :
       {std::tuple{Micros{1'500'000}, Micros{1'000}, std::vector<std::string>{"2", "1", "1.5"}},
        std::tuple{Micros{2'000'000}, Micros{10'000'000}, std::vector<std::string>{"2", "10", "2"}},
        std::tuple{Micros{250'000}, Micros{1'000'001}, std::vector<std::string>{"1", "2", "0.25"}}}) {
    command({"DEL", prefix() + "sem:log"});
    SemaphoreConfig c = config(1);
    c.timeout = timeout;
    c.lock_timeout = lock_timeout;
    auto semaphore = make_script_semaphore(path, c);
    auto preparer = client("prepare");
    run(semaphore->prepare(*preparer));
    ASSERT_TRUE(run(semaphore->acquire(*preparer)));
    EXPECT_EQ(logged(prefix() + "sem:log"), want);
  }
}

TEST_F(LibraryProtocolTest, ATimeoutStepRefusesATimeoutThatIsNotAMultipleNamingTheKey) {
  const std::string path = ini("acquire = acquire.lua\nrelease = release.lua\ntimeout.step = 1s\n");
  EXPECT_EQ(scripts::read_script_timeout_step(path), Micros{1'000'000});
  SemaphoreConfig c = config(1);
  c.timeout = Micros{1'500'000};
  try {
    make_script_semaphore(path, c);
    ADD_FAILURE() << "a 1.5 s timeout was accepted with timeout.step = 1s";
  } catch (const SetupError& e) {
    EXPECT_TRUE(has(e.what(), path + ":3: timeout.step: the timeout (--timeout 1500ms) is not a multiple of 1s"));
  }
  c.timeout = Micros{3'000'000};
  EXPECT_NO_THROW(make_script_semaphore(path, c));
  EXPECT_EQ(script_variant_info(path).timeout_step, Micros{1'000'000});  // the search's scale
  for (const char* bad : {"1.5s", "0s", "-1s", "1", "s", "1 s", "2h"}) {
    const std::string wrong = ini(std::string("acquire = acquire.lua\nrelease = release.lua\ntimeout.step = ") + bad + "\n");
    EXPECT_TRUE(has(setup_error(wrong), wrong + ":3: timeout.step: '")) << bad;
  }
}

TEST_F(LibraryProtocolTest, ARepeatedWordGivesOneKeyPerPermit) {
  write("acquire.lua", "redis.call('RPUSH', KEYS[1], unpack(KEYS))\nredis.call('RPUSH', KEYS[1], unpack(ARGV))\nreturn 1\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.keys = {key:log} {key}:slot{1..limit}\n"
                            "acquire.args = n{1..limit} {limit}\nrelease = release.lua\n"),
                        3);
  auto c = client("c");
  ASSERT_TRUE(run(semaphore->acquire(*c)));
  const std::string key = prefix() + "sem";
  EXPECT_EQ(logged(key + ":log"), (std::vector<std::string>{key + ":log", key + ":slot1", key + ":slot2", key + ":slot3",
                                                             "n1", "n2", "n3", "3"}));
  const std::string twice = ini("acquire = acquire.lua\nacquire.keys = {key}:{1..limit}:{1..limit}\nrelease = release.lua\n");
  EXPECT_TRUE(has(setup_error(twice), twice + ":2: acquire.keys: '{key}:{1..limit}:{1..limit}' repeats twice"));
}

TEST_F(LibraryProtocolTest, ReleaseAndRefreshGetAcquiresReplyAsAKey) {
  // Laravel's limiter: KEYS name1..nameN, the first free one taken, its name the reply.
  write("acquire.lua", "for _, slot in ipairs(KEYS) do\n"
                       "  if redis.call('SET', slot, ARGV[1], 'NX') then return slot end\n"
                       "end\nreturn false\n");
  write("release.lua", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end\nreturn 0\n");
  write("refresh.lua", "return redis.call('GET', KEYS[1]) == ARGV[1] and 1 or 0\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.keys = {key}:slot{1..limit}\nacquire.args = {id}\n"
                            "acquire.granted = string\nacquire.refused = nil\n"
                            "release = release.lua\nrelease.keys = {reply}\nrelease.args = {id}\n"
                            "refresh = refresh.lua\nrefresh.keys = {reply}\nrefresh.args = {id}\n"),
                        2);
  auto a = client("a"), b = client("b");
  auto first = run(semaphore->acquire(*a)), second = run(semaphore->acquire(*b));
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(run(semaphore->acquire(*a)));  // both slots taken
  const std::string key = prefix() + "sem";
  EXPECT_EQ(command({"GET", key + ":slot2"}).text, second->identifier);
  EXPECT_TRUE(run(semaphore->refresh(*b, second->identifier)));  // slot 2, the one b's acquire named
  EXPECT_TRUE(run(semaphore->release(*b, second->identifier)));
  EXPECT_EQ(command({"EXISTS", key + ":slot2"}).integer, 0);
  EXPECT_EQ(command({"GET", key + ":slot1"}).text, first->identifier);  // a's slot untouched
  EXPECT_TRUE(run(semaphore->release(*a, first->identifier)));
  // Released: no reply is kept for it any more, and an unknown grant is an error, not a guess.
  EXPECT_THROW(run(semaphore->refresh(*a, first->identifier)), ReplyError);
}

TEST_F(LibraryProtocolTest, AnIntegerReplyIsPassedOnInDecimal) {
  write("acquire.lua", "return 7\n");
  write("release.lua", "return ARGV[1] == '7' and 1 or 0\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.granted = positive\n"
                            "release = release.lua\nrelease.args = {reply}\n"));
  auto c = client("c");
  auto grant = run(semaphore->acquire(*c));
  ASSERT_TRUE(grant);
  EXPECT_TRUE(run(semaphore->release(*c, grant->identifier)));
}

TEST_F(LibraryProtocolTest, AReplyNamingAKeyOutsideTheRunIsRefusedBeforeAnythingIsSent) {
  command({"SET", "app:z", "keep"});
  write("acquire.lua", "return 'app:z'\n");
  write("release.lua", "return redis.call('DEL', KEYS[1])\n");
  const std::string release_script = (dir_ / "release.lua").string();
  for (const char* release : {"release = release.lua\nrelease.keys = {reply}\n", "release.command = DEL {reply}\n"}) {
    auto semaphore = make(ini(std::string("acquire = acquire.lua\nacquire.granted = string\n") + release));
    auto c = client("c");
    auto grant = run(semaphore->acquire(*c));
    ASSERT_TRUE(grant);
    int sent = 0;
    c->direct().before_request = [&](const std::vector<Command>&) { ++sent; };
    try {
      run(semaphore->release(*c, grant->identifier));
      ADD_FAILURE() << "a release of app:z was sent: " << release;
    } catch (const SetupError& e) {  // a setup error: the run stops with exit 2
      EXPECT_TRUE(has(e.what(), "'app:z' is a key outside this run's own")) << release;
      EXPECT_TRUE(has(e.what(), "acquire's reply 'app:z' ({reply})")) << release;
      EXPECT_TRUE(has(e.what(), std::string(release).starts_with("release =") ? release_script + ": release.keys"
                                                                               : (dir_ / "v.ini").string() + ":3: release.command"))
          << e.what();
    }
    EXPECT_EQ(sent, 0) << release;
    EXPECT_EQ(command({"GET", "app:z"}).text, "keep") << release;
  }
  command({"DEL", "app:z"});
}

// Only data commands on the run's own keys (algorithms/api/command_policy.h): an admin command in
// any operation, the setup first, is refused in prepare(), before anything is sent.
TEST_F(LibraryProtocolTest, AnAdminOrDangerousCommandIsRefusedBeforeAnythingIsSent) {
  for (const auto& [line, error] :
       {std::pair{"setup.command = REPLICAOF {key} 6379", "setup.command: REPLICAOF is an admin command (@admin)"},
        std::pair{"setup.command = CONFIG {key} maxmemory 1", "setup.command: CONFIG "},
        std::pair{"release.command = FLUSHALL {key}", "release.command: FLUSHALL is a dangerous command (@dangerous)"},
        std::pair{"release.command = SORT {key} STORE {key:x}", "release.command: SORT is a dangerous command"},
        std::pair{"release.command = SCAN {key}", "release.command: SCAN names no key"},
        std::pair{"release.command = MOVE {key} 1", "release.command: MOVE reaches another database"}}) {
    const std::string path = ini(std::string("acquire = acquire.lua\n") + line + "\n" +
                                 (std::string(line).starts_with("release") ? "" : "release = release.lua\n"));
    EXPECT_TRUE(has(setup_error(path), path + ":2: " + error)) << line;
  }
  EXPECT_EQ(command({"ROLE"}).elements.at(0).text, "master");  // the server is still nobody's replica
}

// A word made of acquire's reply can make another word a key (`STORE`): the keys are found again
// on every call, with the words as they are then.
TEST_F(LibraryProtocolTest, AReplyThatMakesAForeignWordAKeyIsRefusedBeforeAnythingIsSent) {
  command({"SET", "app:z", "keep"});
  write("acquire.lua", "return 'STORE'\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.granted = \"STORE\"\n"
                            "release.command = GEORADIUS {key:geo} 0 0 1 km {reply} app:z\nrelease.ok = 0\n"));
  auto c = client("c");
  auto grant = run(semaphore->acquire(*c));
  ASSERT_TRUE(grant);
  int sent = 0;
  c->direct().before_request = [&](const std::vector<Command>&) { ++sent; };
  try {
    run(semaphore->release(*c, grant->identifier));
    ADD_FAILURE() << "GEORADIUS ... STORE app:z was sent";
  } catch (const SetupError& e) {
    EXPECT_TRUE(has(e.what(), (dir_ / "v.ini").string() + ":3: release.command: 'app:z' is a key outside this run's own"));
    EXPECT_TRUE(has(e.what(), "acquire's reply 'STORE' ({reply})"));
  }
  EXPECT_EQ(sent, 0);
  EXPECT_EQ(command({"GET", "app:z"}).text, "keep");
  command({"DEL", "app:z"});
}

TEST_F(LibraryProtocolTest, LeaseHonestyIsAskedOfTheAdmissionSetOrThePermitsKey) {
  EXPECT_FALSE(script_variant_info(ini("acquire = acquire.lua\nrelease = release.lua\n")).lease_honesty);
  const std::string ttl = ini("acquire = acquire.lua\nrelease = release.lua\nlease_honesty = ttl {key}:{id}\n");
  EXPECT_TRUE(script_variant_info(ttl).lease_honesty);
  auto semaphore = make(ttl);
  EXPECT_EQ(semaphore->lease_probe(), Semaphore::LeaseProbe::ttl);
  EXPECT_EQ(semaphore->lease_probe_command("abc"), (Command{"PTTL", prefix() + "sem:abc"}));
  const std::string set = ini("acquire = acquire.lua\nrelease = release.lua\nadmission_set = {key}\n"
                              "lease_honesty = admission_set\n");
  semaphore = make(set);
  EXPECT_EQ(semaphore->lease_probe(), Semaphore::LeaseProbe::rank);
  EXPECT_EQ(semaphore->lease_probe_command("abc"), (Command{"ZRANK", prefix() + "sem", "abc"}));
  for (const auto& [line, error] :
       {std::pair{"lease_honesty = admission_set", ":3: lease_honesty: admission_set, but the INI names no admission_set"},
        std::pair{"lease_honesty = ttl app:{id}", ":3: lease_honesty: the permit's key must start with {key}"},
        std::pair{"lease_honesty = ttl {key}:{1..limit}", ":3: lease_honesty: name one key"},
        std::pair{"lease_honesty = always", ":3: lease_honesty: 'always' is not `admission_set` or `ttl KEY`"}}) {
    const std::string path = ini(std::string("acquire = acquire.lua\nrelease = release.lua\n") + line + "\n");
    EXPECT_TRUE(has(setup_error(path), path + error)) << line;
  }
}

TEST_F(LibraryProtocolTest, ALeaseProbeOfAKeyFromAForeignReplyIsRefused) {
  write("acquire.lua", "return 'app:z'\n");
  auto semaphore = make(ini("acquire = acquire.lua\nacquire.granted = string\nrelease = release.lua\n"
                            "lease_honesty = ttl {reply}\n"));
  auto c = client("c");
  auto grant = run(semaphore->acquire(*c));
  ASSERT_TRUE(grant);
  try {
    semaphore->lease_probe_command(grant->identifier);
    ADD_FAILURE() << "a PTTL of app:z was built";
  } catch (const SetupError& e) {
    EXPECT_TRUE(has(e.what(), "lease_honesty: 'app:z' is a key outside this run's own"));
    EXPECT_TRUE(has(e.what(), "acquire's reply 'app:z' ({reply})"));
  }
}

TEST_F(LibraryProtocolTest, ReplyIsForReleaseAndRefreshOnly) {
  for (const char* where : {"acquire.args = {reply}", "acquire.keys = {reply}", "setup = release.lua\nsetup.args = {reply}"}) {
    const std::string path = ini(std::string("acquire = acquire.lua\nrelease = release.lua\n") + where + "\n");
    EXPECT_TRUE(has(setup_error(path), "{reply} is acquire's granted reply, known after acquire")) << where;
  }
  const std::string set = ini("acquire = acquire.lua\nrelease = release.lua\nadmission_set = {reply}\n");
  EXPECT_TRUE(has(setup_error(set), set + ":3: admission_set: only {key} and {key:NAME}"));
}

// Over several masters (masters = each) every master answers acquire and a lease stands on a
// quorum: {reply} and lease honesty, which read one reply and ask one Redis, are refused at load;
// the slot words ({key}:slot{1..limit}) expand alike on every master and are kept.
TEST_F(LibraryProtocolTest, MastersEachRefusesReplyAndLeaseHonestyAndKeepsSlots) {
  const std::string reply = ini("acquire = acquire.lua\nrelease = release.lua\nrelease.args = {reply}\nmasters = each\n");
  EXPECT_TRUE(has(setup_error(reply), reply + ":4: masters: each, but a word uses {reply}"));
  const std::string lease = ini("acquire = acquire.lua\nrelease = release.lua\nlease_honesty = ttl {key}:{id}\nmasters = each\n");
  EXPECT_TRUE(has(setup_error(lease), lease + ":3: lease_honesty: not with masters = each"));
  const std::string slots = ini("acquire = acquire.lua\nacquire.keys = {key}:slot{1..limit}\nacquire.args = {id}\n"
                                "release = release.lua\nmasters = each\n");
  EXPECT_NO_THROW(make(slots));
  EXPECT_TRUE(script_variant_info(slots).multi_master);
}

// The library's own retries and master timeout: masters.release_on_refusal takes last,
// masters.timeout run, none or a duration; anything else names the line.
TEST_F(LibraryProtocolTest, MastersRetriesAndTimeoutValuesAreReadOrRefusedByLine) {
  for (const char* good : {"masters.release_on_refusal = last\n", "masters.timeout = none\n", "masters.timeout = run\n",
                           "masters.timeout = 250ms\n"})
    EXPECT_NO_THROW(make(ini(std::string("acquire = acquire.lua\nrelease = release.lua\nmasters = each\n") + good))) << good;
  const std::string retry = ini("acquire = acquire.lua\nrelease = release.lua\nmasters = each\nmasters.release_on_refusal = once\n");
  EXPECT_TRUE(has(setup_error(retry), retry + ":4: masters.release_on_refusal: 'once' is not yes, no or last"));
  const std::string timeout = ini("acquire = acquire.lua\nrelease = release.lua\nmasters = each\nmasters.timeout = soon\n");
  EXPECT_TRUE(has(setup_error(timeout), timeout + ":4: masters.timeout: 'soon' is not run"));
}

}  // namespace
}  // namespace semsim::test
