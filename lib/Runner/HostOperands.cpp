//===- HostOperands.cpp - an op's operands in host memory -----------------===//

#include "ssd/Runner/HostOperands.h"

#include "ssd/IR/SSDLimits.h"
#include "ssd/Runner/Npy.h"
#include "ssd/Runner/PoolFormat.h"
#include "ssd/Transforms/FormSelection.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <sstream>

using namespace ssd;

std::vector<OperandLayout> ssd::operandLayouts(const ScanProblem &p) {
  std::string model = toString(p.dtype);
  std::vector<OperandLayout> operands = {{"x", {p.T, p.H, p.P}, model},
                                         {"dt", {p.T, p.H}, model},
                                         {"A", {p.H}, model},
                                         {"B", {p.T, p.G, p.N}, model},
                                         {"C", {p.T, p.G, p.N}, model}};
  if (p.hasD)
    operands.push_back({"D", {p.H}, model});
  if (p.hasDtBias)
    operands.push_back({"dt_bias", {p.H}, model});
  operands.push_back(
      {"ssm_pool", {p.S, p.H, p.P, p.N}, poolElementType(p.poolDType)});
  if (isScaledPool(p.poolDType))
    operands.push_back({"ssm_pool_scales", {p.S, p.H, p.P}, "f32"});
  operands.push_back({"query_start_loc", {p.batch + 1}, "i32"});
  if (p.hasInitialStatePresent)
    operands.push_back({"has_initial_state", {p.batch}, "i1"});
  std::vector<int64_t> indexShape = {p.batch};
  if (p.cacheIndicesRow)
    indexShape.insert(indexShape.begin(), 1);
  operands.push_back(
      {"cache_indices", indexShape, p.cacheIndicesUnsigned ? "ui32" : "i32"});
  if (p.updateStatePresent)
    operands.push_back({"update_state", {p.batch}, "i1"});
  if (p.checkpointSlotsPresent)
    operands.push_back({"checkpoint_slots",
                        {p.batch, p.checkpointK},
                        p.checkpointSlotsUnsigned ? "ui32" : "i32"});
  if (p.checkpointOffsetsPresent)
    operands.push_back({"checkpoint_offsets", {p.batch}, "i32"});
  if (p.tokenParentsPresent)
    operands.push_back({"token_parents", {p.T}, "i32"});
  if (p.poolRounding == PoolRounding::Stochastic)
    operands.push_back({"rounding_seed", {}, "i64"});
  operands.push_back({"outs", {p.T, p.H, p.P}, model});
  return operands;
}

std::string ssd::signatureKey(const ScanProblem &p) {
  std::ostringstream key;
  key << "dtype=" << toString(p.dtype) << " H=" << p.H << " P=" << p.P
      << " G=" << p.G << " N=" << p.N << " D=" << p.hasD
      << " dt_bias=" << p.hasDtBias
      << " has_initial_state=" << p.hasInitialStatePresent
      << " update_state=" << p.updateStatePresent
      << " cache_indices=" << (p.cacheIndicesUnsigned ? "ui32" : "i32")
      << (p.cacheIndicesRow ? "[1,batch]" : "[batch]");
  // Only a pool other than f32 shows, so that every key of an f32 pool
  // stays as it was; likewise only stochastic rounding (an attribute of the
  // op and one more operand).
  if (p.poolDType != PoolDType::F32)
    key << " pool=" << toString(p.poolDType);
  if (p.poolRounding == PoolRounding::Stochastic)
    key << " rounding=stochastic";
  // Likewise only a call with checkpoints shows them: K is a static extent
  // of the compiled function and the interval an attribute of its op.
  if (p.checkpointSlotsPresent)
    key << " checkpoint_slots=" << (p.checkpointSlotsUnsigned ? "ui32" : "i32")
        << "[batch," << p.checkpointK << "]"
        << " checkpoint_offsets=" << p.checkpointOffsetsPresent
        << " checkpoint_interval=" << p.checkpointInterval;
  // A tree is an operand of its own and plans the serial form only.
  if (p.tokenParentsPresent)
    key << " token_parents";
  return key.str();
}

std::string ssd::variantKey(const ScanProblem &p, const VariantChoices &c) {
  std::string key = signatureKey(p) + " form=" + c.form +
                    " chunk=" + std::to_string(c.chunkSize);
  // Only a bound other than the default shows, so that every other key
  // stays as it was.
  if (c.headsPerBlock != mlir::ssd::kDefaultHeadsPerBlock)
    key += " heads_per_block=" + std::to_string(c.headsPerBlock);
  if (c.pipelineStages != mlir::ssd::kDefaultPipelineStages)
    key += " pipeline_stages=" + std::to_string(c.pipelineStages);
  if (c.cbInBlock)
    key += " cb_in_block";
  if (c.invariant)
    key += " invariant";
  return key;
}

