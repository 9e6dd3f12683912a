# moraine as an ordinary DuckDB extension, one file per supported DuckDB
# release, built the way DuckDB's EXTENSION_STATIC_BUILD builds its own Linux
# extensions: our code with hidden visibility and
# DUCKDB_BUILD_LOADABLE_EXTENSION, linked against DuckDB's static library of
# that release and its dummy loader, every archive's symbols kept local. Each
# loads into the stock CLI, Python and Node of its release, exports only
# moraine_duckdb_cpp_init and needs no libduckdb.so.
#
# A local extension repository laid out as DuckDB expects holds each release's
# moraine and the DuckLake it is tested with, so that
# `INSTALL moraine FROM '<repo>'` in any supported release picks its own:
#   build/repository/<release>/linux_amd64/{moraine,ducklake}.duckdb_extension
set(MORAINE_EXTENSION_REPOSITORY "${CMAKE_BINARY_DIR}/repository")
set(MORAINE_EXTENSION_REPOSITORY "${MORAINE_EXTENSION_REPOSITORY}" PARENT_SCOPE)
add_custom_target(moraine_extension_repository ALL)

# moraine_loadable_extension(RELEASE SUFFIX OUTPUT_DIR DUCKLAKE WITH_ADAPTER) defines
#   moraine_extension_shim${SUFFIX}       the shim (and, WITH_ADAPTER, the DuckLake
#                                         adapter) compiled against RELEASE's headers
#   moraine_loadable_extension${SUFFIX}   OUTPUT_DIR/moraine.duckdb_extension
# and puts it, with DUCKLAKE when that file exists at build time, into the
# repository. A release without the adapter is one no DuckLake build is known
# for: its extension serves DuckLake's SQL path and TYPE moraine.
function(moraine_loadable_extension release suffix output_dir ducklake with_adapter)
  # The shim once more, against that release's headers only. An archive, so
  # that --exclude-libs keeps even the inline functions and template
  # instantiations it defines local: the file exports its entry point alone.
  set(shim moraine_extension_shim${suffix})
  if(with_adapter)
    add_library(${shim} STATIC ${MORAINE_DUCKDB_SOURCES})
  else()
    add_library(${shim} STATIC ${MORAINE_SHIM_SOURCES})
  endif()
  target_include_directories(${shim} PUBLIC ${CMAKE_SOURCE_DIR}/src)
  target_link_libraries(${shim} PUBLIC duckdb_headers${suffix} moraine_commit moraine_tools
                                PRIVATE moraine_warnings)
  target_compile_definitions(${shim} PUBLIC DUCKDB_BUILD_LOADABLE_EXTENSION
                                     PRIVATE MORAINE_DUCKDB_RELEASE="${release}")
  # Sections per function, so that --gc-sections drops what the entry point never reaches.
  target_compile_options(${shim} PRIVATE -ffunction-sections -fdata-sections)
  set_target_properties(${shim} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)

  set(module moraine_loadable_extension${suffix})
  add_library(${module} MODULE extension_entry.cpp)
  target_link_libraries(${module} PRIVATE ${shim} duckdb_static${suffix} moraine_warnings)
  if(with_adapter)
    target_compile_definitions(${module} PRIVATE MORAINE_WITH_DUCKLAKE_ADAPTER)
  endif()
  target_link_options(${module} PRIVATE
    # Nothing left to the loading program: an undefined DuckDB symbol would
    # otherwise bind to whatever engine the host process happens to have.
    "LINKER:-z,defs"
    "LINKER:--gc-sections"
    # The archives' symbols (DuckDB's and our core's) stay private to the file.
    "LINKER:--exclude-libs,ALL")
  set_target_properties(${module} PROPERTIES
    PREFIX "" OUTPUT_NAME moraine SUFFIX ".duckdb_extension"
    LIBRARY_OUTPUT_DIRECTORY "${output_dir}"
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    # The file is copied and installed elsewhere: no path into this build tree.
    SKIP_BUILD_RPATH ON)
  add_custom_command(TARGET ${module} POST_BUILD
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/append_extension_metadata.sh
            $<TARGET_FILE:${module}> ${release} ${DUCKDB_PLATFORM} ${PROJECT_VERSION}
    VERBATIM)

  set(platform_dir "${MORAINE_EXTENSION_REPOSITORY}/${release}/${DUCKDB_PLATFORM}")
  set(installed "${platform_dir}/moraine.duckdb_extension")
  add_custom_command(OUTPUT "${installed}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${platform_dir}"
    COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:${module}> "${platform_dir}/"
    DEPENDS ${module}
    COMMENT "Extension repository ${MORAINE_EXTENSION_REPOSITORY}, ${release}"
    VERBATIM)
  # DuckLake of a release built on this machine may appear, or change, after
  # configure: every build looks, copies it when it is there and differs, and
  # leaves its absence to the tests to report.
  add_custom_target(moraine_repository_release${suffix}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${platform_dir}"
    COMMAND sh -c "[ ! -e \"$1\" ] || cmp -s \"$1\" \"$2\" || cp -L \"$1\" \"$2\"" sh
            "${ducklake}" "${platform_dir}/ducklake.duckdb_extension"
    DEPENDS "${installed}"
    VERBATIM)
  add_dependencies(moraine_extension_repository moraine_repository_release${suffix})
endfunction()

moraine_loadable_extension(${DUCKDB_VERSION_DIRECTORY} "" "${CMAKE_BINARY_DIR}"
                           "${DUCKLAKE_EXTENSION_REAL}" ON)
foreach(release IN LISTS MORAINE_OTHER_DUCKDB_RELEASES)
  string(REPLACE "." "_" suffix "_${release}")
  moraine_loadable_extension(${release} "${suffix}" "${CMAKE_BINARY_DIR}/${release}"
                             "${MORAINE_DEPS_DIR}/ducklake-${release}/ducklake.duckdb_extension" ON)
endforeach()
foreach(release IN LISTS MORAINE_EXTENSION_ONLY_DUCKDB_RELEASES)
  string(REPLACE "." "_" suffix "_${release}")
  moraine_loadable_extension(${release} "${suffix}" "${CMAKE_BINARY_DIR}/${release}" "" OFF)
endforeach()
