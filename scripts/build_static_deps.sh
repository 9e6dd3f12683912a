#!/usr/bin/env bash
# Builds the libraries moraine links statically — zlib, snappy, RocksDB,
# protobuf (with its protoc), OpenSSL, nghttp2 and libcurl — from the source crates
# pinned in deps/pins.tsv (client `crate`), position independent, into a
# prefix that stays on this machine between runs and clones:
#
#   ${MORAINE_CACHE:-$HOME/.cache/moraine}/static-deps/<key>/{include,lib,bin}
#
# <key> hashes the pinned crates' checksums, this script and the compilers,
# so a new pin or recipe builds a new prefix and an unchanged one is reused
# as it is. The prefix is linked as .cache/deps/static for the build.
#
# The build goes to a scratch folder and is renamed into place whole, under a
# lock: an interrupted run never leaves a prefix that looks finished, and two
# runs at once build it once.
#
# usage: build_static_deps.sh   (scripts/setup.sh calls it)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
machine_cache="${MORAINE_CACHE:-$HOME/.cache/moraine}"
jobs="${JOBS:-2}"

log() { printf 'static deps: %s\n' "$*" >&2; }

# The crate pins: name, package (crate@version), file, sha256.
mapfile -t crate_rows < <(awk -F'\t' '$2 == "crate"' "$root/deps/pins.tsv")
((${#crate_rows[@]} > 0)) || { log "deps/pins.tsv pins no crate"; exit 1; }

key="$({
  printf '%s\n' "${crate_rows[@]}"
  cat "${BASH_SOURCE[0]}"
  cc --version | head -n1
  c++ --version | head -n1
} | sha256sum | cut -c1-16)"
prefix="$machine_cache/static-deps/$key"
link="$root/.cache/deps/static"
mkdir -p "$machine_cache/static-deps" "$root/.cache/deps"

publish() { ln -sfn "$prefix" "$link"; }
if [[ -f $prefix/.complete ]]; then
  publish
  exit 0
fi

exec 9>"$machine_cache/static-deps/.lock"
flock 9
if [[ -f $prefix/.complete ]]; then  # another run built it while we waited
  publish
  exit 0
fi

work="$(mktemp -d "$machine_cache/static-deps/.build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
out="$work/prefix"
mkdir -p "$out/include" "$out/lib" "$work/src"

# Fetches every pinned crate with cargo, the registry's own client, in a
# scratch cargo home: a throwaway package that depends on exactly those
# versions, then `cargo fetch`. Each .crate is checked against its pin.
fetch_crates() {
  local scratch="$work/cargo"
  mkdir -p "$scratch/src"
  : >"$scratch/src/lib.rs"
  {
    printf '[package]\nname = "moraine-static-deps"\nversion = "0.0.0"\nedition = "2021"\n'
    printf '[dependencies]\n'
    local row name client package file sha
    for row in "${crate_rows[@]}"; do
      IFS=$'\t' read -r name client package file sha <<<"$row"
      local crate="${package%%@*}" version="${package#*@}"
      printf '%s = { version = "=%s", default-features = false }\n' "$crate" "${version%%+*}"
    done
  } >"$scratch/Cargo.toml"
  command -v cargo >/dev/null || { log "cargo is missing (rustup's cargo fetches the source crates)"; exit 1; }
  log "fetching the source crates"
  CARGO_HOME="$scratch/home" cargo fetch --quiet --manifest-path "$scratch/Cargo.toml"
  for row in "${crate_rows[@]}"; do
    IFS=$'\t' read -r name client package file sha <<<"$row"
    local got
    got="$(find "$scratch/home/registry/cache" -name "$file" | head -n1)"
    [[ -n $got ]] || { log "cargo did not bring $file"; exit 1; }
    if [[ $(sha256sum "$got" | cut -d' ' -f1) != "$sha" ]]; then
      log "checksum mismatch for $file: expected $sha"
      exit 1
    fi
    mkdir -p "$work/src/$name"
    tar xzf "$got" -C "$work/src/$name" --strip-components=1
  done
  rm -rf "$scratch"
}

# Flags for every library: position independent (they end up in the
# loadable extension), symbols hidden (the extension exports its entry point
# alone), a section per function (the extension's --gc-sections drops what
# moraine never reaches), no debug info (it would triple the archives).
common_flags="-O2 -fPIC -fvisibility=hidden -ffunction-sections -fdata-sections"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
                                          -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

cmake_build() {
  local name="$1" source="$2"
  shift 2
  log "building $name"
  cmake -S "$source" -B "$work/build/$name" -G Ninja -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$out" -DCMAKE_PREFIX_PATH="$out" \
    -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_C_FLAGS="$common_flags" \
    -DCMAKE_CXX_FLAGS="$common_flags -fvisibility-inlines-hidden" \
    "${launcher[@]}" "$@" >"$work/$name.configure.log" 2>&1 ||
    { tail -n 40 "$work/$name.configure.log"; exit 1; }
  cmake --build "$work/build/$name" -j "$jobs" >"$work/$name.build.log" 2>&1 ||
    { tail -n 40 "$work/$name.build.log"; exit 1; }
  cmake --install "$work/build/$name" >/dev/null
}

# zlib: the crate carries zlib's sources without a build of its own; its
# crc32 frames moraine's values.
build_zlib() {
  log "building zlib"
  local source="$work/src/zlib-source/src/zlib" objects="$work/build/zlib"
  mkdir -p "$objects"
  local file
  for file in "$source"/*.c; do
    cc $common_flags -D_LARGEFILE64_SOURCE -DHAVE_UNISTD_H -DHAVE_STDARG_H -I"$source" \
      -c "$file" -o "$objects/$(basename "${file%.c}").o"
  done
  ar rcs "$out/lib/libz.a" "$objects"/*.o
  cp "$source/zlib.h" "$source/zconf.h" "$out/include/"
}

fetch_crates
build_zlib
# Snappy: RocksDB's default block compression, so stores written by earlier
# moraine builds (Debian's RocksDB, which had it) keep reading.
cmake_build snappy "$work/src/rocksdb-source/snappy" \
  -DSNAPPY_BUILD_TESTS=OFF -DSNAPPY_BUILD_BENCHMARKS=OFF -DSNAPPY_INSTALL=ON
# RocksDB: portable code (it ships to other machines), RTTI on (moraine
# derives from its Env and FileSystem classes), nothing optional that would
# pull another shared library in (liburing, NUMA, TBB, jemalloc, gflags).
cmake_build rocksdb "$work/src/rocksdb-source/rocksdb" \
  -DPORTABLE=ON -DFAIL_ON_WARNINGS=OFF -DUSE_RTTI=ON -DWITH_SNAPPY=ON \
  -DWITH_LZ4=OFF -DWITH_ZLIB=OFF -DWITH_ZSTD=OFF -DWITH_BZ2=OFF -DWITH_LIBURING=OFF \
  -DWITH_NUMA=OFF -DWITH_TBB=OFF -DWITH_JEMALLOC=OFF -DWITH_GFLAGS=OFF \
  -DWITH_TESTS=OFF -DWITH_ALL_TESTS=OFF -DWITH_BENCHMARK_TOOLS=OFF -DWITH_CORE_TOOLS=OFF \
  -DWITH_TOOLS=OFF -DWITH_TRACE_TOOLS=OFF -DWITH_EXAMPLES=OFF -DROCKSDB_BUILD_SHARED=OFF \
  -DWITH_JNI=OFF
# protobuf with its protoc, which generates moraine's records for exactly
# this runtime.
cmake_build protobuf "$work/src/protobuf-source/protobuf" \
  -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_EXAMPLES=OFF -Dprotobuf_WITH_ZLIB=OFF \
  -Dprotobuf_BUILD_SHARED_LIBS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=ON \
  -Dprotobuf_BUILD_LIBPROTOC=ON
# OpenSSL: TLS to etcd members (etcds://). Libraries only, no shared
# objects, no loadable modules or engines (nothing is ever dlopen'ed): the
# default provider is built in. Its configuration and default trust store are
# looked up under /etc/ssl, where Debian, Ubuntu and Alpine keep them; a lake
# names its CA file anyway.
build_openssl() {
  log "building openssl"
  local source="$work/src/openssl-source/openssl"
  (cd "$source" &&
    ./Configure linux-x86_64 no-shared no-tests no-docs no-dso no-engine no-module no-legacy \
      no-ui-console --prefix="$out" --libdir=lib --openssldir=/etc/ssl $common_flags \
      >"$work/openssl.configure.log" 2>&1 &&
    make -j "$jobs" build_libs >"$work/openssl.build.log" 2>&1 &&
    make install_dev >"$work/openssl.install.log" 2>&1) ||
    { tail -n 40 "$work"/openssl.*.log; exit 1; }
}
build_openssl
# nghttp2 and libcurl: the etcd client's HTTP/2, for etcd's gRPC API. The
# crate leaves curl's docs out (so no Perl, no examples), and arc4random,
# new in glibc 2.36, stays unused so the extension loads on older glibcs.
cmake_build nghttp2 "$work/src/nghttp2-source/nghttp2" \
  -DENABLE_LIB_ONLY=ON -DBUILD_STATIC_LIBS=ON -DBUILD_TESTING=OFF -DENABLE_DOC=OFF
cmake_build curl "$work/src/curl-source/curl" \
  -DBUILD_STATIC_LIBS=ON -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF -DBUILD_LIBCURL_DOCS=OFF \
  -DBUILD_MISC_DOCS=OFF -DENABLE_CURL_MANUAL=OFF -DBUILD_EXAMPLES=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Perl=ON -DCURL_USE_PKGCONFIG=OFF -DHTTP_ONLY=ON \
  -DCURL_ENABLE_SSL=ON -DCURL_USE_OPENSSL=ON -DOPENSSL_ROOT_DIR="$out" -DOPENSSL_USE_STATIC_LIBS=ON \
  -DCURL_CA_BUNDLE=none -DCURL_CA_PATH=none -DCURL_CA_FALLBACK=ON -DUSE_NGHTTP2=ON -DNGHTTP2_INCLUDE_DIR="$out/include" \
  -DNGHTTP2_LIBRARY="$out/lib/libnghttp2.a" -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF \
  -DCURL_ZSTD=OFF -DUSE_LIBIDN2=OFF -DCURL_USE_LIBPSL=OFF -DCURL_USE_LIBSSH2=OFF \
  -DCURL_USE_LIBSSH=OFF -DCURL_USE_GSSAPI=OFF -DUSE_LIBRTMP=OFF -DENABLE_ARES=OFF \
  -DENABLE_THREADED_RESOLVER=ON -DHAVE_ARC4RANDOM=OFF

rm -rf "$prefix"
touch "$out/.complete"
mv "$out" "$prefix"
publish
log "built into $prefix"
