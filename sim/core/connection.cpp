#include "sim/core/connection.h"

#include <memory>

namespace semsim {

std::vector<Reply> Connection::execute(std::vector<Command> commands, std::chrono::milliseconds timeout) {
  // Shared with the callback: a flush that times out leaves it pending, called after this returns.
  struct Outcome {
    std::vector<Reply> replies;
    std::exception_ptr failure;
  };
  const auto outcome = std::make_shared<Outcome>();
  submit(std::move(commands), [outcome](std::vector<Reply> replies, std::exception_ptr error) {
    outcome->replies = std::move(replies);
    outcome->failure = error;
  });
  flush(timeout);
  if (outcome->failure) std::rethrow_exception(outcome->failure);
  return std::move(outcome->replies);
}

}  // namespace semsim
