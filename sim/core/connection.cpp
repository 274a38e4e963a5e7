#include "sim/core/connection.h"

namespace semsim {

std::vector<Reply> Connection::execute(std::vector<Command> commands, std::chrono::milliseconds timeout) {
  std::vector<Reply> out;
  std::exception_ptr failure;
  submit(std::move(commands), [&](std::vector<Reply> replies, std::exception_ptr error) {
    out = std::move(replies);
    failure = error;
  });
  flush(timeout);
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace semsim
