//===- CostModel.cpp - the emulator's cost model: the rules ---------------===//
//
// Bank conflicts of shared-memory instructions and sectors of global ones
// (CostModel.h), as plain functions of the lanes' accesses.
//
//===----------------------------------------------------------------------===//

#include "CostModel.h"

#include "Collectives.h"

#include <algorithm>

using namespace ssd::emulator;

namespace {

constexpr unsigned kBanks = 32;
constexpr uint64_t kMaxWordsPerPhase = 128; // 32 lanes x 4 words (16 bytes)

/// The largest number of distinct words in one bank among `words`
/// (sorted in place unless no two distinct words share a bank).
uint64_t worstBank(uint64_t *words, size_t count) {
  if (count == 0)
    return 0;
  // The common case first: every bank holds at most one distinct word.
  uint64_t owner[kBanks];
  uint32_t used = 0;
  bool conflict = false;
  for (size_t i = 0; i < count && !conflict; ++i) {
    const unsigned bank = words[i] % kBanks;
    if (!(used & (1u << bank))) {
      used |= 1u << bank;
      owner[bank] = words[i];
    } else {
      conflict = owner[bank] != words[i];
    }
  }
  if (!conflict)
    return 1;
  std::sort(words, words + count);
  unsigned perBank[kBanks] = {};
  unsigned worst = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i && words[i] == words[i - 1])
      continue; // lanes sharing a word: one access (broadcast)
    worst = std::max(worst, ++perBank[words[i] % kBanks]);
  }
  return worst;
}

} // namespace

uint64_t ssd::emulator::sharedWavefronts(const LaneAccess *accesses,
                                         size_t count, uint64_t &phases) {
  uint32_t widest = 0;
  for (size_t i = 0; i < count; ++i)
    widest = std::max(widest, accesses[i].bytes);
  if (widest == 0)
    return 0;
  if (widest > 16) {
    // Wider than any single instruction (memcpy): 16-byte pieces, each a
    // warp-level access of its own.
    uint64_t total = 0;
    LaneAccess piece[kWarpSize];
    for (uint32_t start = 0; start < widest; start += 16) {
      size_t n = 0;
      for (size_t i = 0; i < count && n < kWarpSize; ++i)
        if (accesses[i].bytes > start)
          piece[n++] = {accesses[i].address + start,
                        std::min<uint32_t>(16, accesses[i].bytes - start),
                        accesses[i].lane};
      total += sharedWavefronts(piece, n, phases);
    }
    return total;
  }
  if (widest <= 4) {
    // One phase; the common case first: each lane's bytes lie in one word
    // and no two distinct words share a bank.
    uint64_t owner[kBanks];
    uint32_t used = 0;
    bool simple = true;
    for (size_t i = 0; i < count && simple; ++i) {
      const LaneAccess &a = accesses[i];
      if (a.bytes == 0)
        continue;
      const uint64_t word = a.address / 4;
      if ((a.address + a.bytes - 1) / 4 != word) {
        simple = false;
        break;
      }
      const unsigned bank = word % kBanks;
      if (!(used & (1u << bank))) {
        used |= 1u << bank;
        owner[bank] = word;
      } else if (owner[bank] != word) {
        simple = false;
      }
    }
    if (simple) {
      phases += used ? 1 : 0;
      return used ? 1 : 0;
    }
  }
  // 128 bytes per phase: 32 lanes of 4 bytes, 16 of 8, 8 of 16.
  const unsigned lanesPerPhase = widest <= 4 ? 32 : widest <= 8 ? 16 : 8;
  uint64_t total = 0;
  uint64_t words[kMaxWordsPerPhase];
  size_t i = 0;
  while (i < count) {
    const unsigned phase = accesses[i].lane / lanesPerPhase;
    size_t n = 0;
    for (; i < count && accesses[i].lane / lanesPerPhase == phase; ++i) {
      const LaneAccess &a = accesses[i];
      if (a.bytes == 0)
        continue;
      for (uint64_t w = a.address / 4;
           w <= (a.address + a.bytes - 1) / 4 && n < kMaxWordsPerPhase; ++w)
        words[n++] = w;
    }
    phases += n ? 1 : 0;
    total += worstBank(words, n);
  }
  return total;
}

uint64_t ssd::emulator::ldmatrixWavefronts(const uint64_t *rows,
                                           unsigned matrices) {
  uint64_t total = 0;
  for (unsigned m = 0; m < matrices; ++m) {
    uint64_t words[32];
    size_t n = 0;
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned w = 0; w < 4; ++w)
        words[n++] = rows[8 * m + r] / 4 + w;
    total += worstBank(words, n);
  }
  return total;
}

