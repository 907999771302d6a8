// The last few streams that passed the checks, compared whole (instructions and configuration)
// before anything is skipped: a comparison costs microseconds where the hazard check of a
// ResNet-sized stream costs milliseconds.
#include "verified_streams.h"

#include <deque>
#include <memory>
#include <mutex>

#include "npu/simulator/token_analysis.h"

namespace npu::sim {
namespace {

struct PassedStream {
  isa::NpuConfig config;
  std::vector<isa::Instruction> stream;
  bool hazardsChecked = false;
};

/// Enough for the NPU segments of a model and a few models in one process.
constexpr std::size_t kRemembered = 8;

class PassedStreams {
 public:
  [[nodiscard]] bool contains(const std::vector<isa::Instruction>& stream,
                              const isa::NpuConfig& config, bool hazards) const {
    std::deque<std::shared_ptr<const PassedStream>> entries;
    {
      const std::lock_guard lock(m_mutex);
      entries = m_entries;
    }
    // Compared outside the lock: parallel inputs (npu run --jobs) do not wait on each other.
    for (const auto& entry : entries) {
      if ((entry->hazardsChecked || !hazards) && entry->stream == stream &&
          entry->config == config) {
        return true;
      }
    }
    return false;
  }

  void add(const std::vector<isa::Instruction>& stream, const isa::NpuConfig& config,
           bool hazards) {
    auto entry = std::make_shared<const PassedStream>(PassedStream{config, stream, hazards});
    const std::lock_guard lock(m_mutex);
    m_entries.push_back(std::move(entry));
    if (m_entries.size() > kRemembered) {
      m_entries.pop_front();
    }
  }

 private:
  mutable std::mutex m_mutex;
  std::deque<std::shared_ptr<const PassedStream>> m_entries;
};

PassedStreams& passedStreams() {
  static PassedStreams streams;
  return streams;
}

}  // namespace

void checkStream(const std::vector<isa::Instruction>& stream, const isa::NpuConfig& config,
                 bool hazards) {
  PassedStreams& passed = passedStreams();
  if (passed.contains(stream, config, hazards)) {
    return;
  }
  const TokenOrder order = analyzeTokens(stream, config);
  if (hazards) {
    checkHazards(stream, order, config);
  }
  passed.add(stream, config, hazards);
}

}  // namespace npu::sim
