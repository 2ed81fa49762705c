#include "logs/nccl_log.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/json_util.h"
#include "logs/nccl/line.h"
#include "logs/nccl/rule.h"
#include "logs/nccl/state.h"
#include "logs/nccl/text.h"

namespace railkit::logs {
namespace nccl {

std::set<std::string> versionNumbers(const std::vector<std::string>& versions) {
  std::set<std::string> out;
  for (const auto& v : versions) out.insert(v.substr(0, v.find('+')));
  return out;
}

namespace {

// Removes ANSI CSI (`ESC [ ... final`) and OSC (`ESC ] ... BEL`) sequences.
void stripAnsiInto(std::string_view in, std::string& out) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '\x1b') {
      out.push_back(c);
      continue;
    }
    if (i + 1 < in.size() && in[i + 1] == '[') {
      i += 2;
      while (i < in.size() && !(in[i] >= '@' && in[i] <= '~')) ++i;
    } else if (i + 1 < in.size() && in[i + 1] == ']') {
      i += 2;
      while (i < in.size() && in[i] != '\a') ++i;
    }
  }
}

std::string_view trimLineEnd(std::string_view text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == '\n')) text.remove_suffix(1);
  return text;
}

// ruleMatches without the whole-text memo.
const std::vector<AnalyzerState::RuleMatch>& bodyAndTextMatches(AnalyzerState& s, const NcclLine& line) {
  constexpr size_t kMaxRemembered = 1024;  // bytes of body kept per memo entry
  const auto& rules = allNcclRules();
  auto run = [&](size_t i, std::vector<AnalyzerState::RuleMatch>& into) {
    s.scan.detail.clear();
    s.scan.subject.clear();
    if (rules[i].match(line, &s.scan.detail, &s.scan.subject))
      into.push_back(AnalyzerState::RuleMatch{i, s.scan.detail, s.scan.subject});
  };
  bool remember = line.body.size() <= kMaxRemembered;
  uint64_t hash = 0;
  const AnalyzerState::MatchMemo* found = nullptr;
  if (remember) {
    hash = hashWords(0x3c6ef372u + static_cast<uint64_t>(line.level), line.body) | 1;
    for (const auto& m : s.match_memo)
      if (m.hash == hash && m.level == line.level && m.text == line.body) found = &m;
  }
  if (!found) {
    AnalyzerState::MatchMemo& slot =
        remember ? s.match_memo[s.match_memo_next++ % s.match_memo.size()] : s.match_scratch;
    slot.hash = 0;
    slot.matches.clear();
    for (size_t i = 0; i < rules.size(); ++i)
      if (rules[i].match && !rules[i].reads_text) run(i, slot.matches);
    if (remember) {
      slot.text.assign(line.body);
      slot.level = line.level;
      slot.hash = hash;
    }
    found = &slot;
  }
  // The whole-text rules, merged in rule order.
  auto& out = s.scan.matches;
  out.clear();
  size_t next = 0;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].match && rules[i].reads_text) {
      while (next < found->matches.size() && found->matches[next].rule < i)
        out.push_back(found->matches[next++]);
      run(i, out);
    }
  }
  if (out.empty()) return found->matches;
  while (next < found->matches.size()) out.push_back(found->matches[next++]);
  return out;
}

// The rules that match `line`, in rule order, each with its detail and
// subject. All of them are remembered by the whole text (a traceback line
// every rank repeats); on a miss, rules that read only the body and level
// are remembered by those (every rank prints the same error with its own
// header), and the few that read the whole text run.
const std::vector<AnalyzerState::RuleMatch>& ruleMatches(AnalyzerState& s, const NcclLine& line) {
  constexpr size_t kMaxRemembered = 1024;  // bytes of text or body kept per memo entry
  // A line with NCCL's header is its process's own (host:pid:tid): the
  // same text comes back only when that thread repeats itself, so such
  // lines are not hashed and stored for the whole-text memo (the body
  // memo below serves their repeats across ranks).
  bool remember_text = line.host.empty() && line.text.size() <= kMaxRemembered;
  uint64_t text_hash = 0;
  if (remember_text) {
    text_hash = hashWords(0x85ebca6bu + static_cast<uint64_t>(line.level), line.text) | 1;
    for (const auto& m : s.text_memo)
      if (m.hash == text_hash && m.level == line.level && m.text == line.text) return m.matches;
  }
  const auto& all = bodyAndTextMatches(s, line);
  if (!remember_text) return all;
  AnalyzerState::MatchMemo& slot = s.text_memo[s.text_memo_next++ % s.text_memo.size()];
  slot.matches = all;
  slot.text.assign(line.text);
  slot.level = line.level;
  slot.hash = text_hash;
  return slot.matches;
}

}  // namespace

}  // namespace nccl

