// Per-rank facts from the lines NCCL prints for each rank: which
// communicator rank it is, the transport of each of its channel connections,
// GPUDirect RDMA, and what its process opened (NICs, net plugin).
#include "logs/nccl/ranks.h"

#include <algorithm>
#include <functional>

#include "logs/nccl/hca_list.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

constexpr size_t kMaxNicsPerProcess = 32;
constexpr size_t kMaxNameBytes = 128;

std::optional<uint64_t> digits(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (!isDigit(c)) return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

bool isHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

void addName(std::vector<std::string>& into, std::string_view name) {
  if (name.empty() || into.size() >= kMaxNicsPerProcess) return;
  std::string value = bounded(name, kMaxNameBytes);
  if (std::find(into.begin(), into.end(), value) == into.end()) into.push_back(std::move(value));
}

// `[0]eth0:10.0.0.1<0> [1]ib0:...` -> "eth0:10.0.0.1", ...
void interfaceList(std::string_view list, std::vector<std::string>& into) {
  list = list.substr(0, list.find(';'));
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && list[i] == ' ') ++i;
    size_t end = std::min(list.find(' ', i), list.size());
    std::string_view item = list.substr(i, end - i);
    i = end;
    if (!item.empty() && item.front() == '[') item.remove_prefix(std::min(item.find(']') + 1, item.size()));
    item = item.substr(0, item.find('<'));
    if (item.find(':') != std::string_view::npos) addName(into, item);
  }
}

uint64_t processKey(std::string_view host, std::string_view pid) {
  return std::hash<std::string_view>{}(host)*31 + std::hash<std::string_view>{}(pid);
}

}  // namespace

RankCollector::Entry* RankCollector::entry(const NcclLine& line, uint64_t hash, uint64_t line_number) {
  if (hash != last_hash_ || hash == 0) {
    uint32_t* value = by_header_.get(hash);
    if (value == nullptr) {
      last_hash_ = 0;
      return nullptr;  // past both caps: neither kept nor counted
    }
    if ((*value & ~kSeen) == 0) *value |= newEntry(line, line_number);
    last_hash_ = hash;
    last_value_ = *value & ~kSeen;
  }
  return last_value_ == kNotKept ? nullptr : &entries_[last_value_ - 1];
}

bool RankCollector::headerSeen(uint64_t hash) {
  uint32_t* value = by_header_.get(hash);
  if (value == nullptr)
    return false;  // the table is full: the analyser records it again (correct, only slower)
  if (*value & kSeen) return true;
  *value |= kSeen;
  return false;
}

uint32_t RankCollector::newEntry(const NcclLine& line, uint64_t line_number) {
  if (entries_.size() >= kMaxRanksKept) {
    if (not_kept_ < kMaxNotKeptTracked) ++not_kept_;
    return kNotKept;
  }
  {
    Entry e;
    e.rank.host = bounded(line.host, kMaxNameBytes);
    e.rank.pid = digits(line.pid);
    e.rank.dev = digits(line.dev);
    e.rank.line = line_number;
    uint64_t key = processKey(line.host, line.pid);
    auto [p, fresh] = by_process_.try_emplace(key, processes_.size());
    if (fresh) processes_.emplace_back();
    e.process = p->second;
    entries_.push_back(std::move(e));
  }
  return static_cast<uint32_t>(entries_.size());
}

void RankCollector::channelLine(const NcclLine& line, uint64_t hash, uint64_t line_number, size_t via_at) {
  if (line.host.empty()) return;
  if (Entry* e = entry(line, hash, line_number)) channel(*e, line.body, via_at);
}

void RankCollector::connectedLine(const NcclLine& line, uint64_t hash, uint64_t line_number) {
  if (line.host.empty()) return;
  Entry* e = entry(line, hash, line_number);
  if (!e) return;
  if (has(line.body, "GDR 0"))
    e->no_gdr_said = true;
  else if (has(line.body, "GDR 1"))
    e->gdr_said = true;
}

void RankCollector::commLine(const NcclLine& line, uint64_t hash, uint64_t line_number) {
  if (line.host.empty()) return;
  if (Entry* e = entry(line, hash, line_number)) comm(*e, line.body);
}

void RankCollector::netLine(const NcclLine& line, uint64_t hash, uint64_t line_number) {
  if (line.host.empty()) return;
  if (Entry* e = entry(line, hash, line_number)) net(*e, processes_[e->process], line.body);
}

