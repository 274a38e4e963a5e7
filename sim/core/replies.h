// A delivery's replies, which may still be on their way back from Redis when the delivery's turn
// comes: requests sent ahead (lookahead pipelining) are answered while the simulation goes on,
// and a reply is only read when it reaches its client (the inbound delay later). take() waits
// for it then.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "algorithms/api/redis.h"

namespace semsim {

class Replies {
 public:
  // Filled by the connection when the replies arrive (or it fails).
  struct Slot {
    bool answered = false;
    std::vector<Reply> replies;
    std::exception_ptr error;  // a LinkError: the connection failed first
  };
  // Runs the connection's I/O until the slot is answered; throws LinkError (LinkTimeout) if it
  // cannot, or std::runtime_error if Redis refused to set its clock in the pipeline before.
  using Wait = std::function<void(const Slot&)>;

  Replies() = default;
  // Replies that are here already.
  explicit Replies(std::vector<Reply> replies) : slot_(std::make_shared<Slot>(Slot{true, std::move(replies), {}})) {}
  // No replies: the request failed on its own (a master that is down refuses the connection:
  // ConnectionLost), which take() throws.
  static Replies failed(std::exception_ptr error) {
    Replies r;
    r.slot_ = std::make_shared<Slot>(Slot{true, {}, std::move(error)});
    return r;
  }
  // Replies still on the way: `wait` (which must outlive this) brings them.
  Replies(std::shared_ptr<Slot> slot, const Wait* wait) : slot_(std::move(slot)), wait_(wait) {}

  // The replies, once: waits for them if they are not here yet. Throws the connection's error.
  // It runs the connection's I/O, so only the simulation's own steps call it, never a variant.
  std::vector<Reply> take() {
    if (!slot_->answered) (*wait_)(*slot_);
    if (slot_->error) std::rethrow_exception(slot_->error);
    return std::move(slot_->replies);
  }

 private:
  std::shared_ptr<Slot> slot_;
  const Wait* wait_ = nullptr;
};

}  // namespace semsim
