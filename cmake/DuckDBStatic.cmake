# DuckDB's static library of a supported release (from the Go bindings'
# module, see deps/pins.tsv) and DuckDB's dummy static extension loader: what
# DuckDB's own EXTENSION_STATIC_BUILD links into every Linux extension, so
# that the extension carries a private, hidden copy of the engine it was
# compiled against and needs no libduckdb.so from the program that loads it.
#
# moraine_duckdb_static(SUFFIX SOURCE_DIR STATIC_DIR SOURCE_ID) defines
#   duckdb_headers${SUFFIX}  that release's headers (unless already defined), with
#                            MORAINE_DUCKDB_MAJOR, the release's major version
#                            (SUFFIX is _v<major>_<minor>_<patch>, empty for v1.5.5)
#   duckdb_static${SUFFIX}   the headers, the engine and its loader, to link
# and checks that the archive is the release's source id.
function(moraine_duckdb_static suffix source_dir static_dir source_id)
  set(library "${static_dir}/libduckdb_static.a")
  if(suffix)
    string(REGEX REPLACE "^_v([0-9]+)_.*" "\\1" major "${suffix}")
  else()
    set(major 1)  # the pinned release, v1.5.5
  endif()
  set(required_files "${source_dir}/src/include/duckdb.hpp" "${library}")
  # Up to 1.5 the engine calls a loader of the extensions linked with it;
  # from 2.0 on a program registers them itself, and an extension has none.
  if(major LESS 2)
    set(loader_source "${source_dir}/extension/loader/dummy_static_extension_loader.cpp")
    list(APPEND required_files "${loader_source}")
  endif()
  foreach(required IN LISTS required_files)
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
    # From 2.0 on, DuckDB's headers include fmt's.
    target_include_directories(duckdb_headers${suffix} SYSTEM INTERFACE
                               "${source_dir}/third_party/fmt/include")
    target_compile_definitions(duckdb_headers${suffix} INTERFACE MORAINE_DUCKDB_MAJOR=${major})
  endif()

  # The engine's own code and the third-party libraries it is built from. The
  # archives of DuckDB's in-tree extensions (parquet, json, ...) and its
  # generated loader stay out: the dummy loader links none of them.
  set(archives "${library}")
  set(parts fastpforlib fmt fsst hyperloglog mbedtls miniz re2 skiplistlib utf8proc yyjson zstd)
  # Up to 1.5 the parser is an archive of its own; from 2.0 on it is in the engine's.
  if(major LESS 2)
    list(APPEND parts pg_query)
  endif()
  foreach(part IN LISTS parts)
    list(APPEND archives "${static_dir}/libduckdb_${part}.a")
  endforeach()

  set(loader "")
  if(major LESS 2)
    set(loader duckdb_dummy_static_extension_loader${suffix})
    add_library(${loader} STATIC "${loader_source}")
    target_link_libraries(${loader} PRIVATE duckdb_headers${suffix})
    set_target_properties(${loader} PROPERTIES CXX_VISIBILITY_PRESET hidden)
  endif()

  add_library(duckdb_static${suffix} INTERFACE)
  # One group: the engine, its loader and its third-party archives refer to each other.
  target_link_libraries(duckdb_static${suffix} INTERFACE duckdb_headers${suffix}
    "$<LINK_GROUP:RESCAN,${archives};${loader}>" Threads::Threads ${CMAKE_DL_LIBS})
endfunction()
