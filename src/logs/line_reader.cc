#include "logs/line_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "logs/read_ahead.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Finds the newlines of a region in order, 64 bytes per step: one bit mask
// per chunk instead of one memchr call per line, which dominates on the
// ~100-byte lines of NCCL logs.
class NewlineScanner {
 public:
  NewlineScanner(const char* begin, const char* end) : chunk_(begin), end_(end) { load(); }

  // The next '\n' at or after the last one returned, or nullptr.
  const char* next() {
    while (mask_ == 0) {
      if (chunk_ + 64 >= end_) return nullptr;
      chunk_ += 64;
      load();
    }
    int bit = __builtin_ctzll(mask_);
    mask_ &= mask_ - 1;
    return chunk_ + bit;
  }

 private:
  void load() {
    mask_ = 0;
    size_t n = static_cast<size_t>(end_ - chunk_);
#if defined(__SSE2__)
    if (n >= 64) {
      const __m128i nl = _mm_set1_epi8('\n');
      for (int k = 0; k < 4; ++k) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(chunk_ + 16 * k));
        mask_ |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl))))
                 << (16 * k);
      }
      return;
    }
#endif
    for (size_t i = 0; i < n && i < 64; ++i)
      if (chunk_[i] == '\n') mask_ |= uint64_t{1} << i;
  }

  const char* chunk_;
  const char* end_;
  uint64_t mask_ = 0;
};

// Cuts a stream of blocks into lines. Complete lines are passed straight
// from the block; only a line that crosses a block boundary is copied (its
// head, at most the cap) into `carry_`. A line longer than the cap is passed
// truncated, whatever the block size, so results never depend on it.
class Splitter {
 public:
  Splitter(LineSink& sink, const LineReaderOptions& options)
      : sink_(sink), cap_(std::max<size_t>(options.max_line_bytes, 1)) {}

  const ReadStats& stats() const { return stats_; }

  // The next `n` bytes of the input. Returns false once the input is known to
  // be binary (nothing more should be read).
  bool push(const char* data, size_t n) {
    if (n == 0) return true;
    stats_.bytes += n;
    if (sniffed_) {
      scan(data, n);
      return true;
    }
    // Lines are held back until the sniff sample is complete.
    pending_.append(data, n);
    if (pending_.size() < std::min(kSniffBytes, cap_)) return true;
    return releasePending();
  }

  void finish() {
    if (!sniffed_ && !releasePending()) return;
    if (in_partial_) finishPartial();
  }

 private:
  bool releasePending() {
    sniffed_ = true;
    uint64_t offset = 0;
    // The sample has the same length whatever the block size, so the verdict
    // and the bytes reported for a binary input do not depend on how it was read.
    std::string_view sample = std::string_view(pending_).substr(0, std::min(kSniffBytes, cap_));
    if (sniffBinary(sample, offset)) {
      stats_.binary = true;
      stats_.binary_offset = offset;
      stats_.bytes = sample.size();
      return false;
    }
    std::string held;
    held.swap(pending_);
    scan(held.data(), held.size());
    return true;
  }

  void emit(const char* begin, size_t length, bool truncated) {
    ++stats_.lines;
    if (truncated) {
      ++stats_.truncated_lines;
      if (stats_.first_truncated_line == 0) stats_.first_truncated_line = stats_.lines;
    } else if (length > 0 && begin[length - 1] == '\r') {
      --length;
    }
    std::string_view text(begin, length);
    if (has_escape_ && std::memchr(begin, 0x1b, length) != nullptr) {
      scratch_ = stripAnsi(text);
      text = scratch_;
    }
    sink_.line(text, stats_.lines, truncated);
  }

  void emitWhole(const char* begin, size_t length) {
    if (length > stats_.longest_line_bytes) stats_.longest_line_bytes = length;
    if (length > cap_)
      emit(begin, cap_, true);
    else
      emit(begin, length, false);
  }