double ssd::cpuWorkspaceBytes(const ScanProblem &p, bool chunked,
                              int64_t chunkSize, int threads) {
  const double T = double(p.T), H = double(p.H), P = double(p.P),
               G = double(p.G), N = double(p.N), S = double(p.S),
               batch = double(p.batch);
  // Writer order ([S] i32 readers, [batch] i1) and the active-sequence list
  // ([batch] index): both forms.
  double bytes = 4 * S + batch + 8 * batch;
  if (!chunked) {
    // The [rows, N] f32 state tile of each running task (rows: at most the
    // default serial-p-tile; at most kMaxStateTileBytes of state, or one
    // row), and its B and C rows widened to f32 (16-bit models).
    const double pTile = double(mlir::ssd::kSerialPTileDefault);
    const double maxTile = double(mlir::ssd::limits::kMaxStateTileBytes);
    bytes += double(threads) *
             (std::min(std::min(pTile, P) * N * 4, std::max(maxTile, N * 4)) +
              2 * N * 4);
    return bytes;
  }
  const double L = double(chunkSize);
  const double K = std::ceil(T / L) + std::min(batch, T);
  const double R = std::min(L, T);
  bytes += 8 * (batch + 1) + 3 * 8 * K; // the chunk work list
  bytes += 2 * 4 * T * H;               // processed dt and cumsums
  if (p.checkpointSlotsPresent)
    bytes += 4 * T * H;       // each token's decay, for intra-chunk checkpoints
  bytes += 4 * K * H * P * N; // chunk states
  bytes += 4 * K * G * R * R; // C Bᵀ
  bytes += double(threads) * 4 * P; // the output's [P] accumulator
  return bytes;
}

//===----------------------------------------------------------------------===//
// HostOperands
//===----------------------------------------------------------------------===//

namespace {

void appendModelArray(std::vector<uint8_t> &bytes, const std::vector<float> &v,
                      ModelDType t) {
  if (t == ModelDType::F32) {
    bytes.resize(v.size() * 4);
    if (!v.empty())
      std::memcpy(bytes.data(), v.data(), bytes.size());
    return;
  }
  bytes.resize(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t bits =
        t == ModelDType::F16 ? floatToHalfBits(v[i]) : floatToBF16Bits(v[i]);
    std::memcpy(bytes.data() + 2 * i, &bits, 2);
  }
}

template <typename T> std::vector<uint8_t> rawBytes(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

/// The operands in the model dtype, by keyword.
const std::pair<const char *, std::vector<float> ScanProblem::*>
    kModelOperands[] = {
        {"x", &ScanProblem::x},           {"dt", &ScanProblem::dt},
        {"A", &ScanProblem::A},           {"B", &ScanProblem::B},
        {"C", &ScanProblem::C},           {"D", &ScanProblem::D},
        {"dt_bias", &ScanProblem::dtBias}};

} // namespace

HostOperands::HostOperands(const ScanProblem &p) : problem(p) {
  for (const OperandLayout &o : operandLayouts(p)) {
    Buffer buffer;
    buffer.shape = o.shape;
    const auto *model =
        std::find_if(std::begin(kModelOperands), std::end(kModelOperands),
                     [&](const auto &m) { return o.name == m.first; });
    if (model != std::end(kModelOperands))
      appendModelArray(buffer.bytes, p.*model->second, p.dtype);
    else if (o.name == "ssm_pool") {
      poolPosition = buffers.size();
      if (isScaledPool(p.poolDType))
        buffer.bytes = p.poolCodes;
      else if (p.poolDType == PoolDType::BF16 || p.poolDType == PoolDType::F16)
        appendModelArray(buffer.bytes, p.pool,
                         p.poolDType == PoolDType::BF16 ? ModelDType::BF16
                                                        : ModelDType::F16);
      else
        buffer.bytes = rawBytes(p.pool);
    } else if (o.name == "ssm_pool_scales") {
      scalesPosition = buffers.size();
      buffer.bytes = rawBytes(p.poolScales);
    } else if (o.name == "rounding_seed") {
      buffer.bytes = rawBytes(std::vector<int64_t>{p.roundingSeed});
    } else if (o.name == "query_start_loc")
      buffer.bytes = rawBytes(p.queryStartLoc);
    else if (o.name == "has_initial_state")
      buffer.bytes = rawBytes(p.hasInitialState);
    else if (o.name == "cache_indices")
      buffer.bytes = rawBytes(p.cacheIndices);
    else if (o.name == "update_state")
      buffer.bytes = rawBytes(p.updateState);
    else if (o.name == "checkpoint_slots")
      buffer.bytes = rawBytes(p.checkpointSlots);
    else if (o.name == "checkpoint_offsets")
      buffer.bytes = rawBytes(p.checkpointOffsets);
    else if (o.name == "token_parents")
      buffer.bytes = rawBytes(p.tokenParents);
    else if (o.name == "outs") {
      yPosition = buffers.size();
      buffer.bytes.assign(static_cast<size_t>(p.T * p.H * p.P) *
                              (p.dtype == ModelDType::F32 ? 4 : 2),
                          0);
    }
    buffers.push_back(std::move(buffer));
  }
}

void HostOperands::readOutputs(std::vector<float> &y,
                               std::vector<float> &pool) const {
  const std::vector<uint8_t> &yBytes = buffers[yPosition].bytes;
  size_t count = static_cast<size_t>(problem.T * problem.H * problem.P);
  y.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (problem.dtype == ModelDType::F32) {
      std::memcpy(&y[i], yBytes.data() + 4 * i, 4);
      continue;
    }
    uint16_t bits;
    std::memcpy(&bits, yBytes.data() + 2 * i, 2);
    y[i] = problem.dtype == ModelDType::F16 ? halfBitsToFloat(bits)
                                            : bf16BitsToFloat(bits);
  }
  const std::vector<uint8_t> &poolBytes = buffers[poolPosition].bytes;
  if (isScaledPool(problem.poolDType)) {
    const std::vector<uint8_t> &scaleBytes = buffers[scalesPosition].bytes;
    pool.resize(poolBytes.size());
    const size_t N = size_t(problem.N);
    for (size_t i = 0; i < pool.size(); ++i) {
      float scale;
      std::memcpy(&scale, scaleBytes.data() + 4 * (i / N), 4);
      pool[i] = decodePoolCode(problem.poolDType, poolBytes[i], scale);
    }
    return;
  }
  if (problem.poolDType == PoolDType::BF16 ||
      problem.poolDType == PoolDType::F16) {
    pool.resize(poolBytes.size() / 2);
    for (size_t i = 0; i < pool.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, poolBytes.data() + 2 * i, 2);
      pool[i] = problem.poolDType == PoolDType::BF16 ? bf16BitsToFloat(bits)
                                                     : halfBitsToFloat(bits);
    }
    return;
  }
  pool.resize(poolBytes.size() / 4);
  if (!pool.empty())
    std::memcpy(pool.data(), poolBytes.data(), poolBytes.size());
}

