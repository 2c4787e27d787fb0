//===- Waits.h - waits between blocks, and when they can never end -------===//
//
// A GPU thread may spin on a device word until another block writes it. The
// emulator runs a block's threads as fibers on one OS thread (a worker) and
// a launch's blocks on a few workers, so a spinning thread holds its worker.
// Here a spin is recognised exactly: a thread that reads a word (a strong
// load: acquire, volatile or relaxed atomic) and reads it again with
// nothing written to it in between reads what it read before, and will
// until something writes the word. So at that second read the worker
// blocks until a write to the word happens: a strong store or atomic noted
// here (Waits::noteWrites, once the store has executed) or, for a plain
// store, a change of the word's bytes. When every other worker is blocked
// the same way or done (no block is left to start), no write can come: a
// deadlock, whatever the timing. No poll counts or time windows decide it.
//
// The forward-progress rule of a GPU, which need not start another block
// while the running ones wait: the write that ends a wait must come from a
// block that had started when the wait began.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_LIB_GPURUNTIME_EMULATOR_WAITS_H
#define SSD_LIB_GPURUNTIME_EMULATOR_WAITS_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace ssd {
namespace emulator {

/// A thread's last strong read of a device word (before the load ran: the
/// word's write count and bytes then).
struct PollState {
  uintptr_t address = 0; ///< 0: the thread's last access was no such read
  uint64_t version = 0;
  uint32_t bytes = 0;
  uint8_t value[16] = {};
};

/// The largest load that counts as a poll.
constexpr uint32_t kMaxPollBytes = sizeof(PollState::value);

enum class PollOutcome : uint8_t {
  Read,       ///< something changed since the thread's last read: go on
  Woken,      ///< the thread waited, and a write ended the wait
  LateWriter, ///< ... written by a block started after the wait began
  Deadlock,   ///< the thread waits and no running block can write the word
  Failed,     ///< the thread waited and another block failed
};

class Waits {
public:
  explicit Waits(unsigned workers) : slots(workers) {}

  /// Blocks started so far (the next dispatch number).
  std::atomic<uint64_t> dispatched{0};

  /// Strong stores and atomics of block `dispatch` to `addresses` have
  /// executed; clears `addresses`.
  void noteWrites(std::vector<uintptr_t> &addresses, uint64_t dispatch);

  /// A strong read of `bytes` at device address `address` (host address
  /// `host`) by a thread of block `dispatch` on worker `worker`, about to
  /// load. Returns when the load may run; `writer` is the block whose write
  /// ended a wait (LateWriter).
  PollOutcome poll(unsigned worker, PollState &state, uintptr_t address,
                   const char *host, uint32_t bytes, uint64_t dispatch,
                   uint64_t &writer);

  /// Worker `worker` has no block left to run.
  void workerDone(unsigned worker);
  /// A block failed: waits end (PollOutcome::Failed).
  void fail();

private:
  struct Word {
    uint64_t version = 0, writer = 0; ///< writer: dispatch number
  };
  enum class State : uint8_t { Active, Blocked, Done };
  struct Slot {
    State state = State::Active;
    const PollState *poll = nullptr;
    const char *host = nullptr;
  };
  std::mutex mutex;
  std::condition_variable changed;
  std::unordered_map<uintptr_t, Word> words;
  std::vector<Slot> slots;
  unsigned blocked = 0;
  bool failed = false;

  uint64_t versionOf(uintptr_t address) const;
  /// Whether the word `state` read changed since (under the mutex).
  bool changedSince(const PollState &state, const char *host) const;
};

} // namespace emulator
} // namespace ssd

#endif // SSD_LIB_GPURUNTIME_EMULATOR_WAITS_H
