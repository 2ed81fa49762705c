#include "logs/line_reader.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "logs/read_ahead.h"

namespace railkit::logs {
namespace {

struct Collected : LineSink {
  std::vector<std::string> lines;
  std::vector<uint64_t> numbers;
  std::vector<bool> truncated;
  void line(std::string_view text, uint64_t n, bool cut) override {
    lines.emplace_back(text);
    numbers.push_back(n);
    truncated.push_back(cut);
  }
};

std::string sampleText() {
  std::mt19937 rng(7);
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    int len = static_cast<int>(rng() % 300);
    text += "host" + std::to_string(i % 17) + ":1:" + std::to_string(i) + " [0] NCCL INFO ";
    for (int k = 0; k < len; ++k) text.push_back(static_cast<char>('a' + rng() % 26));
    if (i % 7 == 0) text += " \x1b[31mred\x1b[0m";
    if (i % 5 == 0) text += "\r";
    text += "\n";
  }
  text += "last line without newline";
  return text;
}

TEST(LogsLineReader, BlockSizeDoesNotChangeTheLines) {
  std::string text = sampleText();
  Collected reference;
  auto stats = readLinesFromText(text, reference, {size_t{1} << 20, size_t{64} << 10});
  ASSERT_EQ(reference.lines.size(), 2001u);
  EXPECT_EQ(stats.lines, 2001u);
  EXPECT_EQ(stats.bytes, text.size());
  EXPECT_EQ(reference.lines.back(), "last line without newline");
  for (const auto& l : reference.lines) {
    EXPECT_EQ(l.find('\r'), std::string::npos);
    EXPECT_EQ(l.find('\x1b'), std::string::npos);
  }
  EXPECT_NE(reference.lines[7].find(" red"), std::string::npos);
  for (size_t block : {size_t{1}, size_t{7}, size_t{64}, size_t{4093}}) {
    Collected other;
    readLinesFromText(text, other, {block, size_t{64} << 10});
    EXPECT_EQ(other.lines, reference.lines) << "block " << block;
    EXPECT_EQ(other.numbers, reference.numbers) << "block " << block;
  }
}

TEST(LogsLineReader, HugeLineIsCutAndTheRestSurvives) {
  std::string text = "first\n" + std::string(10u << 20, 'x') + "\nafter\n";
  for (size_t block : {size_t{1} << 20, size_t{4096}}) {
    Collected c;
    auto stats = readLinesFromText(text, c, {block, size_t{64} << 10});
    ASSERT_EQ(c.lines.size(), 3u);
    EXPECT_EQ(c.lines[0], "first");
    EXPECT_EQ(c.lines[1].size(), size_t{64} << 10);
    EXPECT_TRUE(c.truncated[1]);
    EXPECT_EQ(c.lines[2], "after");
    EXPECT_EQ(c.numbers[2], 3u);
    EXPECT_EQ(stats.truncated_lines, 1u);
    EXPECT_EQ(stats.first_truncated_line, 2u);
    EXPECT_EQ(stats.longest_line_bytes, 10u << 20);
  }
}

TEST(LogsLineReader, HugeLastLineWithoutNewline) {
  std::string text = "a\n" + std::string(3u << 20, 'y');
  Collected c;
  auto stats = readLinesFromText(text, c, {size_t{1} << 20, size_t{64} << 10});
  ASSERT_EQ(c.lines.size(), 2u);
  EXPECT_TRUE(c.truncated[1]);
  EXPECT_EQ(stats.longest_line_bytes, 3u << 20);
}

TEST(LogsLineReader, BinaryIsRefusedAndEmptyHasNoLines) {
  std::string binary(100000, '\0');
  std::mt19937 rng(3);
  for (auto& ch : binary) ch = static_cast<char>(rng());
  Collected c;
  auto stats = readLinesFromText(binary, c);
  EXPECT_TRUE(stats.binary);
  EXPECT_TRUE(c.lines.empty());

  // UTF-16 text is NUL every other byte.
  std::string utf16;
  for (char ch : std::string("NCCL INFO hello\n")) utf16 += std::string{ch, '\0'};
  EXPECT_TRUE(readLinesFromText(utf16, c).binary);

  Collected empty;
  auto none = readLinesFromText("", empty);
  EXPECT_FALSE(none.binary);
  EXPECT_EQ(none.lines, 0u);
  EXPECT_TRUE(empty.lines.empty());

  // A stray NUL in a real log is not binary.
  Collected stray;
  std::string text = "line one\nline_two\nline three\n";
  text[13] = '\0';
  auto s = readLinesFromText(text, stray);
  EXPECT_FALSE(s.binary);
  EXPECT_EQ(stray.lines.size(), 3u);
}

// The binary verdict, its offset and the bytes reported come from a sample of
// fixed length: block sizes (and a line cap below the sample size) do not move
// them (found by logs_input_fuzz comparing a file read with an in-memory one).
TEST(LogsLineReader, BinaryVerdictDoesNotDependOnTheBlockSize) {
  std::string text = "# nThread 1 nGpus 2\n";
  std::mt19937 rng(11);
  while (text.size() < 5000) text.push_back(static_cast<char>(rng() % 32));
  Collected first;
  auto reference = readLinesFromText(text, first, {36, 4096});
  ASSERT_TRUE(reference.binary);
  EXPECT_EQ(reference.bytes, 4096u);
  for (size_t block : {size_t{1}, size_t{1476}, size_t{4097}, size_t{1} << 20}) {
    Collected other;
    auto stats = readLinesFromText(text, other, {block, 4096});
    EXPECT_TRUE(stats.binary) << "block " << block;
    EXPECT_EQ(stats.bytes, reference.bytes) << "block " << block;
    EXPECT_EQ(stats.binary_offset, reference.binary_offset) << "block " << block;
  }
}

// Reads `text` through a pipe that a thread fills in 333-byte pieces, smaller
// than any block.
Result<ReadStats> readThroughPipe(const std::string& text, LineSink& sink) {
  int fds[2];
  if (pipe(fds) != 0) return makeError(ErrorCode::kIo, "pipe failed");
  std::thread writer([&] {
    for (size_t pos = 0; pos < text.size(); pos += 333) {
      size_t n = std::min<size_t>(333, text.size() - pos);
      ASSERT_EQ(write(fds[1], text.data() + pos, n), static_cast<ssize_t>(n));
    }
    close(fds[1]);
  });
  auto stats = readLines(fds[0], "pipe", sink);
  writer.join();
  close(fds[0]);
  return stats;
}

TEST(LogsLineReader, ReadsAPipeInSmallPieces) {
  std::string text = sampleText();
  Collected piped;
  auto stats = readThroughPipe(text, piped);
  ASSERT_TRUE(stats.has_value());
  Collected reference;
  readLinesFromText(text, reference);
  EXPECT_EQ(piped.lines, reference.lines);
}

// A file bigger than the block size, lines across every block boundary: the
// threaded reader, the plain reader and the in-memory path agree.
TEST(LogsLineReader, FileBiggerThanTheBlockGivesIdenticalLines) {
  std::string text;
  while (text.size() < (size_t{3} << 20) + 12345) text += sampleText() + "\n";
  char path[] = "/tmp/railkit_logs_reader_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  Collected reference;
  readLinesFromText(text, reference);
  for (bool threaded : {true, false}) {
    for (size_t block : {size_t{1} << 20, size_t{4093}}) {
      ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
      Collected got;
      LineReaderOptions options;
      options.block_bytes = block;
      options.reader_thread = threaded;
      auto stats = readLines(fd, path, got, options);
      ASSERT_TRUE(stats.has_value());
      EXPECT_EQ(stats->bytes, text.size());
      EXPECT_EQ(got.lines, reference.lines) << "threaded " << threaded << " block " << block;
      EXPECT_EQ(got.numbers, reference.numbers);
    }
  }
  close(fd);
  unlink(path);
}

TEST(LogsLineReader, ReadErrorIsAnError) {
  int fd = open("/tmp", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(fd, 0);
  Collected c;
  for (bool threaded : {true, false}) {
    LineReaderOptions options;
    options.reader_thread = threaded;
    auto stats = readLines(fd, "/tmp", c, options);
    ASSERT_FALSE(stats.has_value());
    EXPECT_NE(stats.error().message.find("/tmp: read failed"), std::string::npos) << stats.error().message;
  }
  close(fd);
}

// A staged sink records what prepare() saw on the reader thread (views,
// as the real sink keeps them: they must still hold the line when the
// batch is consumed) and hands the lines on when the batch comes back.
struct StagedCollected : StagedLineSink {
  struct Texts : Batch {
    std::vector<std::pair<std::string_view, bool>> prepared;
    void clear() override { prepared.clear(); }
  };
  Collected got;
  size_t staged_lines = 0, batches = 0, deferred_lines = 0;
  std::unique_ptr<Batch> newBatch() override { return std::make_unique<Texts>(); }
  void prepare(Batch& batch, std::string_view text, uint64_t, bool cut) override {
    static_cast<Texts&>(batch).prepared.emplace_back(text, cut);
  }
  void defer(Batch& batch, std::string_view text, uint64_t, bool cut) override {
    ++deferred_lines;
    static_cast<Texts&>(batch).prepared.emplace_back(text, cut);
  }
  void consume(Batch& batch, uint64_t first) override {
    ++batches;
    for (const auto& [text, cut] : static_cast<Texts&>(batch).prepared) {
      ++staged_lines;
      got.line(text, first++, cut);
    }
  }
  void line(std::string_view text, uint64_t n, bool cut) override { got.line(text, n, cut); }
};

std::string writeTemp(const std::string& text) {
  char path[] = "/tmp/railkit_logs_staged_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  return path;
}

struct StagedRun {
  bool threaded;
  size_t block;
  LineReaderOptions::Preparation preparation;
};

// Reads `text` from a file through a staged sink in each of `runs` and
// expects the lines, numbers, cuts and stats of the in-memory path.
void expectStagedSeesTheSameLines(const std::string& text, const std::vector<StagedRun>& runs,
                                  size_t max_line_bytes = LineReaderOptions{}.max_line_bytes) {
  using Preparation = LineReaderOptions::Preparation;
  std::string path = writeTemp(text);
  Collected reference;
  LineReaderOptions in_memory;
  in_memory.max_line_bytes = max_line_bytes;
  auto want = readLinesFromText(text, reference, in_memory);
  for (const auto& [threaded, block, preparation] : runs) {
    int fd = open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    StagedCollected staged;
    LineReaderOptions options;
    options.block_bytes = block;
    options.reader_thread = threaded;
    options.preparation = preparation;
    options.max_line_bytes = max_line_bytes;
    auto stats = readLines(fd, path, staged, options);
    close(fd);
    ASSERT_TRUE(stats.has_value());
    SCOPED_TRACE("threaded " + std::to_string(threaded) + " block " + std::to_string(block) +
                 " preparation " + std::to_string(static_cast<int>(preparation)));
    // Which lines the reader thread defers is its choice under kShared;
    // the lines themselves must not change.
    if (threaded && preparation == Preparation::kReader) {
      EXPECT_EQ(staged.deferred_lines, 0u);
    }
    if (threaded && preparation == Preparation::kCaller) {
      EXPECT_EQ(staged.deferred_lines, reference.lines.size());
    }
    EXPECT_EQ(staged.got.lines, reference.lines);
    EXPECT_EQ(staged.got.numbers, reference.numbers);
    EXPECT_EQ(staged.got.truncated, reference.truncated);
    if (threaded) {
      EXPECT_GE(staged.batches, 1u);
    }
    EXPECT_EQ(staged.staged_lines, threaded ? reference.lines.size() : 0u);
    EXPECT_EQ(stats->bytes, want.bytes);
    EXPECT_EQ(stats->lines, want.lines);
    EXPECT_EQ(stats->truncated_lines, want.truncated_lines);
    EXPECT_EQ(stats->first_truncated_line, want.first_truncated_line);
    EXPECT_EQ(stats->longest_line_bytes, want.longest_line_bytes);
  }
  unlink(path.c_str());
}

// The staged path (prepare on the reader thread, or on the caller's) gives the lines, numbers,
// cuts and stats of the in-memory path: lines across block boundaries,
// ANSI-cleaned lines, a line over the cap, a last line without newline.
TEST(LogsLineReader, StagedSinkSeesTheSameLines) {
  using Preparation = LineReaderOptions::Preparation;
  std::string text;
  while (text.size() < (size_t{2} << 20) + 777) text += sampleText() + "\n";
  text.append(200000, 'y');  // a line over the 64 KiB cap
  text += "\n\x1b[1mbold\x1b[0m tail\nend";
  std::vector<StagedRun> runs;
  for (Preparation p : {Preparation::kShared, Preparation::kReader, Preparation::kCaller})
    for (size_t block : {size_t{1} << 20, size_t{4093}}) runs.push_back({true, block, p});
  for (size_t block : {size_t{1} << 20, size_t{4093}}) runs.push_back({false, block, Preparation::kShared});
  expectStagedSeesTheSameLines(text, runs);
}

// A read() per byte, each block handed between the threads: every line
// crosses a block boundary. Each byte costs a hand-off, so on a short text
// with a 1 KiB line cap (which also bounds the binary sniff's sample).
TEST(LogsLineReader, StagedSinkSeesTheSameLinesByteByByte) {
  std::string text;
  while (text.size() < (size_t{8} << 10)) text += sampleText() + "\n";
  text.append(3000, 'y');  // a line over the cap
  text += "\n\x1b[1mbold\x1b[0m tail\nend";
  expectStagedSeesTheSameLines(text, {{true, 1, LineReaderOptions::Preparation::kShared}}, 1024);
}

// What makes the reader thread hand lines over unprepared: while the
// consumer waits in next() for a block, the reader sees consumerWaiting(),
// and no longer once the consumer has its block.
TEST(LogsReadAhead, ReaderSeesTheConsumerWaiting) {
  struct Block {
    int number = 0;
  };
  ReadAhead<Block> ahead([](Block&) {});
  std::atomic<bool> saw_wait{false};
  int filled = 0;
  ahead.start([&](Block& b) -> ReadAhead<Block>::Filled {
    if (filled == 0) {
      // Bounded: a consumer that never waits fails the test instead of hanging it.
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!ahead.consumerWaiting() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
      saw_wait = ahead.consumerWaiting();
    }
    b.number = ++filled;
    return {true, filled < 2, 0};
  });
  Block* first = ahead.next();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->number, 1);
  EXPECT_TRUE(saw_wait) << "the reader never saw the consumer waiting for its first block";
  EXPECT_FALSE(ahead.consumerWaiting());
  ahead.recycle(first);
  Block* second = ahead.next();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->number, 2);
  ahead.recycle(second);
  EXPECT_EQ(ahead.next(), nullptr);
  EXPECT_FALSE(ahead.consumerWaiting());
}

