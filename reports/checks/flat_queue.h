// A first-in first-out queue in one array: popping the front moves an index; pushing at the end
// of the array first slides the items back to its start when that frees half of it, else doubles
// it (amortised O(1) a push, at most 4x the most items queued). The checkers keep their pending
// acquires and held instants in these rather than in std::deque because they search them on
// almost every event: contiguous elements make a binary search a few instructions a step. And a
// push is a store and an index, inline (std::vector::push_back was a call in the checker's loop).
// For plain value types (T is default-constructed, then assigned).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace semsim {

template <typename T>
class FlatQueue {
 public:
  bool empty() const { return head_ == tail_; }
  std::size_t size() const { return tail_ - head_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_[tail_ - 1]; }
  T* begin() { return items_.data() + head_; }
  T* end() { return items_.data() + tail_; }
  const T* begin() const { return items_.data() + head_; }
  const T* end() const { return items_.data() + tail_; }

  void push_back(const T& item) {
    if (tail_ == items_.size()) make_room();
    items_[tail_++] = item;
  }
  void pop_front() {
    if (++head_ == tail_) clear();
  }
  void clear() { head_ = tail_ = 0; }
  // Keeps, in order, the elements for which keep(element) is true. Without a branch on keep: the
  // checkers' queues hold settled and live entries mixed as at random, and std::remove_if's branch
  // on each mispredicted often.
  template <typename Keep>
  void keep_if(Keep keep) {
    T* out = begin();
    for (const T* in = begin(); in != end(); ++in) {
      const bool kept = keep(*in);
      *out = *in;
      out += kept;
    }
    tail_ = static_cast<std::size_t>(out - items_.data());
    if (head_ == tail_) clear();
  }

 private:
  [[gnu::noinline]] void make_room() {
    if (head_ > 0 && 2 * head_ >= tail_) {
      std::copy(begin(), end(), items_.data());
      tail_ -= head_;
      head_ = 0;
    } else {
      items_.resize(std::max<std::size_t>(16, 2 * items_.size()));
    }
  }

  std::vector<T> items_;  // the items are [head_, tail_)
  std::size_t head_ = 0, tail_ = 0;
};

}  // namespace semsim
