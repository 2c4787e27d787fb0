//===- ToolOptions.h - the tools' command lines through llvm::cl -*- C++
//-*-===//
//
// The tools declare their flags as llvm::cl options in one category and let
// llvm::cl parse them and print --help. llvm::cl words its own errors
// ("for the --outputs option: requires a value!") and takes the next
// argument as a value whatever it is; checkToolArguments runs first and
// reports those mistakes as the tools always did, in one line, so that a
// forgotten value (`--outputs --static-shapes`) is not taken for a folder.
//
//===----------------------------------------------------------------------===//

#ifndef SSD_SUPPORT_TOOLOPTIONS_H
#define SSD_SUPPORT_TOOLOPTIONS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace ssd {

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
    auto [flag, value] = arg.split('=');
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
    if (inlineValue)
      continue;
    if (i + 1 >= argc) {
      error = "flag '" + flag.str() + "' needs a value";
      return false;
    }
    llvm::StringRef next = argv[++i];
    if (next.starts_with("--")) {
      error = "flag '" + flag.str() + "' needs a value, got the flag '" +
              next.str() + "' (write " + flag.str() + "=" + next.str() +
              " if that is really the value)";
      return false;
    }
  }
  return true;
}

} // namespace ssd

#endif // SSD_SUPPORT_TOOLOPTIONS_H
