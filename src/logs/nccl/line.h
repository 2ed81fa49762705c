#pragma once
// One line of an NCCL debug log, located without copying: its level (INFO,
// WARN, or another line that mentions NCCL such as a traceback or an
// nccl-tests failure), the `host:pid:tid [dev]` header NCCL puts in front of
// every line when present, and the body after `NCCL INFO ` / `NCCL WARN `.
// Launcher prefixes (`[1,0]<stdout>:`, kubectl/Slurm timestamps, pod names)
// are simply skipped over because the header is searched for, not expected
// at column 0.

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

// kNone (false) for lines with nothing NCCL-related: the common fast path is
// one memmem for "NCCL" plus, on lines without it, a few more for the rare
// words that still matter (old `WARN` lines, `nccl` frames, signals).
bool classifyLine(std::string_view text, NcclLine* out);

}  // namespace railkit::logs::nccl
