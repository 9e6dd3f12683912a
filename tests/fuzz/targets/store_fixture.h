// The small valid store the store-open target mutates, and the mutation
// language of its inputs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace moraine::fuzz {

// Creates a RocksDB-backed moraine store at `dir` holding a record of every
// kind, part in table files (flushed) and part only in the write-ahead log.
void BuildSampleStore(const std::filesystem::path& dir);

// The files of a store directory a mutation may target, in name order: all
// but LOCK and RocksDB's info logs (LOG*), which no open reads.
std::vector<std::filesystem::path> MutableFiles(const std::filesystem::path& dir);

// An input is a sequence of mutations, each
//   file (1 byte, index into MutableFiles modulo their count)
//   op (1 byte, MutationOp modulo kMutationOpCount)
//   offset (2 bytes, little-endian, modulo the file's size + 1)
//   length (1 byte) and that many bytes (clamped to what remains)
enum class MutationOp : uint8_t { kOverwrite, kTruncate, kInsert, kRemove };
inline constexpr uint8_t kMutationOpCount = 4;
inline constexpr size_t kMutationHeaderSize = 5;

// Applies the mutations of `input` to the files of `dir`.
void ApplyMutations(const std::filesystem::path& dir, std::span<const uint8_t> input);

// Encodes one mutation, for seeds.
std::string EncodeMutation(uint8_t file, MutationOp op, uint16_t offset, std::string_view bytes);

}  // namespace moraine::fuzz
