# The pinned DuckDB engine: headers from the source distribution, the engine
# from the prebuilt libduckdb.so that exports DuckDB's C++ symbols. Headers are
# SYSTEM so that our warnings-as-errors never fire inside DuckDB's code.
set(DUCKDB_SOURCE_DIR "${MORAINE_DEPS_DIR}/duckdb")
set(DUCKDB_LIBRARY "${MORAINE_DEPS_DIR}/libduckdb.so")
set(DUCKLAKE_EXTENSION "${MORAINE_DEPS_DIR}/ducklake.duckdb_extension")
# Under ThreadSanitizer the host and the tests run the pinned engine and
# DuckLake built with it (scripts/build_duckdb_tsan.sh, scripts/build_ducklake.sh
# v1.5.5 tsan; `make test-tsan` builds both): TSan sees a race only where both
# sides are instrumented, and reports the stock engine's lock-free hand-offs
# between its threads as races.
if(MORAINE_SANITIZE MATCHES "thread")
  set(DUCKDB_LIBRARY "${MORAINE_DEPS_DIR}/duckdb-tsan/libduckdb.so")
  set(DUCKLAKE_EXTENSION "${MORAINE_DEPS_DIR}/ducklake-tsan/ducklake.duckdb_extension")
endif()

foreach(required "${DUCKDB_SOURCE_DIR}/src/include/duckdb.hpp" "${DUCKDB_LIBRARY}"
                 "${DUCKLAKE_EXTENSION}")
  if(NOT EXISTS "${required}")
    message(FATAL_ERROR "${required} is missing: run scripts/setup.sh (or make build; make test-tsan for a ThreadSanitizer build)")
  endif()
endforeach()

get_filename_component(DUCKDB_LIBRARY_REAL "${DUCKDB_LIBRARY}" REALPATH)
get_filename_component(DUCKDB_LIBRARY_DIR "${DUCKDB_LIBRARY_REAL}" DIRECTORY)
get_filename_component(DUCKLAKE_EXTENSION_REAL "${DUCKLAKE_EXTENSION}" REALPATH)

# DuckDB's headers alone: what code compiled into the self-contained
# extension sees, which must not inherit libduckdb.so.
add_library(duckdb_headers INTERFACE IMPORTED GLOBAL)
target_include_directories(duckdb_headers SYSTEM INTERFACE "${DUCKDB_SOURCE_DIR}/src/include")
target_compile_definitions(duckdb_headers INTERFACE MORAINE_DUCKDB_MAJOR=1)

# The headers and the shared engine: for the host executable and the tests.
add_library(duckdb_engine SHARED IMPORTED GLOBAL)
set_target_properties(duckdb_engine PROPERTIES IMPORTED_LOCATION "${DUCKDB_LIBRARY_REAL}"
                                               IMPORTED_NO_SONAME TRUE)
target_link_libraries(duckdb_engine INTERFACE duckdb_headers)
target_link_options(duckdb_engine INTERFACE "LINKER:-rpath,${DUCKDB_LIBRARY_DIR}")

# What a loadable extension's metadata must name to load into this engine,
# and the source id the pinned release reports in PRAGMA version.
set(DUCKDB_VERSION_DIRECTORY "v1.5.5")
set(DUCKDB_PLATFORM "linux_amd64")
set(DUCKDB_SOURCE_ID "d8cdaa33fd")

include(${CMAKE_CURRENT_LIST_DIR}/DuckDBStatic.cmake)
set(DUCKDB_STATIC_LIBRARY "${MORAINE_DEPS_DIR}/duckdb-static/libduckdb_static.a")
moraine_duckdb_static("" "${DUCKDB_SOURCE_DIR}" "${MORAINE_DEPS_DIR}/duckdb-static"
                      "${DUCKDB_SOURCE_ID}")

# The other DuckDB releases moraine builds a self-contained extension for
# (issue #31). Each has its sources, static library and stock venv from
# scripts/setup.sh, and, where one is built on this machine, its DuckLake
# (scripts/build_ducklake.sh). Per release: DUCKDB_SOURCE_ID_<release> and
# the target suffix, which CMake names cannot hold dots for.
set(MORAINE_OTHER_DUCKDB_RELEASES v1.5.6)
# The sanitizer builds check moraine's code once, against the pinned release.
if(MORAINE_SANITIZE)
  set(MORAINE_OTHER_DUCKDB_RELEASES "")
endif()
set(DUCKDB_SOURCE_ID_v1.5.6 "069cc9f9b5")
foreach(release IN LISTS MORAINE_OTHER_DUCKDB_RELEASES)
  string(REPLACE "." "_" suffix "_${release}")
  moraine_duckdb_static("${suffix}" "${MORAINE_DEPS_DIR}/duckdb-${release}"
                        "${MORAINE_DEPS_DIR}/duckdb-static-${release}"
                        "${DUCKDB_SOURCE_ID_${release}}")
  # The release's shared engine, for a host of that release (the DuckLake
  # suite runs in it): the libduckdb.so of its stock Node client.
  set(engine
      "${MORAINE_DEPS_DIR}/node-${release}/node_modules/@duckdb/node-bindings-linux-x64/libduckdb.so")
  if(NOT EXISTS "${engine}")
    message(FATAL_ERROR "${engine} is missing: run scripts/setup.sh (or make build)")
  endif()
  get_filename_component(engine_dir "${engine}" DIRECTORY)
  add_library(duckdb_engine${suffix} SHARED IMPORTED GLOBAL)
  set_target_properties(duckdb_engine${suffix} PROPERTIES IMPORTED_LOCATION "${engine}"
                                                          IMPORTED_NO_SONAME TRUE)
  target_link_libraries(duckdb_engine${suffix} INTERFACE duckdb_headers${suffix})
  target_link_options(duckdb_engine${suffix} INTERFACE "LINKER:-rpath,${engine_dir}")
endforeach()

# The DuckDB releases moraine builds only the extension for, without the
# DuckLake adapter: no DuckLake build of theirs is known (none compiles from a
# fetchable commit; docs/research/duckdb-2.0-port.md), so they serve DuckLake's
# SQL path and ATTACH ... (TYPE moraine). Their static library is built from
# the release's sources (scripts/build_duckdb_static.sh, run by setup).
set(MORAINE_EXTENSION_ONLY_DUCKDB_RELEASES v2.0.1)
if(MORAINE_SANITIZE)
  set(MORAINE_EXTENSION_ONLY_DUCKDB_RELEASES "")
endif()
set(DUCKDB_SOURCE_ID_v2.0.1 "8d78114e90")
foreach(release IN LISTS MORAINE_EXTENSION_ONLY_DUCKDB_RELEASES)
  string(REPLACE "." "_" suffix "_${release}")
  moraine_duckdb_static("${suffix}" "${MORAINE_DEPS_DIR}/duckdb-${release}"
                        "${MORAINE_DEPS_DIR}/duckdb-static-${release}"
                        "${DUCKDB_SOURCE_ID_${release}}")
endforeach()
