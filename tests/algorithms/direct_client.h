// Test helpers: a Redis that runs every request at once over a RedisLink, and a Client with a fake
// clock, so a variant's Task completes synchronously inside start(). One embedded redis-server
// per test binary; every test gets its own key prefix, deleted before and after.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/api/client.h"
#include "algorithms/api/redis.h"
#include "algorithms/api/semaphore.h"
#include "sim/redis/embedded_redis.h"
#include "sim/redis/redis_link.h"

namespace semsim::test {

// The one server of this test binary, started on first use, stopped at exit.
inline EmbeddedRedis& shared_server() {
  static EmbeddedRedis server;
  return server;
}

// Runs a Task to completion; with DirectRedis it never really suspends.
template <typename T>
T run(Task<T> task) {
  task.start();
  if (!task.done()) throw std::logic_error("task suspended on a direct client");
  return task.result();
}

// True time shared by the clients of one test: sleeping advances it for everyone.
struct FakeTime {
  Micros true_now{1'700'000'000'000'000};  // far from 0, so that now - timeout stays positive
  bool server_clock = true;                // false: server_now() is nullopt (scripts use TIME)
};

// Each request runs at once: a transaction is MULTI + commands + EXEC in one write; a plain
// pipeline runs command by command, so a test can put other clients' commands between them.
class DirectRedis : public Redis {
 public:
  explicit DirectRedis(RedisLink& link) : link_(link) {}

  // Called before each request reaches Redis (once per transaction, once per pipelined command),
  // with that request's commands. A test uses it to stage an interleaving.
  std::function<void(const std::vector<Command>&)> before_request;

  Task<std::vector<Reply>> transaction(std::vector<Command> commands) override {
    notify(commands);
    co_return transaction_replies(link_.execute(as_transaction(std::move(commands))));
  }

  Task<std::vector<Reply>> pipeline(std::vector<Command> commands) override {
    std::vector<Reply> out;
    for (auto& c : commands) {
      std::vector<Command> one;
      one.push_back(std::move(c));
      notify(one);
      out.push_back(std::move(link_.execute(std::move(one)).at(0)));
    }
    co_return out;
  }

 private:
  void notify(const std::vector<Command>& commands) {
    if (before_request) before_request(commands);
  }
  RedisLink& link_;
};

class DirectClient : public Client {
 public:
  DirectClient(RedisLink& link, FakeTime& time, std::string name, Micros offset = Micros{0})
      : redis_(link), time_(time), name_(std::move(name)), offset_(offset) {}

  DirectRedis& direct() { return redis_; }
  Redis& redis() override { return redis_; }
  Micros now() const override { return time_.true_now + offset_; }
  Task<void> sleep(Micros d) override {
    time_.true_now += d;
    co_return;
  }
  std::string new_identifier() override { return name_ + "-" + std::to_string(++issued_); }
  std::optional<Micros> server_now() const override {
    if (time_.server_clock) return time_.true_now;
    return std::nullopt;
  }
  void set_offset(Micros offset) { offset_ = offset; }

 private:
  DirectRedis redis_;
  FakeTime& time_;
  std::string name_;
  Micros offset_;
  int issued_ = 0;
};

// A link to the shared server and a key prefix owned by the current test (deleted on both ends).
class RedisFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    link_ = RedisLink::connect(shared_server().target());
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    prefix_ = std::string("semsim-test:") + info->test_suite_name() + "." + info->name() + ":";
    delete_keys_with_prefix(*link_, prefix_);
  }
  void TearDown() override {
    if (link_) delete_keys_with_prefix(*link_, prefix_);
  }

  RedisLink& link() { return *link_; }
  const std::string& prefix() const { return prefix_; }
  std::unique_ptr<DirectClient> client(std::string name, Micros offset = Micros{0}) {
    return std::make_unique<DirectClient>(*link_, time_, std::move(name), offset);
  }
  Reply command(Command c) {
    std::vector<Command> one;
    one.push_back(std::move(c));
    return link_->execute(std::move(one)).at(0);
  }

  FakeTime time_;

 private:
  std::unique_ptr<RedisLink> link_;
  std::string prefix_;
};

}  // namespace semsim::test
