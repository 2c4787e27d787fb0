//===- Waits.cpp - waits between blocks, and when they can never end ------===//

#include "Waits.h"

#include <chrono>
#include <cstring>

using namespace ssd::emulator;

namespace {

/// The word's bytes now. Another worker may be storing to it with a plain
/// store (a race the race check reports): read byte by byte, atomically.
void readBytes(const char *host, uint32_t bytes, uint8_t *out) {
  for (uint32_t i = 0; i < bytes; ++i)
    out[i] = __atomic_load_n(reinterpret_cast<const uint8_t *>(host + i),
                             __ATOMIC_RELAXED);
}

} // namespace

void Waits::noteWrites(std::vector<uintptr_t> &addresses, uint64_t dispatch) {
  std::lock_guard<std::mutex> lock(mutex);
  for (uintptr_t address : addresses) {
    Word &word = words[address];
    ++word.version;
    word.writer = dispatch;
  }
  addresses.clear();
  if (blocked)
    changed.notify_all();
}

uint64_t Waits::versionOf(uintptr_t address) const {
  auto it = words.find(address);
  return it == words.end() ? 0 : it->second.version;
}

bool Waits::changedSince(const PollState &state, const char *host) const {
  if (versionOf(state.address) != state.version)
    return true;
  uint8_t now[kMaxPollBytes];
  readBytes(host, state.bytes, now);
  return std::memcmp(now, state.value, state.bytes) != 0;
}

PollOutcome Waits::poll(unsigned worker, PollState &state, uintptr_t address,
                        const char *host, uint32_t bytes, uint64_t dispatch,
                        uint64_t &writer) {
  std::unique_lock<std::mutex> lock(mutex);
  if (state.address != address || state.bytes != bytes ||
      changedSince(state, host)) {
    // A first read, or the word changed since the last one (written before
    // or while that load ran): the coming load may read something new.
    state.address = address;
    state.bytes = bytes;
    state.version = versionOf(address);
    readBytes(host, bytes, state.value);
    return PollOutcome::Read;
  }
  // The thread reads what it read last time and nothing wrote the word in
  // between: it waits for a write.
  const uint64_t horizon = dispatched.load();
  Slot &self = slots[worker];
  self = {State::Blocked, &state, host};
  ++blocked;
  PollOutcome outcome;
  for (;;) {
    if (failed) {
      outcome = PollOutcome::Failed;
      break;
    }
    auto it = words.find(address);
    if (it != words.end() && it->second.version != state.version) {
      writer = it->second.writer;
      outcome = writer >= horizon && writer != dispatch
                    ? PollOutcome::LateWriter
                    : PollOutcome::Woken;
      break;
    }
    if (changedSince(state, host)) {
      outcome = PollOutcome::Woken; // a plain store
      break;
    }
    bool everyoneWaits = true, someoneWoken = false;
    for (const Slot &other : slots) {
      if (&other == &self || other.state == State::Done)
        continue;
      if (other.state == State::Active)
        everyoneWaits = false;
      else if (changedSince(*other.poll, other.host))
        someoneWoken = true;
    }
    if (everyoneWaits && !someoneWoken) {
      // Nobody runs, so nobody can write: the waits can never end.
      failed = true;
      changed.notify_all();
      outcome = PollOutcome::Deadlock;
      break;
    }
    if (someoneWoken)
      changed.notify_all();
    // Strong writes notify; a plain store to the word (a race) does not, so
    // the bytes are looked at again after a while.
    changed.wait_for(lock, std::chrono::milliseconds(1));
  }
  self = Slot{};
  --blocked;
  state.version = versionOf(address);
  readBytes(host, bytes, state.value);
  return outcome;
}

void Waits::workerDone(unsigned worker) {
  std::lock_guard<std::mutex> lock(mutex);
  slots[worker].state = State::Done;
  if (blocked)
    changed.notify_all();
}

void Waits::fail() {
  std::lock_guard<std::mutex> lock(mutex);
  failed = true;
  if (blocked)
    changed.notify_all();
}