NcclLogAnalyzer::NcclLogAnalyzer(std::string file_label)
    : state_(std::make_unique<nccl::AnalyzerState>(std::move(file_label))) {}
NcclLogAnalyzer::~NcclLogAnalyzer() = default;
NcclLogAnalyzer::NcclLogAnalyzer(NcclLogAnalyzer&&) noexcept = default;
NcclLogAnalyzer& NcclLogAnalyzer::operator=(NcclLogAnalyzer&&) noexcept = default;

// NCCL's own text counts even without NCCL's line header: a PyTorch
// traceback's `NCCL error ... Last error:` lines, a watchdog's WorkNCCL line.
bool NcclLogAnalyzer::sawNccl() const {
  return state_->nccl_lines > 0 || state_->nccl_text_lines > 0;
}
const std::string& NcclLogAnalyzer::file() const {
  return state_->file;
}

void NcclLogAnalyzer::feedLine(std::string_view text, uint64_t line_number) {
  using namespace nccl;
  text = trimLineEnd(text);
  if (text.empty()) return;
  if (containsByte(text, '\x1b')) {
    stripAnsiInto(text, state_->scan.ansi_buf);
    text = state_->scan.ansi_buf;
  }
  NcclLine& line = state_->scan.line;
  HeaderMemo& memo = state_->scan.header_memo;
  if (!classifyLine(text, &line, &memo)) return feedUnclassified(text, line_number);
  feedClassified(line, line_number, memoHeaderHash(line, memo));
}

namespace {

// "[rank0]: text" / "[trainer0|0]:text": the launcher's tag in front of a
// line PyTorch printed.
std::string_view stripRankTag(std::string_view text) {
  text = nccl::trimView(text);
  if (text.size() > 2 && text.front() == '[') {
    size_t close = text.find("]:");
    if (close != std::string_view::npos && close < 40) text = nccl::trimView(text.substr(close + 2));
  }
  return text;
}

bool endsWithLastError(std::string_view text) {
  // Every line asks: most end in neither ':' nor blanks, one byte decides.
  if (text.empty() ||
      (text.back() != ':' && text.back() != ' ' && text.back() != '\t' && text.back() != '\r'))
    return false;
  text = nccl::trimView(text);
  constexpr std::string_view kLast = "Last error:";
  return text.size() >= kLast.size() && text.substr(text.size() - kLast.size()) == kLast;
}

}  // namespace

// A line with nothing NCCL-like in it is still NCCL's text when it follows
// `Last error:` (PyTorch prints NCCL's last WARN there, without its header).
void NcclLogAnalyzer::feedUnclassified(std::string_view text, uint64_t line_number) {
  using namespace nccl;
  auto& s = *state_;
  if (!s.after_last_error) {
    s.after_last_error = endsWithLastError(text);
    return;
  }
  NcclLine& line = s.scan.line;
  line = NcclLine{};
  line.level = LineLevel::kOther;
  line.text = text;
  line.body = stripRankTag(text);
  feedClassified(line, line_number, 0);
}

