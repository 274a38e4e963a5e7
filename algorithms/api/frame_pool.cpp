#include "algorithms/api/frame_pool.h"

#include <algorithm>
#include <array>
#include <new>
#include <utility>

namespace semsim::detail {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif
#else
constexpr bool kPooled = true;
#endif

// Sizes are rounded up to 16 bytes; frames above 2 KiB (none of today's) are not kept.
constexpr std::size_t kGrain = 16;
constexpr std::size_t kClasses = 2048 / kGrain + 1;

// At least one grain: a kept frame holds the free list's link.
std::size_t size_class(std::size_t size) { return std::max<std::size_t>(1, (size + kGrain - 1) / kGrain); }

struct FreeFrame {
  FreeFrame* next;
};

// One a thread (operator new of a promise has no other place to find it); given back to the
// system when the thread ends.
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() {
    for (FreeFrame*& head : free_)
      while (head != nullptr) ::operator delete(std::exchange(head, head->next));
  }
  void* take(std::size_t c) {
    FreeFrame* frame = free_[c];
    if (frame == nullptr) return ::operator new(c * kGrain);
    free_[c] = frame->next;
    return frame;
  }
  void keep(void* memory, std::size_t c) noexcept {
    auto* frame = static_cast<FreeFrame*>(memory);
    frame->next = free_[c];
    free_[c] = frame;
  }

 private:
  std::array<FreeFrame*, kClasses> free_{};
};

thread_local Pool pool;

}  // namespace

bool frames_pooled() { return kPooled; }

void* allocate_frame(std::size_t size) {
  const std::size_t c = size_class(size);
  if (!kPooled || c >= kClasses) return ::operator new(size);
  return pool.take(c);
}

void free_frame(void* frame, std::size_t size) noexcept {
  const std::size_t c = size_class(size);
  if (!kPooled || c >= kClasses) return ::operator delete(frame);
  pool.keep(frame, c);
}

}  // namespace semsim::detail
