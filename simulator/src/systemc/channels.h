// The channels between the SystemC units, owned by NpuTop: the three instruction queues (fetch ->
// unit, RTL npu_inst_queue) and the four dependency-token queues (RTL npu_control's token counters,
// indexed TQ_L2C ... TQ_S2C), each behind an interface a unit reaches through a port.
#pragma once

#include <systemc>

#include <cstddef>
#include <deque>

namespace npu::sim {

/// An in-order instruction queue between fetch and one unit: fetch pushes instruction indices and
/// closes the queue at END; the unit reads the head and pops it when it starts the instruction.
class CommandQueueIf : public virtual sc_core::sc_interface {
 public:
  /// Entries waiting.
  [[nodiscard]] virtual std::size_t size() const = 0;
  /// Capacity (`queues.instruction_depth`).
  [[nodiscard]] virtual std::size_t depth() const = 0;
  /// The index of the oldest entry; the queue must not be empty.
  [[nodiscard]] virtual std::size_t front() const = 0;
  /// Appends instruction `index` (RTL q_push); the queue must have room.
  virtual void push(std::size_t index) = 0;
  /// Removes the head (RTL q_pop): its unit has started it.
  virtual void pop() = 0;
  /// Fetch has reached END: no entry will follow.
  virtual void close() = 0;
  /// Whether close() was called.
  [[nodiscard]] virtual bool closed() const = 0;
  /// Notified (one delta later) by every push, pop and close.
  [[nodiscard]] virtual const sc_core::sc_event& changed() const = 0;
};

/// A dependency-token queue: a counter bounded by `queues.token_depth`, one producer, one consumer.
class TokenQueueIf : public virtual sc_core::sc_interface {
 public:
  /// Tokens available.
  [[nodiscard]] virtual std::size_t count() const = 0;
  /// Capacity.
  [[nodiscard]] virtual std::size_t depth() const = 0;
  /// Adds a token (the producer); the queue must have room.
  virtual void put() = 0;
  /// Consumes a token (the consumer); one must be available.
  virtual void take() = 0;
  /// Notified (one delta later) by every put and take.
  [[nodiscard]] virtual const sc_core::sc_event& changed() const = 0;
};

/// The instruction queue channel.
class CommandQueue : public sc_core::sc_prim_channel, public CommandQueueIf {
 public:
  CommandQueue(const char* name, std::size_t depth)
      : sc_core::sc_prim_channel(name), m_depth(depth) {}

  [[nodiscard]] std::size_t size() const override { return m_entries.size(); }
  [[nodiscard]] std::size_t depth() const override { return m_depth; }
  [[nodiscard]] std::size_t front() const override { return m_entries.front(); }
  void push(std::size_t index) override {
    m_entries.push_back(index);
    m_changed.notify(sc_core::SC_ZERO_TIME);
  }
  void pop() override {
    m_entries.pop_front();
    m_changed.notify(sc_core::SC_ZERO_TIME);
  }
  void close() override {
    m_closed = true;
    m_changed.notify(sc_core::SC_ZERO_TIME);
  }
  [[nodiscard]] bool closed() const override { return m_closed; }
  [[nodiscard]] const sc_core::sc_event& changed() const override { return m_changed; }
  /// Empty and open again, for the next run (no unit may be waiting on the queue).
  void reset() {
    m_entries.clear();
    m_closed = false;
    m_changed.cancel();
  }

 private:
  std::deque<std::size_t> m_entries;
  std::size_t m_depth;
  bool m_closed = false;
  sc_core::sc_event m_changed;
};

/// The token queue channel.
class TokenQueueChannel : public sc_core::sc_prim_channel, public TokenQueueIf {
 public:
  TokenQueueChannel(const char* name, std::size_t depth, std::size_t initial = 0)
      : sc_core::sc_prim_channel(name), m_count(initial), m_depth(depth) {}

  [[nodiscard]] std::size_t count() const override { return m_count; }
  [[nodiscard]] std::size_t depth() const override { return m_depth; }
  void put() override {
    ++m_count;
    m_changed.notify(sc_core::SC_ZERO_TIME);
  }
  void take() override {
    --m_count;
    m_changed.notify(sc_core::SC_ZERO_TIME);
  }
  [[nodiscard]] const sc_core::sc_event& changed() const override { return m_changed; }
  /// Back to `initial` tokens, for the next run (no unit may be waiting on the queue).
  void reset(std::size_t initial = 0) {
    m_count = initial;
    m_changed.cancel();
  }

 private:
  std::size_t m_count;
  std::size_t m_depth;
  sc_core::sc_event m_changed;
};

}  // namespace npu::sim