//===----------------------------------------------------------------------===//
// Sectors
//===----------------------------------------------------------------------===//

SectorSet::Entry &SectorSet::find(uint64_t key) {
  if (table.empty())
    table.assign(1024, Entry{0, 0});
  const size_t mask = table.size() - 1;
  size_t slot = size_t((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (true) {
    Entry &e = table[slot];
    if (e.key == key)
      return e;
    if (e.key == 0) {
      if ((used + 1) * 2 > table.size()) {
        grow();
        return find(key);
      }
      ++used;
      e.key = key;
      return e;
    }
    slot = (slot + 1) & mask;
  }
}

void SectorSet::grow() {
  std::vector<Entry> old;
  old.swap(table);
  table.assign(old.size() * 2, Entry{0, 0});
  used = 0;
  last_ = nullptr;
  for (const Entry &e : old)
    if (e.key)
      find(e.key).bits = e.bits;
}

void SectorSet::insert(uint64_t sector) {
  const uint64_t key = sector / 64 + 1;
  const uint64_t bit = uint64_t(1) << (sector % 64);
  if (last_ && last_->key == key) {
    last_->bits |= bit;
    return;
  }
  Entry &e = find(key);
  e.bits |= bit;
  last_ = &e;
}

void SectorSet::insertRange(uint64_t first, uint64_t last) {
  while (first <= last) {
    const uint64_t key = first / 64 + 1;
    const unsigned low = first % 64;
    const uint64_t blockEnd = (first | 63);
    const unsigned high = unsigned((std::min(last, blockEnd)) % 64);
    const uint64_t bits =
        (high == 63 ? ~uint64_t(0) : ((uint64_t(1) << (high + 1)) - 1)) &
        ~((uint64_t(1) << low) - 1);
    if (last_ && last_->key == key) {
      last_->bits |= bits;
    } else {
      Entry &e = find(key);
      e.bits |= bits;
      last_ = &e;
    }
    if (blockEnd >= last)
      break;
    first = blockEnd + 1;
  }
}

void SectorSet::merge(const SectorSet &other) {
  for (const Entry &e : other.table)
    if (e.key) {
      Entry &mine = find(e.key);
      mine.bits |= e.bits;
    }
  last_ = nullptr;
}

uint64_t SectorSet::count() const {
  uint64_t total = 0;
  for (const Entry &e : table)
    total += uint64_t(__builtin_popcountll(e.bits));
  return total;
}

void SectorSet::clear() {
  if (used)
    std::fill(table.begin(), table.end(), Entry{0, 0});
  used = 0;
  last_ = nullptr;
}

uint64_t ssd::emulator::globalSectors(const LaneAccess *accesses, size_t count,
                                      SectorSet *sectors) {
  // The common case first: lanes in increasing lane order touch sectors in
  // non-decreasing order (each lane's first sector is at or after the
  // previous lane's last), so the distinct ones are counted in one pass.
  // (Sectors inserted before finding otherwise are inserted again below:
  // the set does not mind.)
  {
    uint64_t distinct = 0, last = 0;
    bool any = false, ordered = true;
    for (size_t i = 0; i < count; ++i) {
      const LaneAccess &a = accesses[i];
      if (a.bytes == 0)
        continue;
      const uint64_t first = a.address / 32;
      const uint64_t end = (a.address + a.bytes - 1) / 32;
      if (any && first < last) {
        ordered = false;
        break;
      }
      distinct += end - first + (any && first == last ? 0 : 1);
      any = true;
      last = end;
      if (sectors)
        sectors->insertRange(first, end);
    }
    if (ordered)
      return distinct;
  }
  size_t needed = 0;
  for (size_t i = 0; i < count; ++i)
    if (accesses[i].bytes)
      needed += (accesses[i].address + accesses[i].bytes - 1) / 32 -
                accesses[i].address / 32 + 1;
  uint64_t local[2 * kWarpSize];
  std::vector<uint64_t> large;
  uint64_t *list = local;
  if (needed > 2 * kWarpSize) {
    large.resize(needed);
    list = large.data();
  }
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    const LaneAccess &a = accesses[i];
    if (a.bytes)
      for (uint64_t s = a.address / 32; s <= (a.address + a.bytes - 1) / 32;
           ++s)
        list[n++] = s;
  }
  std::sort(list, list + n);
  uint64_t distinct = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i && list[i] == list[i - 1])
      continue;
    ++distinct;
    if (sectors)
      sectors->insert(list[i]);
  }
  return distinct;
}
