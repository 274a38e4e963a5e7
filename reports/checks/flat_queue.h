// A first-in first-out queue in one vector: popping the front moves an index, and the space before
// it is given back once it is half the vector (amortised O(1) a pop). The checkers keep their
// pending acquires and held instants in these rather than in std::deque because they search them
// on almost every event: contiguous elements make a binary search a few instructions a step.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace semsim {

template <typename T>
class FlatQueue {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_.back(); }
  T* begin() { return items_.data() + head_; }
  T* end() { return items_.data() + items_.size(); }
  const T* begin() const { return items_.data() + head_; }
  const T* end() const { return items_.data() + items_.size(); }

  void push_back(const T& item) { items_.push_back(item); }
  void pop_front() {
    if (++head_ == items_.size()) {
      clear();
    } else if (head_ >= 64 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }
  // Keeps, in order, the elements for which keep(element) is true.
  template <typename Keep>
  void keep_if(Keep keep) {
    items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
    items_.erase(std::remove_if(items_.begin(), items_.end(), [&](const T& t) { return !keep(t); }), items_.end());
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace semsim
