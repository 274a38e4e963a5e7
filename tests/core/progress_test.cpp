// The progress line a run shows on a terminal: elapsed of --duration and grants so far.
#include <gtest/gtest.h>

#include "sim/core/wall_clock.h"

namespace semsim {
namespace {

TEST(Progress, SaysElapsedOfTheDurationGrantsAndEvents) {
  EXPECT_EQ(Progress::line(Micros(4'200'000), Micros(10'000'000), 1234, 56789, 4.24),
            "[semsim] 4.200 s of 10.000 s (42%)  1234 grants  56789 events  4.2 s wall");
  // Past the end (a paced run waiting for its last replies) it stays at the duration.
  EXPECT_EQ(Progress::line(Micros(12'000'000), Micros(10'000'000), 1, 2, 12.0),
            "[semsim] 10.000 s of 10.000 s (100%)  1 grants  2 events  12.0 s wall");
}

}  // namespace
}  // namespace semsim
