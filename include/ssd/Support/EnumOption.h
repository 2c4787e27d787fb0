//===- EnumOption.h - enum-valued options from one table --------*- C++ -*-===//
//
// Pass and pipeline options of an enum type get their accepted values from
// its table of EnumName entries (EnumName.h), so the option parser rejects
// anything else; tools that take the same value as a string parse it and
// word their errors from the same table. SSD_ENUM_PASS_OPTION makes a pass
// option of the enum name the valid values when it rejects one, which
// llvm::cl's parser does not.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_SUPPORT_ENUMOPTION_H
#define SSD_SUPPORT_ENUMOPTION_H

#include "ssd/Support/EnumName.h"

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace mlir {
namespace ssd {

/// The llvm::cl modifier that gives an option the values of `names`, as
/// `llvm::cl::values(clEnumValN(...), ...)` would; usable both on
/// `llvm::cl::opt` and on pass options (ODS `Option<..., additionalOptFlags>`).
template <typename Enum> struct EnumValues {
  llvm::ArrayRef<EnumName<Enum>> names;

  template <typename Opt> void apply(Opt &option) const {
    for (const EnumName<Enum> &entry : names)
      option.getParser().addLiteralOption(entry.name, entry.value, entry.help);
  }
};

template <typename Enum, size_t N>
EnumValues(const EnumName<Enum> (&)[N]) -> EnumValues<Enum>;

/// The parser of a pass option of enum type: MLIR's own (which can print a
/// value back) with an error that lists the values the option takes.
template <typename Enum>
struct EnumOptionParser : public llvm::cl::parser<Enum> {
  using llvm::cl::parser<Enum>::parser;

  std::optional<llvm::StringRef> findArgStrForValue(const Enum &value) {
    for (auto &entry : this->Values)
      if (entry.V.compare(value))
        return entry.Name;
    return std::nullopt;
  }

  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             Enum &value) {
    std::optional<std::string> expected =
        parseEnumValue(this->Values, arg, value);
    if (!expected)
      return false;
    return option.error("unknown value '" + arg + "' (expected " + *expected +
                        ")");
  }
};

} // namespace ssd
} // namespace mlir

/// Gives pass options of type `Enum` (a fully qualified name) the parser
/// above. At global scope, before any option of the type is declared.
#define SSD_ENUM_PASS_OPTION(Enum)                                             \
  template <>                                                                  \
  struct mlir::detail::PassOptions::GenericOptionParser<Enum>                  \
      : public ::mlir::ssd::EnumOptionParser<Enum> {                           \
    using ::mlir::ssd::EnumOptionParser<Enum>::EnumOptionParser;               \
  }

#endif // SSD_SUPPORT_ENUMOPTION_H