void RankCollector::networkLine(const NcclLine& line, uint64_t hash, uint64_t line_number,
                                std::string_view name) {
  if (line.host.empty()) return;
  Entry* e = entry(line, hash, line_number);
  if (!e) return;
  if (e->rank.network.empty()) e->rank.network = bounded(name, kMaxNameBytes);
  Process& p = processes_[e->process];
  if (p.network.empty()) p.network = e->rank.network;
}

// "Channel 01/1 : 3[3] -> 4[0] [send] via NET/IB/1(2)/GDRDMA/Shared",
// "Ring 00 : 0[1a000] -> 1[1b000] via P2P/IPC", "... via direct shared memory".
void RankCollector::channel(Entry& e, std::string_view b, size_t via_at) {
  std::string_view via = trimView(b.substr(via_at + 5));
  NcclRank& r = e.rank;
  if (startsWith(via, "NET/")) {
    ++r.net_channels;
    std::string_view rest = via.substr(4);
    size_t end = 0;  // the net name ends at "/<digit>" (names may hold spaces: "AWS Libfabric")
    while (end < rest.size() && !(rest[end] == '/' && end + 1 < rest.size() && isDigit(rest[end + 1]))) ++end;
    std::string_view name = trimView(rest.substr(0, end));
    std::string_view transport = via.substr(0, 4 + name.size());
    if (!name.empty() && r.transport.empty()) {
      r.transport = bounded(transport, kMaxNameBytes);
    } else if (!name.empty() && r.transport != transport && r.transport.size() < kMaxNameBytes) {
      // A rank on two networks (a socket fallback for some peers) shows both.
      std::string_view known = r.transport;
      bool listed = false;
      for (size_t at = 0; at <= known.size();) {
        size_t plus = std::min(known.find('+', at), known.size());
        listed |= known.substr(at, plus - at) == transport;
        at = plus + 1;
      }
      if (!listed) r.transport.append("+").append(validUtf8(transport));
    }
    if (end < rest.size()) {
      size_t i = end + 1, start = i;
      uint64_t dev = 0;
      while (i < rest.size() && isDigit(rest[i]) && i - start < 4)
        dev = dev * 10 + static_cast<uint64_t>(rest[i++] - '0');
      if (dev < 64) e.net_devices |= uint64_t{1} << dev;
    }
    if (name == "Socket")
      ++e.socket_channels;
    else if (has(rest.substr(end), "/GDRDMA"))
      ++e.gdr_channels;
    else
      ++e.plain_channels;
  } else if (startsWith(via, "P2P") || startsWith(via, "direct pointer")) {
    ++r.p2p_channels;
  } else if (startsWith(via, "SHM") || startsWith(via, "direct shared memory")) {
    ++r.shm_channels;
  } else {
    ++r.other_channels;
  }
  if (e.comm_size > 0 || r.rank) return;  // named by its init line, or by its first channel line
  // No init line for this rank: the printing side of the pair names it
  // (the receiving side on `[receive]` lines, the sender otherwise).
  std::string_view head = b.substr(0, via_at);
  size_t colon = findIn(head, " : ");
  if (colon == std::string_view::npos) return;
  std::string_view pair = head.substr(colon + 3);
  size_t arrow = findIn(pair, "-> ");
  if (arrow == std::string_view::npos) return;
  std::string_view side =
      has(b.substr(via_at), "[receive]") || has(head, "[receive]") ? pair.substr(arrow + 3) : pair;
  std::optional<uint64_t> rank = numberAfter(side, "");
  if (!rank) return;
  r.rank = rank;
  size_t open = side.find('['), close = side.find(']');
  if (r.bus_id.empty() && open != std::string_view::npos && close != std::string_view::npos &&
      close > open + 4) {
    std::string_view bus = side.substr(open + 1, close - open - 1);
    if (isHex(bus) && bus.size() <= 16) r.bus_id = std::string(bus);
  }
}

