# The libraries moraine links statically everywhere — the host, the tests,
# the benchmarks and the loadable extension alike, so that what is tested is
# what ships: one RocksDB, one protobuf in every process. scripts/
# build_static_deps.sh builds them from their pinned source crates into a
# per-machine prefix, linked as ${MORAINE_DEPS_DIR}/static. No shared library
# of any distribution is used: the extension needs only the libc family.
#
# Targets: moraine::zlib, moraine::rocksdb (with snappy), moraine::curl (with
# nghttp2 and OpenSSL), and protobuf's own protobuf::libprotobuf and protobuf::protoc.
set(MORAINE_STATIC_DEPS_DIR "${MORAINE_DEPS_DIR}/static" CACHE PATH
    "prefix of the statically linked libraries (scripts/build_static_deps.sh)")
if(NOT EXISTS "${MORAINE_STATIC_DEPS_DIR}/.complete")
  message(FATAL_ERROR "${MORAINE_STATIC_DEPS_DIR} is missing or incomplete: run scripts/setup.sh "
                      "(or make build)")
endif()
set(static_lib "${MORAINE_STATIC_DEPS_DIR}/lib")
set(static_include "${MORAINE_STATIC_DEPS_DIR}/include")

# protobuf's own package: its runtime, its protoc and protobuf_generate.
find_package(Protobuf CONFIG REQUIRED PATHS "${static_lib}/cmake/protobuf" NO_DEFAULT_PATH)

# One imported static archive with its headers and what it needs.
function(moraine_static_library target archive)
  add_library(${target} STATIC IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${static_lib}/${archive}")
  target_include_directories(${target} SYSTEM INTERFACE "${static_include}")
  if(ARGN)
    target_link_libraries(${target} INTERFACE ${ARGN})
  endif()
endfunction()

moraine_static_library(moraine::zlib libz.a)
moraine_static_library(moraine::snappy libsnappy.a)
moraine_static_library(moraine::rocksdb librocksdb.a moraine::snappy Threads::Threads
                       ${CMAKE_DL_LIBS})
moraine_static_library(moraine::nghttp2 libnghttp2.a)
moraine_static_library(moraine::crypto libcrypto.a Threads::Threads)
moraine_static_library(moraine::ssl libssl.a moraine::crypto)
moraine_static_library(moraine::curl libcurl.a moraine::nghttp2 moraine::ssl Threads::Threads)