NcclLogAnalyzer::PreparedLine NcclLogAnalyzer::prepareLine(std::string_view text, nccl::HeaderMemo* memo) {
  using namespace nccl;
  assert(!containsByte(text, '\x1b'));
  PreparedLine out;
  text = trimLineEnd(text);
  if (text.size() > UINT16_MAX) {
    out.level = PreparedLine::kUnprepared;
    return out;
  }
  NcclLine line;
  out.level = static_cast<uint8_t>(LineLevel::kNone);
  if (text.empty() || !classifyLine(text, &line, memo)) return out;
  auto at = [&](std::string_view part) {
    return part.empty() ? uint16_t{0} : static_cast<uint16_t>(part.data() - text.data());
  };
  out.level = static_cast<uint8_t>(line.level);
  out.text_len = static_cast<uint16_t>(text.size());
  out.body_at = at(line.body);
  out.body_len = static_cast<uint16_t>(line.body.size());
  out.host_at = at(line.host);
  out.host_len = static_cast<uint16_t>(line.host.size());
  out.pid_at = at(line.pid);
  out.pid_len = static_cast<uint16_t>(line.pid.size());
  out.dev_at = at(line.dev);
  out.dev_len = static_cast<uint16_t>(line.dev.size());
  out.header_hash = memo ? memoHeaderHash(line, *memo) : headerHash(line);
  return out;
}

namespace {

void unpack(std::string_view text, const NcclLogAnalyzer::PreparedLine& p, nccl::NcclLine& line) {
  line.level = static_cast<nccl::LineLevel>(p.level);
  line.text = text.substr(0, p.text_len);
  line.body = line.text.substr(p.body_at, p.body_len);
  line.host = line.text.substr(p.host_at, p.host_len);
  line.pid = line.text.substr(p.pid_at, p.pid_len);
  line.dev = line.text.substr(p.dev_at, p.dev_len);
}

}  // namespace

void NcclLogAnalyzer::feedPrepared(std::string_view text, const PreparedLine& p, uint64_t line_number) {
  using namespace nccl;
  if (p.level == PreparedLine::kUnprepared) return feedLine(text, line_number);
  if (static_cast<LineLevel>(p.level) == LineLevel::kNone)
    return feedUnclassified(trimLineEnd(text), line_number);
  NcclLine& line = state_->scan.line;
  unpack(text, p, line);
  feedClassified(line, line_number, p.header_hash);
}

// The hash of a header the memo knows is the memo's: a process's lines
// hash their host:pid and dev once per run of them.
uint64_t NcclLogAnalyzer::memoHeaderHash(const nccl::NcclLine& line, nccl::HeaderMemo& memo) {
  if (memo.hit && memo.hash != 0) return memo.hash;
  uint64_t hash = headerHash(line);
  if (memo.fresh) memo.hash = hash;
  return hash;
}

uint64_t NcclLogAnalyzer::headerHash(const nccl::NcclLine& line) {
  if (line.host.empty()) return 0;
  // `host:pid`, or the host alone for old lines that print no pid.
  std::string_view host_pid = line.host;
  if (!line.pid.empty())
    host_pid = std::string_view(line.host.data(),
                                static_cast<size_t>(line.pid.data() + line.pid.size() - line.host.data()));
  return nccl::hashWords(nccl::hashWords(0x51ed2701u, host_pid), line.dev) | 1;  // never 0, the empty slot
}

