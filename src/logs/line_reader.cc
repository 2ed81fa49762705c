#include "logs/line_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace railkit::logs {
namespace {

constexpr size_t kSniffBytes = 64 << 10;

bool isControl(unsigned char c) {
  return c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b;
}

// Text or not, from the first bytes. Logs may carry a stray NUL or control
// byte (a crashed writer), so only a real share of them, or NULs with no line
// structure at all, makes the input binary.
bool sniffBinary(std::string_view sample, uint64_t& offset) {
  size_t control = 0, nul = 0;
  size_t first = sample.size();
  for (size_t i = 0; i < sample.size(); ++i) {
    auto c = static_cast<unsigned char>(sample[i]);
    if (isControl(c)) {
      ++control;
      if (c == 0) ++nul;
      if (first == sample.size()) first = i;
    }
  }
  bool no_lines = std::memchr(sample.data(), '\n', sample.size()) == nullptr;
  bool binary = control * 20 > sample.size() || (nul > 0 && no_lines);
  if (binary) offset = first;
  return binary;
}

// Cuts a stream of blocks into lines. The buffer holds one block plus the
// carried partial line, never more: a line that reaches the cap is passed on
// truncated and the rest of it is skipped up to its newline.
class Splitter {
 public:
  Splitter(LineSink& sink, const LineReaderOptions& options)
      : sink_(sink),
        block_(std::max<size_t>(options.block_bytes, 1)),
        cap_(std::max<size_t>(options.max_line_bytes, 1)),
        buffer_(new char[block_ + cap_]) {}

  char* writePtr() { return buffer_.get() + used_; }
  size_t writeSpace() const { return block_; }  // used_ < cap_ always holds
  const ReadStats& stats() const { return stats_; }

  // Takes `n` new bytes written at writePtr(). Returns false once the input
  // is known to be binary (nothing more should be read).
  bool commit(size_t n) {
    if (n == 0) return true;
    stats_.bytes += n;
    used_ += n;
    if (!sniffed_) {
      // Lines are held back until the sniff sample is complete; the buffer
      // then still starts at byte 0 of the input.
      if (used_ < std::min(kSniffBytes, cap_)) return true;
      if (!decideBinary()) return false;
    }
    process(false);
    return true;
  }

  void finish() {
    if (!sniffed_ && !decideBinary()) return;
    process(true);
  }

 private:
  // False when the input is binary.
  bool decideBinary() {
    sniffed_ = true;
    uint64_t offset = 0;
    if (sniffBinary(std::string_view(buffer_.get(), std::min(used_, kSniffBytes)), offset)) {
      stats_.binary = true;
      stats_.binary_offset = offset;
      return false;
    }
    return true;
  }

  void emit(const char* begin, size_t length, bool truncated) {
    ++stats_.lines;
    if (length > 0 && begin[length - 1] == '\r' && !truncated) --length;
    std::string_view text(begin, length);
    if (block_has_escape_ && std::memchr(begin, 0x1b, length) != nullptr) {
      scratch_ = stripAnsi(text);
      text = scratch_;
    }
    sink_.line(text, stats_.lines, truncated);
  }

  void process(bool at_end) {
    char* data = buffer_.get();
    char* end = data + used_;
    char* cur = data;
    if (skipping_) {
      auto* nl = static_cast<char*>(std::memchr(cur, '\n', end - cur));
      if (nl == nullptr) {
        skipped_length_ += used_;
        used_ = 0;
        if (at_end) endLongLine();
        return;
      }
      skipped_length_ += nl - cur;
      endLongLine();
      cur = nl + 1;
    }
    block_has_escape_ = std::memchr(cur, 0x1b, end - cur) != nullptr;
    while (cur < end) {
      auto* nl = static_cast<char*>(std::memchr(cur, '\n', end - cur));
      if (nl == nullptr) break;
      size_t length = nl - cur;
      stats_.longest_line_bytes = std::max<uint64_t>(stats_.longest_line_bytes, length);
      emit(cur, length, false);
      cur = nl + 1;
    }
    size_t rest = end - cur;
    if (rest >= cap_ || (at_end && rest > 0)) {
      bool truncated = rest >= cap_;
      size_t keep = std::min(rest, cap_);
      if (truncated) {
        ++stats_.truncated_lines;
        if (stats_.first_truncated_line == 0) stats_.first_truncated_line = stats_.lines + 1;
        skipping_ = !at_end;
        skipped_length_ = rest;
      }
      stats_.longest_line_bytes = std::max<uint64_t>(stats_.longest_line_bytes, rest);
      emit(cur, keep, truncated);
      used_ = 0;
      if (truncated && at_end) endLongLine();
      return;
    }
    if (rest > 0 && cur != data) std::memmove(data, cur, rest);
    used_ = rest;
  }

  void endLongLine() {
    stats_.longest_line_bytes = std::max<uint64_t>(stats_.longest_line_bytes, skipped_length_);
    skipping_ = false;
    skipped_length_ = 0;
  }

  LineSink& sink_;
  size_t block_;
  size_t cap_;
  std::unique_ptr<char[]> buffer_;
  size_t used_ = 0;
  bool sniffed_ = false;
  bool skipping_ = false;
  uint64_t skipped_length_ = 0;
  bool block_has_escape_ = false;
  std::string scratch_;
  ReadStats stats_;
};

}  // namespace

std::string stripAnsi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c != 0x1b) {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) break;
    char kind = text[i + 1];
    i += 2;
    if (kind == '[') {  // CSI: parameters and intermediates, then one final byte
      while (i < text.size() && !(text[i] >= 0x40 && text[i] <= 0x7e)) ++i;
      if (i < text.size()) ++i;
    } else if (kind == ']') {  // OSC: up to BEL or ESC backslash
      while (i < text.size() && text[i] != '\a' && text[i] != 0x1b) ++i;
      if (i < text.size()) i += text[i] == '\a' ? 1 : 2;
    }
  }
  return out;
}

Result<ReadStats> readLines(int fd, std::string_view name, LineSink& sink, const LineReaderOptions& options) {
  Splitter splitter(sink, options);
  for (;;) {
    ssize_t n = ::read(fd, splitter.writePtr(), splitter.writeSpace());
    if (n < 0) {
      if (errno == EINTR) continue;
      return makeError(ErrorCode::kIo, std::string(name) + ": read failed: " + std::strerror(errno));
    }
    if (n == 0) break;
    if (!splitter.commit(static_cast<size_t>(n))) return splitter.stats();
  }
  splitter.finish();
  return splitter.stats();
}

ReadStats readLinesFromText(std::string_view text, LineSink& sink, const LineReaderOptions& options) {
  Splitter splitter(sink, options);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t n = std::min(splitter.writeSpace(), text.size() - pos);
    std::memcpy(splitter.writePtr(), text.data() + pos, n);
    pos += n;
    if (!splitter.commit(n)) return splitter.stats();
  }
  splitter.finish();
  return splitter.stats();
}

}  // namespace railkit::logs