TEST(LogsLineReader, StagedSinkOnAPipeBinaryAndErrors) {
  // A pipe delivers pieces smaller than the binary sniff: the held-back lines
  // must survive until the caller's thread sees them.
  std::string text = sampleText();
  StagedCollected piped;
  auto stats = readThroughPipe(text, piped);
  ASSERT_TRUE(stats.has_value());
  Collected reference;
  readLinesFromText(text, reference);
  EXPECT_EQ(piped.got.lines, reference.lines);
  EXPECT_EQ(piped.got.numbers, reference.numbers);

  std::string binary(100000, '\0');
  std::string path = writeTemp(binary);
  int fd = open(path.c_str(), O_RDONLY);
  StagedCollected none;
  auto b = readLines(fd, path, none);
  close(fd);
  unlink(path.c_str());
  ASSERT_TRUE(b.has_value());
  EXPECT_TRUE(b->binary);
  EXPECT_TRUE(none.got.lines.empty());

  int dir = open("/tmp", O_RDONLY | O_DIRECTORY);
  StagedCollected c;
  auto failed = readLines(dir, "/tmp", c);
  close(dir);
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().message.find("/tmp: read failed"), std::string::npos);
}

TEST(LogsLineReader, StripAnsi) {
  EXPECT_EQ(stripAnsi("\x1b[1;32mOK\x1b[0m done"), "OK done");
  EXPECT_EQ(stripAnsi("\x1b]0;title\aafter"), "after");
  EXPECT_EQ(stripAnsi("tail\x1b"), "tail");
  EXPECT_EQ(stripAnsi("\x1b[12"), "");
}

}  // namespace
}  // namespace railkit::logs
