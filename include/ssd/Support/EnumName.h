//===- EnumName.h - how options spell the values of an enum -----*- C++ -*-===//
//
// Each enum an option takes (form, chip, binary format) is spelled in one
// table of EnumName entries. Plain C++: the ahead-of-time runner, which links
// neither LLVM nor MLIR, parses and lists the same spellings as the pass and
// pipeline options (EnumOption.h) and the tools.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_SUPPORT_ENUMNAME_H
#define SSD_SUPPORT_ENUMNAME_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mlir {
namespace ssd {

/// How an option spells one value of `Enum`.
template <typename Enum> struct EnumName {
  Enum value;
  const char *name;
  const char *help;
};

/// The value spelled `name` in `names`, if any.
template <typename Enum, size_t N>
std::optional<Enum> parseEnumName(const EnumName<Enum> (&names)[N],
                                  std::string_view name) {
  for (const EnumName<Enum> &entry : names)
    if (name == entry.name)
      return entry.value;
  return std::nullopt;
}

/// The spelling of `value` (an `Enum`, or an option holding one) in `names`
/// ("" when it has none).
template <typename Enum, size_t N, typename Value>
std::string enumName(const EnumName<Enum> (&names)[N], const Value &value) {
  for (const EnumName<Enum> &entry : names)
    if (entry.value == static_cast<Enum>(value))
      return entry.name;
  return "";
}

/// "a, b or c": the valid spellings, for a tool's error message.
template <typename Enum, size_t N>
std::string listEnumNames(const EnumName<Enum> (&names)[N]) {
  std::string list;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0)
      list += i + 1 == N ? " or " : ", ";
    list += names[i].name;
  }
  return list;
}

/// The value spelled `value` in `names` for a tool's `flag`; otherwise false
/// with the one-line error "unknown FLAG 'VALUE' (expected a, b or c)".
template <typename Enum, size_t N>
bool parseEnumFlag(const EnumName<Enum> (&names)[N], std::string_view flag,
                   std::string_view value, Enum &out, std::string &error) {
  if (std::optional<Enum> parsed = parseEnumName(names, value)) {
    out = *parsed;
    return true;
  }
  error = "unknown " + std::string(flag) + " '" + std::string(value) +
          "' (expected " + listEnumNames(names) + ")";
  return false;
}

/// Finds `arg` among an llvm::cl parser's values (its `Values`: `Name`,
/// `V.getValue()`) and sets `value`; on a miss returns "a, b or c", the names
/// it takes, for the error.
template <typename Entries, typename Arg, typename Enum>
std::optional<std::string> parseEnumValue(const Entries &entries,
                                          const Arg &arg, Enum &value) {
  std::string list;
  for (size_t i = 0, e = entries.size(); i < e; ++i) {
    if (arg == entries[i].Name) {
      value = entries[i].V.getValue();
      return std::nullopt;
    }
    if (i > 0)
      list += i + 1 == e ? " or " : ", ";
    list += std::string(entries[i].Name);
  }
  return list;
}

} // namespace ssd
} // namespace mlir

#endif // SSD_SUPPORT_ENUMNAME_H
