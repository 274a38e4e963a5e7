// Where Task coroutine frames live: each thread keeps the frames that ended, by size, for the next
// frame of that size.
//
// Why: a virtual run makes and ends about six frames an operation (the workload's, the variant's,
// evalsha's, the client's call and sleep), and glibc's free takes about 80 instructions a block
// even when its per-thread cache keeps it (_int_free was a tenth of a 1,000-client lua run's
// instructions); a free list takes a few. Under AddressSanitizer frames go to operator new as
// before, so that a use after free is still caught.
#pragma once

#include <cstddef>

namespace semsim::detail {

void* allocate_frame(std::size_t size);
void free_frame(void* frame, std::size_t size) noexcept;
bool frames_pooled();  // false under AddressSanitizer

}  // namespace semsim::detail