  void finishPartial() {
    if (partial_length_ > stats_.longest_line_bytes) stats_.longest_line_bytes = partial_length_;
    has_escape_ = carry_.find('\x1b') != std::string::npos;
    emit(carry_.data(), carry_.size(), partial_length_ > cap_);
    carry_.clear();
    in_partial_ = false;
    partial_length_ = 0;
  }

  void scan(const char* data, size_t n) {
    const char* cur = data;
    const char* end = data + n;
    if (in_partial_) {
      auto* nl = static_cast<const char*>(std::memchr(cur, '\n', n));
      const char* stop = nl != nullptr ? nl : end;
      size_t length = static_cast<size_t>(stop - cur);
      if (carry_.size() < cap_) carry_.append(cur, std::min(length, cap_ - carry_.size()));
      partial_length_ += length;
      if (nl == nullptr) return;
      finishPartial();
      cur = nl + 1;
    }
    has_escape_ = std::memchr(cur, 0x1b, static_cast<size_t>(end - cur)) != nullptr;
    NewlineScanner scanner(cur, end);
    while (const char* nl = scanner.next()) {
      emitWhole(cur, static_cast<size_t>(nl - cur));
      cur = nl + 1;
    }
    if (cur < end) {
      size_t length = static_cast<size_t>(end - cur);
      carry_.assign(cur, std::min(length, cap_));
      partial_length_ = length;
      in_partial_ = true;
    }
  }

  LineSink& sink_;
  size_t cap_;
  bool sniffed_ = false;
  std::string pending_;
  std::string carry_;
  bool in_partial_ = false;
  uint64_t partial_length_ = 0;
  bool has_escape_ = false;
  std::string scratch_;
  ReadStats stats_;
};

// read() with EINTR retried.
ssize_t readSome(int fd, char* buf, size_t bytes) {
  ssize_t n;
  do n = ::read(fd, buf, bytes);
  while (n < 0 && errno == EINTR);
  return n;
}

// A block of raw bytes read ahead of the splitter.
struct RawBlock {
  std::unique_ptr<char[]> data;
  size_t size = 0;
};

