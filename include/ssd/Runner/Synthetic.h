//===- Synthetic.h - benchmark launches in the value ranges models use ----===//

#ifndef SSD_RUNNER_SYNTHETIC_H
#define SSD_RUNNER_SYNTHETIC_H

#include "ssd/Runner/Problem.h"

namespace ssd {

/// A launch of `batch` sequences of `length` tokens with the signature of
/// `like` (dtype, H, P, G, N, which optional operands exist, cache-index
/// layout, the pool's type and rounding): each sequence reads and writes its
/// own slot. Values follow the model ranges (x, B, C ~ N(0,1)-like, A in [-16,
/// -1], small dt) from a fast generator, since benchmark launches reach
/// billions of elements. With `like.checkpointInterval` set, each sequence also
/// checkpoints every boundary it crosses (K = length / interval columns, at
/// least 1) into slots of their own after the sequences' slots.
ScanProblem makeSyntheticProblem(const ScanProblem &like, int64_t batch,
                                 int64_t length, uint64_t seed);

/// Bytes one call must move at the least: read x, dt, B, C, write y, read
/// and write each sequence's state as the pool stores it (an 8-bit pool's
/// row scales included).
double minimumBytesMoved(const ScanProblem &p);

/// Flops of the chunked SSD decomposition with chunk length L (the three
/// matmuls plus the state update), a common measure for SSD throughput.
double chunkedFlops(const ScanProblem &p, int64_t chunkSize);

} // namespace ssd

#endif // SSD_RUNNER_SYNTHETIC_H
