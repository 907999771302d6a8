// TokenEmitter: dependency discovery over interval shadows, and token placement.
#include "npu/compiler/codegen/token_emitter.h"

#include <algorithm>

#include "npu/isa/tokens.h"

namespace npu::compiler {
namespace {

constexpr std::size_t kLoad = isa::unitIndex(isa::Unit::Load);
constexpr std::size_t kCompute = isa::unitIndex(isa::Unit::Compute);
constexpr std::size_t kStore = isa::unitIndex(isa::Unit::Store);

std::size_t unitOf(const isa::Instruction& instruction) {
  return isa::unitIndex(isa::executingUnit(instruction));
}

// Sets the pop flag of every queue in `pops` (indexed by isa::TokenQueue).
void applyPops(isa::Instruction& instruction, const TokenEmitter::QueueSet& pops) {
  for (std::size_t q = 0; q < pops.size(); ++q) {
    if (pops[q]) {
      isa::setTokenFlag(instruction, isa::popFlagOf(static_cast<isa::TokenQueue>(q)));
    }
  }
}

}  // namespace

std::size_t TokenEmitter::append(const isa::Instruction& instruction, std::int64_t origin) {
  m_stream.push_back(instruction);
  m_origins.push_back(origin);
  const std::size_t unit = unitOf(instruction);
  m_units.push_back(static_cast<std::uint8_t>(unit));
  const std::size_t index = m_stream.size() - 1;
  if (unit >= isa::kExecutingUnits) {  // END: fetch's, waits for nothing
    m_frontiers.push_back(Frontier{-1, -1, -1});
    return index;
  }
  m_frontiers.push_back(m_satisfied[unit]);
  m_newest[unit] = static_cast<std::int64_t>(index);
  if (unit == kCompute) {
    m_computeIndices.push_back(static_cast<std::int64_t>(index));
    if (!isa::isOverlapped(instruction)) {
      m_barrier = static_cast<std::int64_t>(index);
    }
  }
  return index;
}

bool TokenEmitter::conflictsBeside(const std::vector<isa::Access>& accesses) const {
  const auto beside = [&](std::int64_t other) {
    return other >= m_barrier && m_units[static_cast<std::size_t>(other)] == kCompute &&
           isa::onMacSide(m_stream[static_cast<std::size_t>(other)]);
  };
  for (const isa::Access& access : accesses) {
    const isa::ShadowPages<Shadow>& shadow = m_shadow[static_cast<std::size_t>(access.space)];
    bool conflict = false;
    access.forEachRun([&](std::uint64_t first, std::uint64_t length) {
      conflict = conflict || shadow
                                 .find(first, first + length,
                                       [&](std::uint64_t, const Shadow& state) {
                                         return beside(state.writer) ||
                                                (access.write && beside(state.reader[kCompute]));
                                       })
                                 .has_value();
    });
    if (conflict) {
      return true;
    }
  }
  return false;
}

std::int64_t TokenEmitter::tokenSource(std::int64_t producer, std::int64_t origin) {
  if (!isa::isOverlapped(m_stream[static_cast<std::size_t>(producer)])) {
    return producer;
  }
  for (auto k = static_cast<std::size_t>(producer) + 1; k < m_stream.size(); ++k) {
    if (m_units[k] == kCompute && !isa::isOverlapped(m_stream[k])) {
      return static_cast<std::int64_t>(k);
    }
  }
  isa::Sync sync;
  sync.unit = static_cast<std::int64_t>(kCompute);
  return static_cast<std::int64_t>(append(sync, origin));
}

void TokenEmitter::require(std::size_t unit, std::int64_t producer, std::int64_t origin,
                           QueueSet& pops) {
  const std::size_t from = m_units[static_cast<std::size_t>(producer)];
  if (from == unit || producer <= m_satisfied[unit][from]) {
    return;  // same unit (in order, or kept apart by conflictsBeside) or already ordered
  }
  producer = tokenSource(producer, origin);
  if (producer <= m_satisfied[unit][from]) {
    return;
  }
  const auto p = static_cast<std::size_t>(producer);
  if (const std::optional<isa::TokenQueue> queue =
          isa::tokenQueueBetween(isa::unitAt(from), isa::unitAt(unit))) {
    // Neighbours: the producer pushes a token the consumer pops.
    isa::setTokenFlag(m_stream[p], isa::pushFlagOf(*queue));
    pops[static_cast<std::size_t>(*queue)] = true;
  } else {
    // Load and store are not neighbours: a SYNC on compute waits for the producer, then the
    // consumer waits for the SYNC.
    require(unit, static_cast<std::int64_t>(syncComputeWith(producer, origin)), origin, pops);
  }
  // The producer ended after everything it had waited for ended: a later dependency of this unit
  // on any of those needs no token of its own (no SYNC placed late in compute's order, which
  // held a copy's next LOAD behind the current POOL).
  Frontier& known = m_satisfied[unit];
  const Frontier& inherited = m_frontiers[p];
  for (std::size_t u = 0; u < known.size(); ++u) {
    if (u != unit) {
      known[u] = std::max(known[u], inherited[u]);
    }
  }
  known[from] = std::max(known[from], producer);
}

std::array<std::int64_t, isa::kExecutingUnits> TokenEmitter::producersOf(
    const std::vector<isa::Access>& accesses) const {
  // Per unit only the newest, since the older ones precede it there.
  std::array<std::int64_t, isa::kExecutingUnits> newest{-1, -1, -1};
  const auto follow = [&](std::int64_t producer) {
    if (producer >= 0) {
      std::int64_t& slot = newest[m_units[static_cast<std::size_t>(producer)]];
      slot = std::max(slot, producer);
    }
  };
  for (const isa::Access& access : accesses) {
    const isa::ShadowPages<Shadow>& shadow = m_shadow[static_cast<std::size_t>(access.space)];
    access.forEachRun([&](std::uint64_t first, std::uint64_t length) {
      shadow.find(first, first + length, [&](std::uint64_t, const Shadow& state) {
        follow(state.writer);
        if (access.write) {
          for (const std::int64_t reader : state.reader) {
            follow(reader);
          }
        }
        return false;
      });
    });
  }
  return newest;
}

std::int64_t TokenEmitter::newestProducer(const isa::Instruction& instruction) const {
  const std::array<std::int64_t, isa::kExecutingUnits> newest =
      producersOf(isa::footprint(instruction));
  return *std::max_element(newest.begin(), newest.end());
}

void TokenEmitter::emit(const isa::Instruction& requested, std::int64_t origin) {
  isa::Instruction instruction = requested;
  const std::size_t unit = unitOf(instruction);
  const std::size_t lane = isa::laneOf(instruction);
  const std::vector<isa::Access> accesses = isa::footprint(instruction);
  if (auto* eltwise = std::get_if<isa::Eltwise>(&instruction);
      eltwise != nullptr && eltwise->overlap != 0 && conflictsBeside(accesses)) {
    eltwise->overlap = 0;  // it must wait for the CONVs it would run beside
  }
  // The producers this instruction must follow, gathered first so SYNCs land before it.
  std::array<std::int64_t, isa::kExecutingUnits> newest = producersOf(accesses);
  // A LOAD after a STORE (or the reverse) waits through compute. When a compute instruction
  // this unit has not waited for yet had itself waited for that producer, waiting for it is
  // enough: a SYNC appended now would run only after everything compute has queued so far (a
  // whole cascade, when the shuffle after it loads the other branch's output).
  if (unit != kCompute) {
    const std::size_t other = unit == kLoad ? kStore : kLoad;
    if (newest[other] > m_satisfied[unit][other]) {
      const std::int64_t after = m_satisfied[unit][kCompute];
      const std::int64_t producer = newest[other];
      // Both conditions hold on a prefix: indices rise, and so do the frontiers.
      const auto carrier = std::partition_point(
          m_computeIndices.begin(), m_computeIndices.end(), [&](std::int64_t c) {
            return c <= after || m_frontiers[static_cast<std::size_t>(c)][other] < producer;
          });
      if (carrier != m_computeIndices.end()) {
        newest[kCompute] = std::max(newest[kCompute], *carrier);
      }
    }
  }
  // Load and store reach each other through a SYNC on compute; handle that first, so a direct
  // dependency on an older compute instruction is already covered by the SYNC (one token per
  // queue per instruction).
  QueueSet pops{};
  std::array<std::size_t, 2> order =
      unit == kCompute ? std::array<std::size_t, 2>{kLoad, kStore}
                       : std::array<std::size_t, 2>{unit == kLoad ? kStore : kLoad, kCompute};
  // Unless the compute producer had itself waited for the load/store producer: then its direct
  // token covers both, and no SYNC is needed.
  if (unit != kCompute && newest[kCompute] >= 0 && newest[order[0]] >= 0 &&
      m_frontiers[static_cast<std::size_t>(newest[kCompute])][order[0]] >= newest[order[0]]) {
    order = {kCompute, order[0]};
  }
  for (const std::size_t from : order) {
    if (newest[from] >= 0) {
      require(unit, newest[from], origin, pops);
    }
  }
  isa::Instruction placed = instruction;
  applyPops(placed, pops);
  const auto self = static_cast<std::int64_t>(append(placed, origin));

  // Record the accesses.
  for (const isa::Access& access : accesses) {
    isa::ShadowPages<Shadow>& shadow = m_shadow[static_cast<std::size_t>(access.space)];
    access.forEachRun([&](std::uint64_t first, std::uint64_t length) {
      if (access.write) {
        shadow.assign(first, first + length, Shadow{.writer = self});
      } else {
        shadow.transform(first, first + length, [&](Shadow state) {
          state.reader[lane] = self;
          return state;
        });
      }
    });
  }
}

std::int64_t TokenEmitter::newestOf(isa::Unit unit) const {
  return m_newest[isa::unitIndex(unit)];
}

void TokenEmitter::settleStores(std::int64_t store, std::int64_t origin) {
  if (store < 0 || store <= m_satisfied[kCompute][kStore]) {
    return;
  }
  syncComputeWith(store, origin);
}

std::size_t TokenEmitter::syncComputeWith(std::int64_t producer, std::int64_t origin) {
  QueueSet pops{};
  require(kCompute, producer, origin, pops);
  isa::Sync sync;
  sync.unit = static_cast<std::int64_t>(kCompute);
  isa::Instruction instruction = sync;
  applyPops(instruction, pops);
  return append(instruction, origin);
}

std::vector<isa::Instruction> TokenEmitter::finish() {
  append(isa::End{}, -1);
  return std::move(m_stream);
}

}  // namespace npu::compiler
