// parallelFor: every item once, on any number of jobs, and the error of the lowest failing item.
#include "npu/support/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace npu {
namespace {

TEST(ParallelFor, RunsEveryItemOnceOnAnyNumberOfJobs) {
  for (std::size_t jobs : {0U, 1U, 2U, 3U, 64U}) {
    std::vector<int> hits(37, 0);
    parallelFor(hits.size(), jobs, [&](std::size_t i) { ++hits[i]; });
    EXPECT_EQ(hits, std::vector<int>(37, 1)) << jobs << " jobs";
  }
  parallelFor(0, 4, [](std::size_t) { FAIL() << "no item to run"; });
}

TEST(ParallelFor, UsesSeveralThreads) {
  // Two items that each wait for the other to start can only finish on two threads.
  std::atomic<int> started{0};
  parallelFor(2, 2, [&](std::size_t) {
    ++started;
    while (started.load() < 2) {
      std::this_thread::yield();
    }
  });
  EXPECT_EQ(started.load(), 2);
}

TEST(ParallelFor, RethrowsTheLowestFailingItem) {
  for (std::size_t jobs : {1U, 2U, 4U}) {
    try {
      parallelFor(20, jobs, [](std::size_t i) {
        if (i == 7 || i == 11) {
          throw std::runtime_error("item " + std::to_string(i));
        }
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "item 7") << jobs << " jobs";
    }
  }
}

}  // namespace
}  // namespace npu
