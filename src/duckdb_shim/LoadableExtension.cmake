# moraine as an ordinary DuckDB extension, build/moraine.duckdb_extension,
# built the way DuckDB's EXTENSION_STATIC_BUILD builds its own Linux
# extensions: our code with hidden visibility and
# DUCKDB_BUILD_LOADABLE_EXTENSION, linked against DuckDB's static library of
# the pinned release and its dummy loader, every archive's symbols kept local.
# It loads into the stock DuckDB CLI, Python and Node of the pinned version,
# exports only moraine_duckdb_cpp_init and needs no libduckdb.so.

# The shim once more, compiled for the extension, against DuckDB's headers
# only. An archive, so that --exclude-libs keeps even the inline functions and
# template instantiations it defines local: the file exports its entry point alone.
add_library(moraine_extension_shim STATIC ${MORAINE_SHIM_SOURCES})
target_include_directories(moraine_extension_shim PUBLIC ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(moraine_extension_shim PUBLIC duckdb_headers moraine_commit moraine_tools
                                             PRIVATE moraine_warnings)
target_compile_definitions(moraine_extension_shim PUBLIC DUCKDB_BUILD_LOADABLE_EXTENSION)
# Sections per function, so that --gc-sections drops what the entry point never reaches.
target_compile_options(moraine_extension_shim PRIVATE -ffunction-sections -fdata-sections)
set_target_properties(moraine_extension_shim PROPERTIES CXX_VISIBILITY_PRESET hidden
                                                        VISIBILITY_INLINES_HIDDEN ON)

add_library(moraine_loadable_extension MODULE extension_entry.cpp)
target_link_libraries(moraine_loadable_extension PRIVATE moraine_extension_shim duckdb_static
                                                         moraine_warnings)
target_link_options(moraine_loadable_extension PRIVATE
  # Nothing left to the loading program: an undefined DuckDB symbol would
  # otherwise bind to whatever engine the host process happens to have.
  "LINKER:-z,defs"
  "LINKER:--gc-sections"
  # The archives' symbols (DuckDB's and our core's) stay private to the file.
  "LINKER:--exclude-libs,ALL")
set_target_properties(moraine_loadable_extension PROPERTIES
  PREFIX "" OUTPUT_NAME moraine SUFFIX ".duckdb_extension"
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
  # The file is copied and installed elsewhere: no path into this build tree.
  SKIP_BUILD_RPATH ON)
add_custom_command(TARGET moraine_loadable_extension POST_BUILD
  COMMAND ${CMAKE_SOURCE_DIR}/scripts/append_extension_metadata.sh
          $<TARGET_FILE:moraine_loadable_extension> ${DUCKDB_VERSION_DIRECTORY}
          ${DUCKDB_PLATFORM} ${PROJECT_VERSION}
  VERBATIM)

# A local extension repository laid out as DuckDB expects, with moraine and
# the pinned DuckLake, so that `INSTALL moraine FROM '<repo>'` works:
#   build/repository/v1.5.5/linux_amd64/{moraine,ducklake}.duckdb_extension
set(MORAINE_EXTENSION_REPOSITORY "${CMAKE_BINARY_DIR}/repository")
set(MORAINE_REPOSITORY_PLATFORM_DIR
    "${MORAINE_EXTENSION_REPOSITORY}/${DUCKDB_VERSION_DIRECTORY}/${DUCKDB_PLATFORM}")
set(MORAINE_REPOSITORY_EXTENSION "${MORAINE_REPOSITORY_PLATFORM_DIR}/moraine.duckdb_extension")
set(MORAINE_REPOSITORY_EXTENSION "${MORAINE_REPOSITORY_EXTENSION}" PARENT_SCOPE)
set(MORAINE_EXTENSION_REPOSITORY "${MORAINE_EXTENSION_REPOSITORY}" PARENT_SCOPE)
add_custom_command(OUTPUT "${MORAINE_REPOSITORY_EXTENSION}"
  COMMAND ${CMAKE_COMMAND} -E make_directory "${MORAINE_REPOSITORY_PLATFORM_DIR}"
  COMMAND ${CMAKE_COMMAND} -E copy $<TARGET_FILE:moraine_loadable_extension>
          "${DUCKLAKE_EXTENSION_REAL}" "${MORAINE_REPOSITORY_PLATFORM_DIR}/"
  DEPENDS moraine_loadable_extension "${DUCKLAKE_EXTENSION_REAL}"
  COMMENT "Extension repository ${MORAINE_EXTENSION_REPOSITORY}")
add_custom_target(moraine_extension_repository ALL DEPENDS "${MORAINE_REPOSITORY_EXTENSION}")
