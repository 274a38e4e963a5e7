// Several Tasks at once, as JavaScript's Promise.allSettled: what a multi-master algorithm needs to
// send one request to every master together and read every answer (Redlock's "send the SET
// commands to the N instances at the same time using multiplexing").
//
//   std::vector<Task<Reply>> votes;
//   for (int m = 0; m < client.masters(); ++m) votes.push_back(client.redis(m).call(cmd(...)));
//   std::vector<Settled<Reply>> answers = co_await all_settled(std::move(votes));
//
// Each outcome is the task's value, or the exception that ended it (NoAnswer: the master did not
// answer within the master timeout; ConnectionLost; ReplyError). With `enough`, the caller goes
// on as soon as the outcomes so far satisfy it (a library that decides on a quorum of votes, as
// npm redlock 5 does); the tasks still running are then abandoned: their requests still reach
// Redis and run there, their answers are dropped, and their outcomes stay unsettled.
#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "algorithms/api/task.h"

namespace semsim {

template <typename T>
struct Settled {
  bool settled = false;       // false: abandoned before it ended (all_settled's `enough`)
  std::optional<T> value;     // when it returned
  std::exception_ptr error;   // when it threw
  bool ok() const { return value.has_value(); }
};

template <typename T>
using Enough = std::function<bool(const std::vector<Settled<T>>&)>;

namespace detail {

template <typename T>
struct SettleState {
  std::vector<Settled<T>> outcomes;
  std::size_t pending = 0;
  Enough<T> enough;
  std::coroutine_handle<> parent;
  bool starting = false;  // the tasks are being started: the parent is not suspended yet
  bool done = false;      // the parent goes on (or is about to)
};

// Suspends the finished runner for good (the awaiter destroys its frame) and hands over to `next`.
struct HandOver {
  std::coroutine_handle<> next;
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<>) const noexcept { return next; }
  void await_resume() const noexcept {}
};

template <typename T>
Task<void> settle(Task<T> task, SettleState<T>* state, std::size_t i) {
  try {
    state->outcomes[i].value.emplace(co_await task);
  } catch (...) {
    state->outcomes[i].error = std::current_exception();
  }
  state->outcomes[i].settled = true;
  --state->pending;
  std::coroutine_handle<> next = std::noop_coroutine();
  if (!state->done && (state->pending == 0 || (state->enough && state->enough(state->outcomes)))) {
    state->done = true;
    // While the tasks are being started the parent is resumed by await_suspend's return instead.
    if (!state->starting) next = state->parent;
  }
  HandOver hand_over{next};  // a named awaiter: g++ 12 mishandles temporaries in co_await
  co_await hand_over;
}

template <typename T>
class AllSettled {
 public:
  AllSettled(std::vector<Task<T>> tasks, Enough<T> enough) {
    state_.outcomes.resize(tasks.size());
    state_.pending = tasks.size();
    state_.enough = std::move(enough);
    for (std::size_t i = 0; i < tasks.size(); ++i) runners_.push_back(settle(std::move(tasks[i]), &state_, i));
  }
  bool await_ready() const noexcept { return runners_.empty(); }
  bool await_suspend(std::coroutine_handle<> parent) {
    state_.parent = parent;
    state_.starting = true;
    for (Task<void>& runner : runners_) runner.start();
    state_.starting = false;
    return !state_.done;  // everything (or enough) settled while starting: go on at once
  }
  std::vector<Settled<T>> await_resume() { return std::move(state_.outcomes); }

 private:
  SettleState<T> state_;
  std::vector<Task<void>> runners_;  // destroyed with this awaiter, abandoned ones included
};

}  // namespace detail

template <typename T>
Task<std::vector<Settled<T>>> all_settled(std::vector<Task<T>> tasks, Enough<T> enough = {}) {
  detail::AllSettled<T> awaiter(std::move(tasks), std::move(enough));
  std::vector<Settled<T>> outcomes = co_await awaiter;
  co_return outcomes;
}

}  // namespace semsim
