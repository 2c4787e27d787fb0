//===- MLIRHeaders.cpp - the translation unit of the shared PCH -----------===//
//
// Compiles nothing of its own: CMake builds lib/CMakeLists.txt's precompiled
// header of upstream dialect headers from this file, and the project's
// libraries reuse it.
//
//===----------------------------------------------------------------------===//