void NcclLogAnalyzer::feedClassified(const nccl::NcclLine& line, uint64_t line_number, uint64_t hash) {
  using namespace nccl;
  auto& s = *state_;
  if (line.level == LineLevel::kInfo || line.level == LineLevel::kWarn) ++s.nccl_lines;
  bool last_error_text = s.after_last_error;
  s.after_last_error = endsWithLastError(line.text);
  if (last_error_text) {
    // The cause NCCL printed, as PyTorch repeats it.
    ++s.nccl_text_lines;
    s.last_warn = bounded(stripRankTag(line.text), 300);
    s.last_warn_line = line_number;
  }
  if (!line.host.empty()) {
    // Ranks print in bursts: the same header as the line before needs no probe.
    if (hash != s.last_header_hash && !s.headerSeen(hash)) {
      s.hosts.add(line.host);
      s.scan.key_buf.assign(line.host).append(":").append(line.pid);
      s.processes.add(s.scan.key_buf);
      s.scan.key_buf.append(":").append(line.dev);
      s.rank_devices.add(s.scan.key_buf);
    }
    s.last_header_hash = hash;
  }
  if (line.level == LineLevel::kInfo) {
    if (recordInfoFacts(s, line, line_number, hash)) return;
  } else {
    if (recordCommonFacts(s, line, line_number) && line.level == LineLevel::kOther) ++s.nccl_text_lines;
    if (has(line.text, "NET/IB") || has(line.text, "ibv_") || has(line.text, "net_ib")) s.ib_mentioned = true;
    // A RoCE GID (IPv4-mapped) or a GID index: the RDMA network is RoCE.
    if (hasIpv4MappedGid(line.text) || has(line.text, "GID index")) s.roce_gid_seen = true;
    if (auto kind = tcpDirectKind(line.text); !kind.empty()) s.tcp_direct = kind;
    if (line.level == LineLevel::kOther) s.crashes.line(line.text, line_number, s.file);
    if (line.level == LineLevel::kWarn) {
      s.last_warn = bounded(line.body, 300);
      s.last_warn_line = line_number;
      if (s.first_warn.empty()) s.first_warn = s.last_warn, s.first_warn_line = line_number;
    }
  }
  const auto& matches = ruleMatches(s, line);
  // A finding on a line without NCCL's header counts as NCCL's text only when
  // the line names NCCL itself (WorkNCCL, `NCCL error`) or repeats NCCL's last
  // error: other programs' WARN lines must not make a log an NCCL log.
  if (line.level == LineLevel::kOther && !matches.empty() && !last_error_text && has(line.text, "NCCL"))
    ++s.nccl_text_lines;
  for (const auto& m : matches) {
    Hits& hits = s.rule_hits[m.rule];
    if (hits.count == 0) hits.detail = m.detail;
    hits.last_detail = m.detail;
    if (!m.subject.empty()) hits.subjects.add(m.subject);
    hits.add(s.file, line_number, line.text);
  }
}

NcclLogFacts NcclLogAnalyzer::facts() const {
  return nccl::summarize(*state_);
}

std::vector<Finding> NcclLogAnalyzer::findings() const {
  return findings(facts());
}

std::vector<Finding> NcclLogAnalyzer::findings(const NcclLogFacts& facts) const {
  std::vector<Finding> out;
  const auto& rules = nccl::allNcclRules();
  // Without NCCL's lines, only what any program's output shows is reported
  // (another program's WARN must not pass for NCCL's).
  bool nccl = sawNccl();
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!nccl && !rules[i].any_log) continue;
    nccl::RuleContext context{*state_, facts, out};
    if (rules[i].build_each) {
      for (auto& f : rules[i].build_each(context)) out.push_back(std::move(f));
    } else if (auto f = rules[i].build(state_->rule_hits[i], context)) {
      out.push_back(std::move(*f));
    }
  }
  // Findings become JSON: every string must be valid UTF-8 whatever the log held.
  for (auto& f : out) {
    f.message = nccl::validUtf8(f.message);
    f.subject = nccl::validUtf8(f.subject);
    f.fix = nccl::validUtf8(f.fix);
    for (auto& e : f.evidence) e.text = nccl::validUtf8(e.text);
  }
  return out;
}

nlohmann::json factsToJson(const NcclLogFacts& f) {
  nlohmann::json j;
  j["inter_node_transport"] = f.inter_node_transport;
  j["link_layer"] = jsonOpt(f.link_layer);
  j["gdr"] = jsonOpt(f.gdr);
  j["nccl_version"] = jsonOpt(f.nccl_versions.empty() ? std::string() : f.nccl_versions.front());
  j["nccl_versions"] = f.nccl_versions;
  j["cuda_driver"] = f.cuda_driver;
  j["cuda_runtime"] = f.cuda_runtime;
  j["hosts"] = f.hosts;
  j["host_count"] = std::max<uint64_t>(f.host_count, f.hosts.size());
  j["processes"] = f.processes;
  j["ranks"] = f.ranks;
  j["nranks"] = jsonOpt(f.nranks);
  j["nnodes"] = jsonOpt(f.nnodes);
  j["bootstrap"] = f.bootstrap;
  j["networks"] = f.networks;
  j["net_plugins"] = f.net_plugins;
  j["hcas"] = f.hcas;
  j["socket_interfaces"] = f.socket_interfaces;
  j["transports"] = nlohmann::json::object();
  for (const auto& [name, count] : f.transports) j["transports"][name] = count;
  j["nccl_lines"] = f.nccl_lines;
  mergeMoved(j, ranksToJson(f.per_rank));
  return j;
}

}  // namespace railkit::logs
