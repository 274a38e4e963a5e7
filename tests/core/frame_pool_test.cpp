#include <gtest/gtest.h>

#include "algorithms/api/frame_pool.h"
#include "algorithms/api/task.h"

namespace semsim {
namespace {

TEST(FramePool, AFrameThatEndedIsTheNextFrameOfItsSize) {
  if (!detail::frames_pooled()) GTEST_SKIP() << "under AddressSanitizer frames go to operator new";
  void* first = detail::allocate_frame(200);
  detail::free_frame(first, 200);
  void* other_size = detail::allocate_frame(300);
  void* same_size = detail::allocate_frame(193);  // sizes round up to 16 bytes: 208 both
  EXPECT_NE(other_size, first);
  EXPECT_EQ(same_size, first);
  detail::free_frame(same_size, 193);
  detail::free_frame(other_size, 300);
}

Task<int> twice(int v) { co_return 2 * v; }
Task<int> sum_of_twice(int n) {
  int sum = 0;
  for (int i = 1; i <= n; ++i) sum += co_await twice(i);
  co_return sum;
}

TEST(FramePool, TasksOnReusedFramesComputeAsBefore) {
  for (int round = 0; round < 3; ++round) {
    Task<int> task = sum_of_twice(100);
    task.start();
    ASSERT_TRUE(task.done());
    EXPECT_EQ(task.result(), 10100);
  }
}

}  // namespace
}  // namespace semsim