// "ncclCommInitRank comm 0x... rank 2 nranks 8 cudaDev 2 nvmlDev 2 busId a6000 ...",
// "comm 0x... rank 2 nRanks 8 nNodes 2 ...", NCCL 2.3's "rank 0 nranks 8".
// A process in several communicators (PyTorch subgroups) is named by the
// largest: its rank in the whole job.
void RankCollector::comm(Entry& e, std::string_view b) {
  std::optional<uint64_t> rank = startsWith(b, "rank ") ? numberAfter(b, "rank ") : numberAfter(b, " rank ");
  if (!rank) return;
  auto n = numberAfter(b, " nranks ");
  if (!n) n = numberAfter(b, " nRanks ");
  uint64_t size = std::max<uint64_t>(n.value_or(1), 1);
  NcclRank& r = e.rank;
  if (e.comm_size == 0 || size > e.comm_size) {
    r.rank = rank;
    r.nranks = n;
    e.comm_size = size;
  } else if (size < e.comm_size || *rank != r.rank) {
    return;  // another communicator's numbering
  }
  if (auto d = numberAfter(b, " cudaDev ")) r.cuda_dev = d;
  std::string_view bus = tokenAfter(b, " busId ");
  if (!bus.empty() && isHex(bus) && bus.size() <= 16) r.bus_id = std::string(bus);
}

void RankCollector::net(Entry& e, Process& p, std::string_view b) {
  if (startsWith(b, "NET/IB")) {
    if (has(b, "for sideband")) return;  // 2.3: the out-of-band interface, not an HCA
    if (has(b, "GPU Direct RDMA Disabled"))
      e.no_gdr_said = true;
    else if (has(b, "GPU Direct RDMA Enabled"))
      e.gdr_said = true;
    else if (p.nics == 0 && (has(b, ": Using ") || has(b, ":Using ")))
      p.nics = nicList(b.substr(findIn(b, "Using ") + 6));
  } else if (startsWith(b, "NET/Socket")) {
    if (p.socket_ifs.empty() && has(b, "Using "))
      interfaceList(b.substr(findIn(b, "Using ") + 6), p.socket_ifs);
  } else if (startsWith(b, "NET/OFI")) {
    if (p.plugin.empty()) p.plugin = "aws-ofi-nccl";
  } else if (startsWith(b, "NET/Plugin")) {
    size_t loaded = findIn(b, "Loaded net plugin ");
    if (loaded != std::string_view::npos) {
      std::string_view name = trimView(b.substr(loaded + 18));
      p.plugin = bounded(name.substr(0, name.find(" (")), kMaxNameBytes);
    } else if (p.plugin.empty() &&
               (has(b, "No plugin found") || has(b, "Could not find") || has(b, "internal"))) {
      p.plugin = "internal";
    }
  }
}

uint32_t RankCollector::nicList(std::string_view list) {
  if (const uint32_t* known = recent_nic_lists_.find(list)) return *known;
  std::vector<std::string> nics;
  forEachHca(list, [&](std::string_view hca) { addName(nics, hca); });
  if (nics.empty()) return 0;
  // At most one list per process (a process keeps the first it got).
  auto index = static_cast<uint32_t>(nic_lists_.size());
  nic_lists_.push_back(std::move(nics));
  recent_nic_lists_.remember(list, index);
  return index;
}

NcclRanks RankCollector::result() const {
  NcclRanks out;
  out.not_kept = not_kept_;
  // By rank, those without one last in first-seen order: sort indices, not
  // the entries (each carries strings and lists).
  std::vector<size_t> order(entries_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto &ra = entries_[a].rank.rank, &rb = entries_[b].rank.rank;
    if (ra.has_value() != rb.has_value()) return ra.has_value();
    return ra && *ra < *rb;
  });
  out.ranks.reserve(entries_.size());
  for (size_t index : order) {
    const Entry& e = entries_[index];
    NcclRank& r = out.ranks.emplace_back(e.rank);
    const Process& p = processes_[e.process];
    if (r.network.empty()) r.network = p.network;
    r.net_plugin = p.plugin;
    bool socket = r.transport == "NET/Socket" || (r.transport.empty() && r.network == "Socket");
    r.nics = socket ? p.socket_ifs : nic_lists_[p.nics];
    for (uint32_t d = 0; d < 64; ++d)
      if (e.net_devices & (uint64_t{1} << d)) r.net_devices.push_back(d);
    // GPUDirect RDMA: what the NET channels did, else what NCCL said for this rank.
    if (e.gdr_channels > 0)
      r.gdr = true;
    else if (e.plain_channels > 0 || e.socket_channels > 0 || e.no_gdr_said)
      r.gdr = false;
    else if (e.gdr_said)
      r.gdr = true;
  }
  return out;
}

}  // namespace railkit::logs::nccl
