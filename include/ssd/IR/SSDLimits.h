//===- SSDLimits.h - documented maxima of the scan op ----------*- C++ -*-===//
//
// The largest extents and chunk size the op accepts on every target
// (docs/overview.md, "Limits"). The verifier rejects static extents above
// them, ssd-run (loadProblem) rejects input files above them before anything
// is compiled, and ssd-select-form / ssd-lower-to-loops reject options above
// them. They are far above every model (Mamba-2, Codestral Mamba, Nemotron-H,
// Granite-4, Falcon-H1: H <= 256, P <= 128, N <= 256, G <= 8, chunk 256) and
// chosen so that no index product the CPU loops form can overflow 64 bits
// and no per-task buffer is unbounded: the serial form's state tile is
// [rows, N] f32 with rows <= serial-p-tile and at most kMaxStateTileBytes
// (one 4 MiB row at N = 2^20), on the heap once it exceeds
// kMaxStackTileBytes. The GPU lowering enforces tighter
// bounds of its own (registers, shared memory, grid dimensions).
//
// Plain C++: included by the dialect and by the MLIR-free runner library.
// The namespace is mlir::ssd's, like FormSelection.h's, not a top-level
// `ssd`: an embedder who writes `using namespace mlir;` names the dialect's
// API as `ssd::`, which a second top-level `ssd` reached through an installed
// header would make ambiguous.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_IR_SSDLIMITS_H
#define SSD_IR_SSDLIMITS_H

#include <cstdint>

namespace mlir {
namespace ssd {
namespace limits {

/// nheads H.
constexpr int64_t kMaxHeads = int64_t(1) << 16;
/// head_dim P.
constexpr int64_t kMaxHeadDim = int64_t(1) << 16;
/// ngroups G (also at most H, which it divides).
constexpr int64_t kMaxGroups = int64_t(1) << 16;
/// dstate N.
constexpr int64_t kMaxDState = int64_t(1) << 20;
/// chunk_size L of the chunked form (also ssd-run --chunk-size).
constexpr int64_t kMaxChunkSize = int64_t(1) << 16;
/// Total tokens T: query_start_loc holds i32 offsets ending at T.
constexpr int64_t kMaxTokens = (int64_t(1) << 31) - 1;
/// serial-p-tile of ssd-lower-to-loops: head_dim rows per serial task.
constexpr int64_t kMaxSerialPTile = 1024;
/// Per-task scratch buffers of the CPU loops up to this size live on the
/// stack (memref.alloca); larger or dynamically sized ones on the heap.
constexpr int64_t kMaxStackTileBytes = 64 * 1024;
/// The serial form's [rows, N] state tile holds at most this many bytes:
/// fewer than serial-p-tile rows when N is large (one row when N > 2^18).
constexpr int64_t kMaxStateTileBytes = 4 * 1024 * 1024;

} // namespace limits
} // namespace ssd
} // namespace mlir

#endif // SSD_IR_SSDLIMITS_H
