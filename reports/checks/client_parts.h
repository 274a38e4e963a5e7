// One tracker's per-client state (its Part), indexed by client id: in a vector of its own (a
// tracker used alone), or in rows its owner keeps, one row a client holding every tracker's part.
// The Checker keeps rows: an event of client c then touches c's row, one or two cache lines,
// rather than one line in each tracker's vector (callgrind's cache simulation: most of the
// checker's cost was L1 misses on those).
//
// A view does not own its rows: whoever keeps them calls view() again whenever they move, and a
// copy of a tracker that views rows shares them with the original (read it, do not write it).
#pragma once

#include <cassert>
#include <cstddef>
#include <vector>

namespace semsim {

template <typename Part>
class ClientParts {
 public:
  ClientParts() = default;
  ClientParts(const ClientParts& o) : own_(o.own_), size_(o.size_), stride_(o.stride_), viewing_(o.viewing_) {
    first_ = viewing_ ? o.first_ : reinterpret_cast<std::byte*>(own_.data());
  }
  ClientParts& operator=(const ClientParts& o) {
    if (this != &o) *this = ClientParts(o);
    return *this;
  }
  ClientParts(ClientParts&& o) noexcept = default;  // a vector's move keeps its buffer
  ClientParts& operator=(ClientParts&& o) noexcept = default;

  std::size_t size() const { return size_; }
  Part& operator[](std::size_t id) { return *reinterpret_cast<Part*>(first_ + id * stride_); }
  const Part& operator[](std::size_t id) const { return *reinterpret_cast<const Part*>(first_ + id * stride_); }

  // Parts for ids 0..n-1 at least. Rows viewed are the owner's to grow: they already hold every
  // client an event names (the owner grows them first).
  void grow_to(std::size_t n) {
    assert(n <= size_ || !viewing_);
    if (n <= size_ || viewing_) return;
    own_.resize(n);
    first_ = reinterpret_cast<std::byte*>(own_.data());
    size_ = n;
  }
  // The parts of n clients: client i's at `first` + i * `stride` bytes.
  void view(Part* first, std::size_t stride, std::size_t n) {
    own_.clear();
    viewing_ = true;
    first_ = reinterpret_cast<std::byte*>(first);
    stride_ = stride;
    size_ = n;
  }

 private:
  std::vector<Part> own_;
  std::byte* first_ = nullptr;
  std::size_t size_ = 0;
  std::size_t stride_ = sizeof(Part);
  bool viewing_ = false;
};

}  // namespace semsim