// For a StagedLineSink: read(), line splitting and the sink's prepare() all
// on the reader thread, a few blocks ahead; the caller's thread only runs the
// sink's ordered half. Each block carries the sink's batch (whose lines are
// views into the block's data, or into `owned` for the few that are not
// there: a line that crossed a block boundary, one cleaned of ANSI codes,
// the lines held back for the binary sniff) and the number of its first
// line, and is reused only once the caller is done.
class StagedPipe {
 public:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size = 0;
    uint64_t first_line = 0;        // 0: no line yet
    std::deque<std::string> owned;  // a deque: adding does not move the strings already viewed
    std::unique_ptr<StagedLineSink::Batch> batch;
  };

  StagedPipe(int fd, StagedLineSink& sink, const LineReaderOptions& options)
      : fd_(fd),
        block_(std::max<size_t>(options.block_bytes, 1)),
        preparation_(options.preparation),
        sink_(sink),
        collector_(*this),
        splitter_(collector_, options),
        ahead_([&](Block& b) {
          b.data.reset(new char[block_]);
          b.batch = sink_.newBatch();
        }) {
    ahead_.start([this](Block& b) { return fill(b); }, [this] { stats_ = splitter_.stats(); });
  }

  // The next block with its lines prepared, or nullptr at the end.
  Block* next() { return ahead_.next(); }
  void recycle(Block* b) { ahead_.recycle(b); }
  // Valid once next() returned nullptr.
  int error() const { return ahead_.error(); }
  const ReadStats& stats() const { return stats_; }

 private:
  class Collector : public LineSink {
   public:
    explicit Collector(StagedPipe& pipe) : pipe_(pipe) {}
    void line(std::string_view text, uint64_t line_number, bool truncated) override {
      Block& b = *pipe_.current_;
      const char* begin = b.data.get();
      if (text.data() < begin || text.data() + text.size() > begin + b.size) {
        b.owned.emplace_back(text);
        text = b.owned.back();
      }
      if (b.first_line == 0) b.first_line = line_number;
      if (!defer_)
        defer_ =
            pipe_.preparation_ == LineReaderOptions::Preparation::kCaller ||
            (pipe_.preparation_ == LineReaderOptions::Preparation::kShared && pipe_.ahead_.consumerWaiting());
      if (defer_)
        pipe_.sink_.defer(*b.batch, text, line_number, truncated);
      else
        pipe_.sink_.prepare(*b.batch, text, line_number, truncated);
    }
    // Each block starts out prepared here; once deferring, the rest of it is.
    void startBlock() { defer_ = false; }

   private:
    StagedPipe& pipe_;
    bool defer_ = false;
  };

  // Reader thread: read a block, split it, prepare its lines. A failed read
  // still hands the block over, with what an earlier block left.
  ReadAhead<Block>::Filled fill(Block& b) {
    b.first_line = 0;
    b.owned.clear();
    b.batch->clear();
    collector_.startBlock();
    ssize_t n = readSome(fd_, b.data.get(), block_);
    b.size = n > 0 ? static_cast<size_t>(n) : 0;
    current_ = &b;
    bool more = true;
    if (n > 0)
      more = splitter_.push(b.data.get(), b.size);
    else if (n == 0)
      splitter_.finish();
    return {true, n > 0 && more, n < 0 ? errno : 0};
  }

  int fd_;
  size_t block_;
  LineReaderOptions::Preparation preparation_;
  StagedLineSink& sink_;
  Collector collector_;
  Splitter splitter_;         // reader thread only
  Block* current_ = nullptr;  // reader thread only
  ReadStats stats_;           // set by the reader thread as it ends
  ReadAhead<Block> ahead_;    // last: its thread stops before the members it uses go
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
  size_t block = std::max<size_t>(options.block_bytes, 1);
  auto failed = [&](int err) {
    return makeError(ErrorCode::kIo, std::string(name) + ": read failed: " + std::strerror(err));
  };
  auto* staged = dynamic_cast<StagedLineSink*>(&sink);
  if (options.reader_thread && staged != nullptr) {
    StagedPipe pipe(fd, *staged, options);
    while (StagedPipe::Block* b = pipe.next()) {
      if (b->first_line != 0) staged->consume(*b->batch, b->first_line);
      pipe.recycle(b);
    }
    if (pipe.error() != 0) return failed(pipe.error());
    return pipe.stats();
  }
  if (options.reader_thread) {
    ReadAhead<RawBlock> pipe([&](RawBlock& b) { b.data.reset(new char[block]); });
    pipe.start([&](RawBlock& b) -> ReadAhead<RawBlock>::Filled {
      ssize_t n = readSome(fd, b.data.get(), block);
      if (n <= 0) return {false, false, n < 0 ? errno : 0};
      b.size = static_cast<size_t>(n);
      return {};
    });
    while (RawBlock* b = pipe.next()) {
      bool more = splitter.push(b->data.get(), b->size);
      pipe.recycle(b);
      if (!more) return splitter.stats();
    }
    if (pipe.error() != 0) return failed(pipe.error());
  } else {
    std::unique_ptr<char[]> buffer(new char[block]);
    for (;;) {
      ssize_t n = readSome(fd, buffer.get(), block);
      if (n < 0) return failed(errno);
      if (n == 0) break;
      if (!splitter.push(buffer.get(), static_cast<size_t>(n))) return splitter.stats();
    }
  }
  splitter.finish();
  return splitter.stats();
}

ReadStats readLinesFromText(std::string_view text, LineSink& sink, const LineReaderOptions& options) {
  Splitter splitter(sink, options);
  size_t block = std::max<size_t>(options.block_bytes, 1);
  for (size_t pos = 0; pos < text.size(); pos += block) {
    if (!splitter.push(text.data() + pos, std::min(block, text.size() - pos))) return splitter.stats();
  }
  splitter.finish();
  return splitter.stats();
}

}  // namespace railkit::logs
