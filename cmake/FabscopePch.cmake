# Precompiled headers (issue 36: CI in 20 minutes). Nearly every translation unit includes
# nlohmann/json (through report/finding.h) and fmt, and every test gtest: parsing them
# was most of a file's compile time. One precompiled header for the sources and one for
# the tests, each built once and reused by every C++ target of its kind (REUSE_FROM: the
# targets share fabscope_options' flags). Targets with other flags (the NCCL profiler
# plugin, a shared library built -fPIC; CUDA sources) compile as before.
# FABSCOPE_PCH=OFF turns it off (to measure, or with a compiler that rejects it).
option(FABSCOPE_PCH "Precompile the heavy common headers" ON)

set(_fabscope_pch_headers <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional> <set> <string>
    <string_view> <vector> <fmt/format.h> <nlohmann/json.hpp>)

# Every target defined in `dir` and below.
function(_fabscope_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _fabscope_targets_below("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# Whether `target` compiles C++ only, as a static library or an executable.
function(_fabscope_pch_candidate target out)
  set(ok FALSE)
  get_target_property(type ${target} TYPE)
  get_target_property(sources ${target} SOURCES)
  if(type MATCHES "^(STATIC_LIBRARY|EXECUTABLE|OBJECT_LIBRARY)$" AND sources)
    set(ok TRUE)
    foreach(s IN LISTS sources)
      if(NOT s MATCHES "\\.cpp$")
        set(ok FALSE)
      endif()
    endforeach()
  endif()
  set(${out} ${ok} PARENT_SCOPE)
endfunction()

function(fabscope_precompile_headers)
  if(NOT FABSCOPE_PCH)
    return()
  endif()
  file(WRITE "${CMAKE_BINARY_DIR}/generated/pch_anchor.cpp" "// the translation unit that builds the precompiled header\n")
  add_library(fabscope_pch_src OBJECT "${CMAKE_BINARY_DIR}/generated/pch_anchor.cpp")
  target_link_libraries(fabscope_pch_src PRIVATE fabscope_options fmt::fmt nlohmann_json::nlohmann_json)
  target_precompile_headers(fabscope_pch_src PRIVATE ${_fabscope_pch_headers})
  set(have_gtest FALSE)
  if(TARGET GTest::gtest)
    set(have_gtest TRUE)
    add_library(fabscope_pch_test OBJECT "${CMAKE_BINARY_DIR}/generated/pch_anchor.cpp")
    target_link_libraries(fabscope_pch_test PRIVATE fabscope_options fmt::fmt nlohmann_json::nlohmann_json GTest::gtest)
    target_precompile_headers(fabscope_pch_test PRIVATE ${_fabscope_pch_headers} <gtest/gtest.h>)
  endif()
  _fabscope_targets_below("${CMAKE_SOURCE_DIR}" targets)
  foreach(t IN LISTS targets)
    if(t MATCHES "^fabscope_pch_")
      continue()
    endif()
    _fabscope_pch_candidate(${t} ok)
    if(NOT ok)
      continue()
    endif()
    get_target_property(libs ${t} LINK_LIBRARIES)
    # The header's flags come from fabscope_options and fmt (FMT_SHARED): a target without
    # them (test/tools/profile_replay.cpp, plain C++) could not use it.
    set(with_fmt ${libs})
    list(FILTER with_fmt INCLUDE REGEX "^(fmt::|fabscope_)")
    list(REMOVE_ITEM with_fmt fabscope_options)
    if(NOT with_fmt)
      continue()
    endif()
    if(have_gtest AND libs MATCHES "GTest::")
      target_precompile_headers(${t} REUSE_FROM fabscope_pch_test)
    else()
      target_precompile_headers(${t} REUSE_FROM fabscope_pch_src)
    endif()
  endforeach()
endfunction()
