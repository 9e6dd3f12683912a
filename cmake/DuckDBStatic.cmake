# DuckDB's static library of a supported release (from the Go bindings'
# module, see deps/pins.tsv) and DuckDB's dummy static extension loader: what
# DuckDB's own EXTENSION_STATIC_BUILD links into every Linux extension, so
# that the extension carries a private, hidden copy of the engine it was
# compiled against and needs no libduckdb.so from the program that loads it.
#
# moraine_duckdb_static(SUFFIX SOURCE_DIR STATIC_DIR SOURCE_ID) defines
#   duckdb_headers${SUFFIX}  that release's headers (unless already defined)
#   duckdb_static${SUFFIX}   the headers, the engine and its loader, to link
# and checks that the archive is the release's source id.
function(moraine_duckdb_static suffix source_dir static_dir source_id)
  set(library "${static_dir}/libduckdb_static.a")
  set(loader_source "${source_dir}/extension/loader/dummy_static_extension_loader.cpp")
  foreach(required "${source_dir}/src/include/duckdb.hpp" "${library}" "${loader_source}")
    if(NOT EXISTS "${required}")
      message(FATAL_ERROR "${required} is missing: run scripts/setup.sh (or make build)")
    endif()
  endforeach()

  # The archive must be the pinned source: a static library of another DuckDB
  # would link, and then misread the structs the host engine hands it.
  file(STRINGS "${library}" found_source_id REGEX "^${source_id}$" LIMIT_COUNT 1)
  if(NOT found_source_id)
    message(FATAL_ERROR "${library} is not DuckDB source id ${source_id}")
  endif()

  if(NOT TARGET duckdb_headers${suffix})
    add_library(duckdb_headers${suffix} INTERFACE IMPORTED GLOBAL)
    target_include_directories(duckdb_headers${suffix} SYSTEM INTERFACE "${source_dir}/src/include")
  endif()

  # The engine's own code and the third-party libraries it is built from. The
  # archives of DuckDB's in-tree extensions (parquet, json, ...) and its
  # generated loader stay out: the dummy loader links none of them.
  set(archives "${library}")
  foreach(part fastpforlib fmt fsst hyperloglog mbedtls miniz pg_query re2 skiplistlib utf8proc
               yyjson zstd)
    list(APPEND archives "${static_dir}/libduckdb_${part}.a")
  endforeach()

  set(loader duckdb_dummy_static_extension_loader${suffix})
  add_library(${loader} STATIC "${loader_source}")
  target_link_libraries(${loader} PRIVATE duckdb_headers${suffix})
  set_target_properties(${loader} PROPERTIES CXX_VISIBILITY_PRESET hidden)

  add_library(duckdb_static${suffix} INTERFACE)
  # One group: the engine, its loader and its third-party archives refer to each other.
  target_link_libraries(duckdb_static${suffix} INTERFACE duckdb_headers${suffix}
    "$<LINK_GROUP:RESCAN,${archives};${loader}>" Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
