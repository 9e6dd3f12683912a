# DuckDB's static library of the pinned release (from the Go bindings' module,
# see deps/pins.tsv) and DuckDB's dummy static extension loader: what DuckDB's
# own EXTENSION_STATIC_BUILD links into every Linux extension, so that the
# extension carries a private, hidden copy of the engine it was compiled
# against and needs no libduckdb.so from the program that loads it.
set(DUCKDB_STATIC_DIR "${MORAINE_DEPS_DIR}/duckdb-static")
set(DUCKDB_STATIC_LIBRARY "${DUCKDB_STATIC_DIR}/libduckdb_static.a")
set(DUCKDB_DUMMY_LOADER_SOURCE
    "${DUCKDB_SOURCE_DIR}/extension/loader/dummy_static_extension_loader.cpp")
foreach(required "${DUCKDB_STATIC_LIBRARY}" "${DUCKDB_DUMMY_LOADER_SOURCE}")
  if(NOT EXISTS "${required}")
    message(FATAL_ERROR "${required} is missing: run scripts/setup.sh (or make build)")
  endif()
endforeach()

# The archive must be the pinned source: a static library of another DuckDB
# would link, and then misread the structs the host engine hands it.
file(STRINGS "${DUCKDB_STATIC_LIBRARY}" duckdb_static_source_id REGEX "^${DUCKDB_SOURCE_ID}$"
     LIMIT_COUNT 1)
if(NOT duckdb_static_source_id)
  message(FATAL_ERROR "${DUCKDB_STATIC_LIBRARY} is not DuckDB source id ${DUCKDB_SOURCE_ID}")
endif()

# The engine's own code and the third-party libraries it is built from. The
# archives of DuckDB's in-tree extensions (parquet, json, ...) and its
# generated loader stay out: the dummy loader links none of them.
set(DUCKDB_STATIC_ARCHIVES "${DUCKDB_STATIC_LIBRARY}")
foreach(part fastpforlib fmt fsst hyperloglog mbedtls miniz pg_query re2 skiplistlib utf8proc
             yyjson zstd)
  list(APPEND DUCKDB_STATIC_ARCHIVES "${DUCKDB_STATIC_DIR}/libduckdb_${part}.a")
endforeach()

add_library(duckdb_dummy_static_extension_loader STATIC "${DUCKDB_DUMMY_LOADER_SOURCE}")
target_link_libraries(duckdb_dummy_static_extension_loader PRIVATE duckdb_headers)
set_target_properties(duckdb_dummy_static_extension_loader PROPERTIES CXX_VISIBILITY_PRESET hidden)

add_library(duckdb_static INTERFACE)
# One group: the engine, its loader and its third-party archives refer to each other.
target_link_libraries(duckdb_static INTERFACE duckdb_headers
  "$<LINK_GROUP:RESCAN,${DUCKDB_STATIC_ARCHIVES};duckdb_dummy_static_extension_loader>"
  Threads::Threads ${CMAKE_DL_LIBS})
