#pragma once
// One line of an NCCL debug log, located without copying: its level (INFO,
// WARN, or another line that mentions NCCL such as a traceback or an
// nccl-tests failure), the `host:pid:tid [dev]` header NCCL puts in front of
// every line when present, and the body after `NCCL INFO ` / `NCCL WARN `.
// Launcher prefixes (`[1,0]<stdout>:`, kubectl/Slurm timestamps, pod names)
// are simply skipped over because the header is searched for, not expected
// at column 0.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace railkit::logs::nccl {

enum class LineLevel { kNone, kInfo, kWarn, kOther };

struct NcclLine {
  LineLevel level = LineLevel::kNone;
  std::string_view text;  // the whole (cleaned) line
  std::string_view body;  // after the level word; the whole text for kOther
  std::string_view host;  // empty when the line has no NCCL header
  std::string_view pid;
  std::string_view dev;
};

// The header of an earlier line: the line's first bytes through the `]` of
// `[dev]`, and where host, pid and dev lie in them. A process prints many
// lines in a row, from several threads: a line that starts with the same
// bytes through `pid:`, then a decimal tid, then the same ` [dev]`, has
// the same header but for the tid (the bytes hold no "NCCL", so the level
// word is after them, and the header search only looks inside them), so
// its parse is taken from here instead of searched for again.
struct HeaderMemo {
  static constexpr size_t kMaxBytes = 192;
  char bytes[kMaxBytes];
  size_t len = 0;  // 0: none
  size_t host_at = 0, host_len = 0, pid_at = 0, pid_len = 0, dev_at = 0, dev_len = 0;
  size_t tid_end = 0;  // where the tid's digits end in `bytes` (the ` [dev]` follows)
  bool hit = false;    // the latest classified line took its header from here
  bool fresh = false;  // the latest classified line set it
  uint64_t hash = 0;   // the caller's hash of this header; 0: not yet computed
};

// kNone (false) for lines with nothing NCCL-related: the common fast path is
// one memmem for "NCCL" plus, on lines without it, a few more for the rare
// words that still matter (old `WARN` lines, `nccl` frames, signals).
// With `memo`, a line that starts with the memo's bytes reuses its header,
// and the memo is set from each line whose header was parsed.
bool classifyLine(std::string_view text, NcclLine* out, HeaderMemo* memo = nullptr);

}  // namespace railkit::logs::nccl
