#pragma once
// The streaming line reader under `railkit logs`. A job with thousands of
// ranks writes gigabytes of INFO lines, so input is never held whole: it is
// read in large blocks (1 MiB by default, on a reader thread a few blocks
// ahead), newlines are found 64 bytes at a time, complete lines are passed
// straight from the block, and only a line that crosses a block boundary is
// copied. Memory is therefore flat in the file size: a few blocks plus one
// capped line.
//
// What the sink sees is already cleaned of what terminals and launchers add
// to every line: a trailing CR (Windows line endings) and ANSI colour escapes.
// A line longer than `max_line_bytes` is cut to that length (the sink gets the
// head, flagged) and the rest up to its newline is skipped, so a 10 MB line
// neither grows the buffer nor stops the reader.
//
// The first block also decides whether the input is text at all: binary data
// (NUL bytes or mostly control bytes) stops the read with `binary` set, and
// the caller reports the file as not a log.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit::logs {

class LineSink {
 public:
  virtual ~LineSink() = default;
  // `line_number` is 1-based. `truncated` is set when the line was longer than
  // the cap and only its head is passed.
  virtual void line(std::string_view text, uint64_t line_number, bool truncated) = 0;
};

// A sink whose per-line work splits in two: prepare() depends on the line's
// text alone, consume() on everything seen before. readLines with a reader
// thread runs prepare() there, in line order and a few blocks ahead, so the
// two halves use both cores; consume() then gets each batch back, once, in
// order. The batch is the only record of its lines the caller's thread
// reads (every byte of it crosses from one core to the other), so a sink
// keeps there what it needs and no more. Without a reader thread (and in
// readLinesFromText) only line(text, number, truncated) is called, and it
// must do both halves itself.
class StagedLineSink : public LineSink {
 public:
  // What prepare() produced for the lines of one block; reused block after block.
  class Batch {
   public:
    virtual ~Batch() = default;
    virtual void clear() = 0;
  };
  virtual std::unique_ptr<Batch> newBatch() = 0;
  // Reader thread: the next line. `text` stays valid until the batch is
  // cleared. Work that depends only on the lines (not on what consume()
  // keeps) may run here in full, in line order.
  virtual void prepare(Batch& batch, std::string_view text, uint64_t line_number, bool truncated) = 0;
  // Reader thread, instead of prepare(), for the rest of a block once the
  // caller's thread waits for it: the line recorded with only what must run
  // on the reader thread done, consume() doing the rest. Which half of the
  // work is heavier depends on the input (short or long lines, few or many
  // ranks); this way the core that would idle takes up the difference.
  virtual void defer(Batch& batch, std::string_view text, uint64_t line_number, bool truncated) = 0;
  // The caller's thread, in order: the lines prepared into `batch`, numbered
  // from `first_line_number` on (a block's lines are consecutive).
  virtual void consume(Batch& batch, uint64_t first_line_number) = 0;
  using LineSink::line;
};

// Two 64-byte lines: what one thread writes while another reads nearby data
// is kept this far apart (the adjacent-line prefetcher moves lines in pairs).
inline constexpr size_t kCacheLineBlock = 128;

struct LineReaderOptions {
  size_t block_bytes = size_t{1} << 20;
  size_t max_line_bytes = size_t{64} << 10;
  // read() on a second thread a few blocks ahead (both cores busy on big logs).
  bool reader_thread = true;
  // For a StagedLineSink on the reader thread, who prepares the lines:
  // kShared, the reader thread until the caller's waits (see defer());
  // kReader or kCaller always (tests compare the three).
  enum class Preparation { kShared, kReader, kCaller };
  Preparation preparation = Preparation::kShared;
};

struct ReadStats {
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t truncated_lines = 0;
  uint64_t first_truncated_line = 0;  // 0 when none
  uint64_t longest_line_bytes = 0;    // as in the input, before the cap
  bool binary = false;                // reading stopped: not text
  uint64_t binary_offset = 0;         // first NUL/control byte that decided it
};

// Reads `fd` to its end (or until binary data is seen), calling `sink` once per
// line. `name` is used in error messages only. kIo on a read error.
Result<ReadStats> readLines(int fd, std::string_view name, LineSink& sink,
                            const LineReaderOptions& options = {});

// The same over text already in memory (tests, fuzzing): identical results to
// reading that text from a file.
ReadStats readLinesFromText(std::string_view text, LineSink& sink, const LineReaderOptions& options = {});

// Removes ANSI CSI/OSC escape sequences (`ESC [ ... letter`, `ESC ] ... BEL`).
std::string stripAnsi(std::string_view text);

}  // namespace railkit::logs