void HostOperands::readOutputs(std::vector<float> &y,
                               PoolContents &pool) const {
  if (!isScaledPool(problem.poolDType)) {
    readOutputs(y, pool.values);
    return;
  }
  std::vector<float> decoded;
  readOutputs(y, decoded);
  pool.codes = buffers[poolPosition].bytes;
  const std::vector<uint8_t> &scaleBytes = buffers[scalesPosition].bytes;
  pool.scales.resize(scaleBytes.size() / 4);
  if (!pool.scales.empty())
    std::memcpy(pool.scales.data(), scaleBytes.data(), scaleBytes.size());
}

std::vector<size_t> HostOperands::writtenIndices() const {
  std::vector<size_t> written = {yPosition, poolPosition};
  if (isScaledPool(problem.poolDType))
    written.push_back(scalesPosition);
  return written;
}

size_t ssd::elementBytes(const std::string &elementType) {
  if (elementType == "i1" || elementType == "i8" || elementType == "f8E4M3FN")
    return 1;
  if (elementType == "i64")
    return 8;
  if (elementType == "f16" || elementType == "bf16")
    return 2;
  return 4;
}

std::vector<std::vector<int64_t>>
ssd::stridedDescriptors(const std::vector<std::vector<int64_t>> &shapes,
                        const std::vector<void *> &data) {
  std::vector<std::vector<int64_t>> result;
  result.reserve(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::vector<int64_t> &shape = shapes[i];
    auto pointer = reinterpret_cast<int64_t>(data[i]);
    std::vector<int64_t> d = {pointer, pointer, 0};
    d.insert(d.end(), shape.begin(), shape.end());
    std::vector<int64_t> strides(shape.size(), 1);
    for (int j = static_cast<int>(shape.size()) - 2; j >= 0; --j)
      strides[j] = strides[j + 1] * shape[j + 1];
    d.insert(d.end(), strides.begin(), strides.end());
    result.push_back(std::move(d));
  }
  return result;
}

std::vector<std::vector<int64_t>>
HostOperands::descriptors(const std::vector<void *> &data) const {
  std::vector<std::vector<int64_t>> shapes;
  for (const Buffer &buffer : buffers)
    shapes.push_back(buffer.shape);
  return stridedDescriptors(shapes, data);
}
