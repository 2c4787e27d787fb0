//===- OptionRange.h - bounds of integer pass options -----------*- C++ -*-===//
//
// Every integer option of the ssd passes and pipelines has a documented
// range, defined once in SettingRanges.h. A pass checks its own once, in
// `initialize`; a pipeline checks, when its options are parsed, those that
// no pass it builds checks. One wording for every option:
//
//   <pass or pipeline>: <option> must be in [<min>, <max>], got <value>
//
//===----------------------------------------------------------------------===//

#ifndef SSD_SUPPORT_OPTIONRANGE_H
#define SSD_SUPPORT_OPTIONRANGE_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "ssd/Support/SettingRanges.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
namespace ssd {

/// One integer option's value and its documented range.
struct OptionRange {
  llvm::StringRef option;
  int64_t value;
  SettingRange range;
};

/// The one-line message for the first option of `options` outside its
/// range, prefixed with `owner` (the pass or pipeline), or nothing.
inline std::optional<std::string>
whyOutOfRange(llvm::StringRef owner, llvm::ArrayRef<OptionRange> options) {
  for (const OptionRange &o : options)
    if (std::string why =
            whyOutOfRange(owner.str(), o.option.str(), o.range, o.value);
        !why.empty())
      return why;
  return std::nullopt;
}

/// whyOutOfRange as an error diagnostic (for a pass's `initialize`, which
/// has no operation to point at).
inline LogicalResult checkOptionRanges(MLIRContext *context,
                                       llvm::StringRef owner,
                                       llvm::ArrayRef<OptionRange> options) {
  if (std::optional<std::string> why = whyOutOfRange(owner, options))
    return emitError(UnknownLoc::get(context)) << *why;
  return success();
}

} // namespace ssd
} // namespace mlir

#endif // SSD_SUPPORT_OPTIONRANGE_H
