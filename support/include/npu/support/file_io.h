// Whole-file reads and writes that report failures as npu::Error naming the path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

/// The most a whole-file read takes in (4 GiB): models are memory-mapped, every other input is
/// far smaller, and a device or FIFO without end must fail rather than fill memory.
inline constexpr std::uint64_t kMaxReadFileBytes = std::uint64_t{4} << 30;

/// Reads a whole file as bytes (at most kMaxReadFileBytes); throws Error naming the path when
/// it cannot.
std::vector<std::uint8_t> readBinaryFile(const std::filesystem::path& path);

/// Reads a whole file as text; throws Error naming the path when it cannot.
std::string readTextFile(const std::filesystem::path& path);

/// Writes a plain (or new) file through a synced temporary next to it and a rename, so a failed
/// write never leaves a half-written file behind under the final name. A path that exists and is
/// not a plain file (a character device such as /dev/stdout, a FIFO, a symlink) is written in
/// place and never replaced; "-" is standard output, and so is a path naming the file standard
/// output (or error) is open on, such as /dev/stdout: it is written through that descriptor, after
/// what the process printed before, even when the stream is redirected to a file. Every write error
/// (a full device included) throws Error naming the path and the reason.
void writeBinaryFile(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

/// True when writing `path` goes to standard output: "-", or a path naming the file standard
/// output is open on (/dev/stdout, /proc/self/fd/1, a redirect target). Commands then print their
/// human-readable lines on standard error, so the data on standard output stays clean.
bool isStandardOutput(const std::filesystem::path& path);

/// Text variant of writeBinaryFile.
void writeTextFile(const std::filesystem::path& path, std::string_view text);

/// Creates `dir` and its parents if missing; Error "<dir>: cannot create directory: <reason>".
/// Commands call it before long work, so a bad --out fails at once, not after the run.
void createDirectories(const std::filesystem::path& dir);

}  // namespace npu
