// Runs independent work items on several threads with results that do not depend on how many.
#pragma once

#include <cstddef>
#include <functional>

namespace npu {

/// Calls body(i) for every i in [0, count) on up to `jobs` threads (the calling thread among them;
/// jobs 0 counts as 1). Items are taken in increasing order. body must write only to item i's own
/// results; callers combine them in item order afterwards, which keeps every result independent of
/// `jobs`. When items throw, the exception of the lowest such item is rethrown after all threads
/// have stopped (later items may be skipped), as a sequential loop would throw it.
void parallelFor(std::size_t count, std::size_t jobs, const std::function<void(std::size_t)>& body);

}  // namespace npu
