//===- ToolOptions.h - the tools' command lines through llvm::cl -*- C++
//-*-===//
//
// The tools declare their flags as typed llvm::cl options in one category
// (integers as int64_t, choices as enums whose values --help lists) and let
// llvm::cl parse them and print --help. llvm::cl words its own errors
// ("for the --outputs option: requires a value!") and takes the next
// argument as a value whatever it is; parseToolCommandLine first runs
// checkToolArguments, which reports those mistakes as the tools always did,
// in one line, so that a forgotten value (`--outputs --static-shapes`) is not
// taken for a folder, and the parsers below word a value that is not an
// integer, or not one of an enum's, in the tools' own way. Ranges are
// checked after parsing, from ssd/Support/SettingRanges.h.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_SUPPORT_TOOLOPTIONS_H
#define SSD_SUPPORT_TOOLOPTIONS_H

#include "ssd/Support/EnumName.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace ssd {

/// The first message a tool parser below recorded while llvm::cl parsed,
/// which parseToolCommandLine reports instead of llvm::cl's own wording.
inline std::string &pendingToolError() {
  static std::string message;
  return message;
}

/// An enum flag whose values are added from an EnumName table
/// (mlir::ssd::EnumValues): "unknown --NAME 'VALUE' (expected a, b or c)".
template <typename Enum> struct ToolEnumParser : public llvm::cl::parser<Enum> {
  using llvm::cl::parser<Enum>::parser;
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             Enum &value) {
    std::optional<std::string> list =
        mlir::ssd::parseEnumValue(this->Values, arg, value);
    if (!list)
      return false;
    if (pendingToolError().empty())
      pendingToolError() = "unknown --" + option.ArgStr.str() + " '" +
                           arg.str() + "' (expected " + *list + ")";
    return true;
  }
};

/// An integer flag (checkToolArguments: "--NAME must be an integer, got
/// 'VALUE'" for anything else, out of int64_t's range included) and an enum
/// flag of a tool.
using ToolInt = llvm::cl::opt<int64_t>;
template <typename Enum>
using ToolEnum = llvm::cl::opt<Enum, false, ToolEnumParser<Enum>>;

/// Checks the shape of the command line against the options of `category`:
/// every argument is --help, -h, `--name[=value]` (also `-n[=value]` for a
/// one-letter name) of an option of the category, or the value after a
/// valued one. False with a one-line `error` for an unknown flag, a value
/// given to a flag that takes none, a missing value, and a flag where a value
/// belongs (a value that starts with "--" is spelled `--name=--value`).
inline bool checkToolArguments(int argc, char **argv,
                               llvm::cl::OptionCategory &category,
                               std::string &error) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto lookup = [&](llvm::StringRef name) -> llvm::cl::Option * {
    auto it = options.find(name);
    if (it == options.end() ||
        !llvm::is_contained(it->second->Categories, &category))
      return nullptr;
    return it->second;
  };
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--help" || arg == "-h")
      continue;
    auto [flag, inlineText] = arg.split('=');
    bool inlineValue = flag.size() < arg.size();
    llvm::StringRef name = flag;
    llvm::cl::Option *option = nullptr;
    if (name.consume_front("--") ? !name.empty()
                                 : name.consume_front("-") && name.size() == 1)
      option = lookup(name);
    if (!option) {
      error = "unknown flag '" + arg.str() + "'";
      return false;
    }
    if (option->getValueExpectedFlag() != llvm::cl::ValueRequired) {
      if (inlineValue) {
        error = "flag '" + flag.str() + "' takes no value";
        return false;
      }
      continue;
    }
    if (!inlineValue && i + 1 >= argc) {
      error = "flag '" + flag.str() + "' needs a value";
      return false;
    }
    if (!inlineValue && llvm::StringRef(argv[i + 1]).starts_with("--")) {
      llvm::StringRef next = argv[i + 1];
      error = "flag '" + flag.str() + "' needs a value, got the flag '" +
              next.str() + "' (write " + flag.str() + "=" + next.str() +
              " if that is really the value)";
      return false;
    }
    llvm::StringRef value = inlineValue ? inlineText : argv[++i];
    // llvm::cl reports a bad integer itself, in its own words.
    int64_t number;
    if (dynamic_cast<llvm::cl::opt<int64_t> *>(option) &&
        value.getAsInteger(10, number)) {
      error = flag.str() + " must be an integer, got '" + value.str() + "'";
      return false;
    }
  }
  return true;
}

/// Parses the command line into the options of `category` (which alone the
/// tool's --help shows): false with the one-line `error` of the first
/// mistake, in the tool's words.
inline bool parseToolCommandLine(int argc, char **argv,
                                 llvm::cl::OptionCategory &category,
                                 const char *overview, std::string &error) {
  if (!checkToolArguments(argc, argv, category, error))
    return false;
  llvm::cl::HideUnrelatedOptions(category);
  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  pendingToolError().clear();
  if (llvm::cl::ParseCommandLineOptions(argc, argv, overview, &stream))
    return true;
  error = pendingToolError();
  if (!error.empty())
    return false;
  // llvm::cl's own message (checkToolArguments has caught what it would
  // print elsewhere), its first line without the program name.
  error = llvm::StringRef(diagnostics)
              .split('\n')
              .first.split(": ")
              .second.trim()
              .str();
  return false;
}

/// An invariant op runs the serial GPU kernel only, so a chunked kernel's
/// choice given with --invariant would be silently ignored: false with the
/// one-line `error` naming the first of `chunkedOnly` given.
inline bool refuseChunkedChoices(
    bool invariant, std::initializer_list<const llvm::cl::Option *> chunkedOnly,
    std::string &error) {
  for (const llvm::cl::Option *flag : chunkedOnly)
    if (invariant && flag->getNumOccurrences()) {
      error = "--invariant runs the serial GPU kernel only: --" +
              flag->ArgStr.str() +
              " (a chunked kernel's choice) does not apply";
      return false;
    }
  return true;
}

} // namespace ssd

#endif // SSD_SUPPORT_TOOLOPTIONS_H
