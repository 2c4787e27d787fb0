# Install rules and the CMake package (find_package(SSD CONFIG)); see
# docs/embedding.md. Included from the top-level CMakeLists.txt after every
# target exists.
#
#   cmake --install build --prefix P
#
# gives P/include/ssd/** (headers, generated .inc and .td files), P/lib/*.a
# (the ssd libraries, with libSSDAotRunner.a, libSSDAotCudaDevice.a or
# libSSDAotEmulatorDevice.a (the runtime an AOT executable uses), libSSDCudaRuntime.a and
# libSSDRunner.a for ahead-of-time executables, libSSDAotKernelLibrary.a for
# the torch op's kernel libraries), libSSDCAPI.so (the C API,
# headers in P/include/ssd-c), libSSDGPUEmulatorRuntime.so
# (the GPU emulator), P/lib/SSDPlugin.so (mlir-opt
# plugin), P/bin/ssd-opt, ssd-run, ssd-runner, ssd-bench, ssd-compile, and
# P/lib/cmake/SSD/ (SSDConfig.cmake,
# SSDConfigVersion.cmake, SSDTargets*.cmake) whose imported targets are
# SSD::<name>. The package is relocatable: it names MLIR only through
# find_dependency(MLIR) and its imported targets (MLIR = libMLIR.so).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SSD_VERSION 0.1.0)
set(SSD_INSTALL_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/SSD")

# Libraries: every add_mlir_library of the project (AddMLIR records them in
# MLIR_ALL_LIBS, so a library added later is exported without touching this
# file; MLIRConfig.cmake fills the same property with MLIR's own imported
# libraries, which are skipped), SSDRunner, and every project library these
# link, whatever command created it.
get_property(ssd_mlir_libraries GLOBAL PROPERTY MLIR_ALL_LIBS)
set(SSD_INSTALLED_LIBRARIES)
foreach(lib ${ssd_mlir_libraries} SSDRunner SSDCudaRuntime SSDAotRunner
    SSDAotCudaDevice SSDAotEmulatorDevice SSDAotKernelLibrary
    SSDGPUEmulatorRuntime SSDCAPI)
  if(TARGET ${lib})
    get_target_property(imported ${lib} IMPORTED)
    get_target_property(source_dir ${lib} SOURCE_DIR)
    string(FIND "${source_dir}/" "${PROJECT_SOURCE_DIR}/" position)
    if(NOT imported AND position EQUAL 0)
      list(APPEND SSD_INSTALLED_LIBRARIES ${lib})
    endif()
  endif()
endforeach()
# An export set must hold its targets' dependencies.
set(worklist ${SSD_INSTALLED_LIBRARIES})
while(worklist)
  list(POP_FRONT worklist lib)
  get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  foreach(dep ${deps})
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(NOT TARGET ${dep})
      continue()
    endif()
    get_target_property(aliased ${dep} ALIASED_TARGET)
    if(aliased)
      set(dep ${aliased})
    endif()
    get_target_property(imported ${dep} IMPORTED)
    if(NOT imported AND NOT dep IN_LIST SSD_INSTALLED_LIBRARIES)
      list(APPEND SSD_INSTALLED_LIBRARIES ${dep})
      list(APPEND worklist ${dep})
    endif()
  endforeach()
endwhile()
list(REMOVE_DUPLICATES SSD_INSTALLED_LIBRARIES)
set(SSD_INSTALLED_TOOLS)
foreach(tool ssd-opt ssd-run ssd-runner ssd-bench ssd-compile)
  if(TARGET ${tool})
    list(APPEND SSD_INSTALLED_TOOLS ${tool})
  endif()
endforeach()

# Include directories given as absolute source or build paths cannot be
# exported; keep them for the build tree only (the install tree gets
# <prefix>/include through INCLUDES DESTINATION below).
foreach(lib ${SSD_INSTALLED_LIBRARIES})
  get_target_property(dirs ${lib} INTERFACE_INCLUDE_DIRECTORIES)
  if(NOT dirs)
    continue()
  endif()
  set(rewritten)
  foreach(dir ${dirs})
    if(dir MATCHES "^\\$<" OR NOT IS_ABSOLUTE "${dir}")
      list(APPEND rewritten "${dir}")
    else()
      list(APPEND rewritten "$<BUILD_INTERFACE:${dir}>")
    endif()
  endforeach()
  set_target_properties(${lib} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${rewritten}")
endforeach()

install(TARGETS ${SSD_INSTALLED_LIBRARIES}
  EXPORT SSDTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET SSDPlugin)
  install(TARGETS SSDPlugin
    EXPORT SSDTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# Installed binaries find libMLIR.so where the build found it: AddLLVM gives
# the tools an install RUNPATH of $ORIGIN/../lib only; add the directories
# of the libraries they link from outside the project (MLIR's).
set_target_properties(${SSD_INSTALLED_TOOLS} PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ${SSD_INSTALLED_TOOLS}
  EXPORT SSDTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ssd
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ssd-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/ssd
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT SSDTargets
  NAMESPACE SSD::
  DESTINATION ${SSD_INSTALL_CMAKE_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/SSDConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/SSDConfig.cmake
  INSTALL_DESTINATION ${SSD_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/SSDConfigVersion.cmake
  VERSION ${SSD_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/SSDConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/SSDConfigVersion.cmake
  DESTINATION ${SSD_INSTALL_CMAKE_DIR})
