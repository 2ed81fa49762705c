// What NCCL's INFO lines say about the job: version, CUDA, bootstrap,
// network module and HCAs, and the transport of every channel connection.
// Channel lines are by far the most frequent INFO lines, so they are handled
// first and without allocation.
#include <algorithm>

#include "logs/nccl/hca_list.h"
#include "logs/nccl/line.h"
#include "logs/nccl/state.h"
#include "logs/nccl/text.h"

namespace railkit::logs::nccl {
namespace {

// "NET/IB/1(2)/GDRDMA/Shared" -> "NET/IB/GDRDMA"; "P2P/IPC/read" -> "P2P/IPC";
// "direct shared memory" / "SHM/direct/direct" -> "SHM". Written into `out`.
void normaliseTransport(std::string_view via, std::string& out, bool* net, bool* gdr, bool* socket) {
  *net = *gdr = *socket = false;
  out.clear();
  if (startsWith(via, "NET/")) {
    *net = true;
    std::string_view rest = via.substr(4);
    // The net name ends at "/<digit>" (the device index); names may hold spaces.
    size_t end = 0;
    while (end < rest.size() && !(rest[end] == '/' && end + 1 < rest.size() && isDigit(rest[end + 1]))) ++end;
    std::string_view name = trimView(rest.substr(0, end));
    *socket = name == "Socket";
    *gdr = has(rest.substr(end), "/GDRDMA");
    out.append("NET/").append(name);
    if (*gdr) out.append("/GDRDMA");
    return;
  }
  if (startsWith(via, "P2P/")) {
    size_t slash = via.find('/', 4);
    out.assign(via.substr(0, slash));
    return;
  }
  if (startsWith(via, "SHM") || startsWith(via, "direct shared memory")) {
    out.assign("SHM");
    return;
  }
  if (startsWith(via, "direct pointer")) {
    out.assign("P2P/direct pointer");
    return;
  }
  size_t slash = via.find_first_of("/ ");
  out.assign(via.substr(0, slash));
}

void recordChannel(AnalyzerState& s, const NcclLine& line, uint64_t ln, size_t via_at) {
  std::string_view via = trimView(line.body.substr(via_at + 5));
  bool net = false, gdr = false, socket = false;
  normaliseTransport(via, s.scratch, &net, &gdr, &socket);
  s.countTransport(s.scratch);
  // Ranks: "0[1a000] -> 1[1b000]".
  std::string_view head = line.body.substr(0, via_at);
  size_t colon = findIn(head, " : ");
  if (colon != std::string_view::npos) {
    std::string_view pair = head.substr(colon + 3);
    if (auto r = numberAfter(pair, "")) s.addRank(*r);
    if (auto r = numberAfter(pair, "-> ")) s.addRank(*r);
  }
  if (!net) return;
  if (socket) {
    ++s.net_socket_channels;
    s.sig_socket_channel.add(s.file, ln, line.text);
  } else if (gdr) {
    ++s.net_gdr_channels;
  } else {
    ++s.net_plain_channels;
    s.sig_plain_ib_channel.add(s.file, ln, line.text);
  }
}

// "[0]eth0:10.0.0.1<0> [1]ib0:..." or "eth0:10.0.0.1<0>" -> "eth0:10.0.0.1".
void addInterfaceList(std::string_view list, DistinctList& into) {
  size_t semi = list.find(';');
  if (semi != std::string_view::npos) list = list.substr(0, semi);
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && list[i] == ' ') ++i;
    size_t end = list.find(' ', i);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(i, end - i);
    i = end;
    if (item.empty() || item == "[RO]") continue;
    if (item.front() == '[') {
      size_t close = item.find(']');
      if (close == std::string_view::npos) continue;
      item.remove_prefix(close + 1);
    }
    size_t lt = item.find('<');
    if (lt != std::string_view::npos) item = item.substr(0, lt);
    if (!item.empty()) into.add(item);
  }
}

// Every process prints its HCAs, and a job's processes mostly print the
// same list (the OOB address after `;` differs): a list added lately is
// not parsed again, as it would add nothing. A NET/IB line per process
// parsed item by item, each item a set lookup, cost twice a channel line.
void addHcaListOnce(AnalyzerState& s, std::string_view list) {
  if (s.recent_hca_lists.find(list) != nullptr) return;
  forEachHca(list, [&](std::string_view hca) { s.hcas.add(hca); });
  s.recent_hca_lists.remember(list, true);
}

bool recordVersion(AnalyzerState& s, std::string_view text, uint64_t ln) {
  size_t at = findIn(text, "NCCL version ");
  if (at == std::string_view::npos) return false;
  std::string_view rest = text.substr(at + 13);
  size_t end = 0;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != ',' && rest[end] != ')' && rest[end] != '\'')
    ++end;
  std::string_view version = rest.substr(0, end);
  if (version.empty() || !isDigit(version.front())) return false;
  if (s.versions.add(version)) s.sig_versions.add(s.file, ln, text);
  size_t plus = version.find("+cuda");
  if (plus != std::string_view::npos) {
    std::string_view cuda = version.substr(plus + 5);
    if (!cuda.empty() && isDigit(cuda.front())) s.cuda_runtime.add(cuda);
  }
  return true;
}

// hashWords, not std::hash: every `Using network` / plugin line of every
// rank computes it.
uint64_t processKey(const NcclLine& line) {
  return hashWords(hashWords(0x2545f491u, line.host), line.pid);
}

void recordPlugin(AnalyzerState& s, const NcclLine& line, uint64_t ln, std::string_view plugin) {
  if (plugin.empty()) return;
  s.plugins.add(plugin);
  if (s.process_plugin.set(processKey(line), plugin)) s.sig_plugins.add(s.file, ln, line.text);
}

void recordNetwork(AnalyzerState& s, const NcclLine& line, uint64_t ln, std::string_view network) {
  network = trimView(network);
  if (network.empty()) return;
  s.networks.add(network);
  if (network == "Socket") s.sig_socket_network.add(s.file, ln, line.text);
  if (s.process_network.set(processKey(line), network)) s.sig_plugins.add(s.file, ln, line.text);
}

bool recordNetLine(AnalyzerState& s, const NcclLine& line, uint64_t ln) {
  std::string_view b = line.body;
  if (startsWith(b, "NET/IB")) {
    // NCCL 2.3: "NET/IB : Using interface ib0 for sideband communication"
    // names the IP interface of the out-of-band socket, not an HCA.
    if (has(b, "for sideband")) return true;
    if (has(b, ": Using ") || has(b, ":Using ")) {
      addHcaListOnce(s, b.substr(findIn(b, "Using ") + 6));
      return true;
    }
    if (has(b, "No device found")) {
      s.sig_socket_cause.add(s.file, ln, line.text);
      return true;
    }
    if (has(b, "GPU Direct RDMA Disabled")) {
      s.sig_gdr_disabled.add(s.file, ln, line.text);
      return true;
    }
    if (has(b, "GPU Direct RDMA Enabled")) {
      s.gdr_enabled_said = true;
      return true;
    }
    // A queue pair connected: "NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 576 mtu 3
    // GID 3 (0/1064A8C0FFFF0000) ..." on a RoCE port, "... qpn 3038 mtu 5
    // LID 37 [subnet-prefix ... FLID ...]" on an InfiniBand one, and the
    // ECE lines ("NET/IB: IbDev 0 Port 1 qpn 576 set_ece={...}") that say
    // neither.
    if (has(b, " qpn ")) {
      ++s.ib_qp_lines;
      if (has(b, " LID ")) s.qp_lid_seen = true;
      if (has(b, " GID ")) s.qp_gid_seen = true;
      return true;
    }
    // "NET/IB: ... GID ::ffff:10.0.0.1": the port's GID is IPv4-mapped.
    if (hasIpv4MappedGid(b)) s.roce_gid_seen = true;
    return false;
  }
  if (auto kind = tcpDirectKind(b.substr(0, b.find_first_of(" :"))); !kind.empty()) {
    // "NET/GPUDirectTCPX ver. 3.1.8.", "NET/FasTrak: ...": Google's GPUDirect plugins.
    s.tcp_direct = kind;
    return !has(b, "rror") && !has(b, "ail");
  }
  if (startsWith(b, "NET/Socket")) {
    if (has(b, "Using ")) {
      addInterfaceList(b.substr(findIn(b, "Using ") + 6), s.socket_ifs);
      return true;
    }
    return false;
  }
  if (startsWith(b, "NET/OFI")) {
    recordPlugin(s, line, ln, "aws-ofi-nccl");
    return !has(b, "rror") && !has(b, "ail");
  }
  if (startsWith(b, "NET/Plugin")) {
    if (has(b, "No plugin found") || has(b, "Could not find")) {
      recordPlugin(s, line, ln, "internal");
      return true;
    }
    size_t loaded = findIn(b, "Loaded net plugin ");
    if (loaded != std::string_view::npos) {
      std::string_view name = trimView(b.substr(loaded + 18));
      recordPlugin(s, line, ln, name.substr(0, name.find(" (")));
      return true;
    }
    if (has(b, "Failed to find ncclCollNet")) return true;  // normal without CollNet
    return false;
  }
  return false;
}

// "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", "Ring 00 : 0 -> 1 via ...":
// the transport of one channel connection.
bool recordChannelLine(AnalyzerState& s, const NcclLine& line, uint64_t ln, uint64_t hash) {
  size_t via = findIn(line.body, " via ");
  if (via != std::string_view::npos) {
    recordChannel(s, line, ln, via);
    s.ranks.channelLine(line, hash, ln, via);
  }
  return true;
}

// "Connected all rings/trees", with GPU Direct RDMA's state since NCCL 2.19.
bool recordConnectedAll(AnalyzerState& s, const NcclLine& line, uint64_t ln, uint64_t hash) {
  s.ranks.connectedLine(line, hash, ln);
  if (has(line.body, "GDR 0"))
    s.sig_gdr0.add(s.file, ln, line.text);
  else if (has(line.body, "GDR 1"))
    s.gdr_enabled_said = true;
  return true;
}

// "comm 0x... rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId ... - Init COMPLETE",
// "ncclCommInitRank comm ... nRanks 16 nNodes 2 localRanks 8": the job's shape.
bool recordCommLine(AnalyzerState& s, const NcclLine& line, uint64_t ln, uint64_t hash) {
  std::string_view b = line.body;
  s.ranks.commLine(line, hash, ln);
  if (auto r = numberAfter(b, " rank ")) s.addRank(*r);
  auto n = numberAfter(b, " nranks ");
  if (!n) n = numberAfter(b, " nRanks ");
  if (n) s.nranks = std::max(s.nranks, *n);
  if (auto k = numberAfter(b, " nNodes ")) s.nnodes = std::max(s.nnodes, *k);
  if (auto l = numberAfter(b, " localRanks ")) s.local_ranks = std::max(s.local_ranks, *l);
  return true;
}

// "Bootstrap : Using eth0:10.0.0.1<0>": the out-of-band interface, and the
// host's address on it.
bool recordBootstrapLine(AnalyzerState& s, const NcclLine& line) {
  std::string_view b = line.body;
  size_t using_at = findIn(b, "Using ");
  if (using_at != std::string_view::npos) {
    addInterfaceList(b.substr(using_at + 6), s.bootstrap);
    // Each host bootstraps from its own address: two hosts with one
    // hostname (containers, copied images) still differ here.
    if (!line.host.empty() && !s.bootstrap.values().empty()) {
      std::string_view iface = trimView(b.substr(using_at + 6));
      if (!iface.empty() && iface.front() == '[')
        iface.remove_prefix(std::min(iface.find(']') + 1, iface.size()));
      size_t colon = iface.find(':'), end = iface.find_first_of("< ");
      if (colon != std::string_view::npos && colon < end)
        s.bootstrap_ips.add(iface.substr(colon + 1, end - colon - 1));
    }
  }
  return !has(b, "no socket") && !has(b, "failed");
}

// INFO lines that start with 'N': the version, the network module, NCCL_*
// settings echoed back.
bool recordNLine(AnalyzerState& s, const NcclLine& line, uint64_t ln, uint64_t hash) {
  std::string_view b = line.body;
  if (startsWith(b, "NVLS multicast support is not available")) return true;  // known, read by no fact
  if (startsWith(b, "NCCL version")) {
    recordVersion(s, b, ln);
    return true;
  }
  if (startsWith(b, "NET/")) {
    s.ranks.netLine(line, hash, ln);
    return recordNetLine(s, line, ln);
  }
  // NCCL 2.2-2.3: "NET : Using interface ib0:10.0.0.1<0>" (the socket/bootstrap interface).
  if (startsWith(b, "NET : Using interface ")) {
    addInterfaceList(b.substr(22), s.bootstrap);
    return true;
  }
  if (startsWith(b, "NET : Using internal Network ")) {
    recordNetwork(s, line, ln, b.substr(29));
    return true;
  }
  if (startsWith(b, "NCCL_")) {
    if (startsWith(b, "NCCL_IB_DISABLE") && has(b, "to 1")) s.sig_socket_cause.add(s.file, ln, line.text);
    return has(b, "set by environment") || has(b, " set to ");
  }
  return false;
}

// "Using network IB": the network module every connection goes through.
bool recordUsingLine(AnalyzerState& s, const NcclLine& line, uint64_t ln, uint64_t hash) {
  std::string_view b = line.body;
  if (startsWith(b, "Using network ")) {
    s.ranks.networkLine(line, hash, ln, trimView(b.substr(14)));
    recordNetwork(s, line, ln, b.substr(14));
    return true;
  }
  if (startsWith(b, "Using internal Network ")) {  // NCCL 2.2-2.3
    recordNetwork(s, line, ln, b.substr(23));
    return true;
  }
  return startsWith(b, "Using non-device");
}

// "transport/net.cc:1008 -> 6": the NCCL result a failure unwinds with.
// False when the line is no such trace.
bool recordErrorTrace(AnalyzerState& s, const NcclLine& line, uint64_t ln) {
  std::string_view b = line.body;
  size_t arrow = findIn(b, " -> ");
  if (arrow == std::string_view::npos || arrow == 0 || !isDigit(b[arrow - 1])) return false;
  if (auto code = numberAfter(b.substr(arrow), "-> "); code && *code > 0 && *code < 100) {
    s.last_error_code = static_cast<int>(*code);
    // The frame names the transport the failure went through.
    if (has(b, "net_socket.c")) s.socket_traced = true;
    if (has(b, "net_ib.c")) s.ib_mentioned = true;
    // Reaching init or the group launcher ("[Async thread]", NCCL 2.2's
    // "[bthread]"): the NCCL call itself failed. 7 is ncclInProgress, no failure.
    bool top = startsWith(b, "init.c") || startsWith(b, "group.c") || has(b, "/init.c") ||
               has(b, "/group.c") || has(b, "thread]");
    if (*code != 7 && top) {
      s.init_failed = true;
      s.sig_error_trace.add(s.file, ln, line.text);
    }
  }
  return true;
}

}  // namespace

bool recordCommonFacts(AnalyzerState& s, const NcclLine& line, uint64_t ln) {
  return line.level != LineLevel::kInfo && recordVersion(s, line.text, ln);
}

bool recordInfoFacts(AnalyzerState& s, const NcclLine& line, uint64_t ln, uint64_t hash) {
  std::string_view b = line.body;
  if (b.empty()) return true;
  switch (b.front()) {
    case 'C':
      if (startsWith(b, "Channel ")) return recordChannelLine(s, line, ln, hash);
      if (startsWith(b, "Connected all")) return recordConnectedAll(s, line, ln, hash);
      return startsWith(b, "CC ") || startsWith(b, "Check P2P") || startsWith(b, "Comm config") ||
             startsWith(b, "Could not get speed");
    case 'R':
      if (startsWith(b, "Ring ")) return recordChannelLine(s, line, ln, hash);
      return startsWith(b, "RAS ");
    case 'c':
    case 'n':
      if (startsWith(b, "comm ") || startsWith(b, "ncclCommInitRank") || startsWith(b, "ncclCommSplit"))
        return recordCommLine(s, line, ln, hash);
      if (startsWith(b, "cudaDriverVersion")) {
        std::string_view v = trimView(b.substr(17));
        if (!v.empty()) s.cuda_driver.add(v.substr(0, v.find(' ')));
        return true;
      }
      break;  // "channel.cc:123 -> 2", "net.cc:...": traces, below
    case 'B': return startsWith(b, "Bootstrap") && recordBootstrapLine(s, line);
    case 'r':
      // NCCL 2.3: "rank 0 nranks 8".
      if (startsWith(b, "rank ")) {
        s.ranks.commLine(line, hash, ln);
        if (auto r = numberAfter(b, "rank ")) s.addRank(*r);
        if (auto n = numberAfter(b, " nranks ")) s.nranks = std::max(s.nranks, *n);
        return true;
      }
      return false;
    // Three messages of healthy runs that no fact reads (every other INFO
    // message in ../shared/data's logs is known above or below): NCCL
    // probing rdma-core's optional symbols, a node without NVLink SHARP
    // (recordNLine), and the heading of the tuner's table. Known, they skip
    // the finding rules, which every rank's copy of an unknown line goes
    // through.
    case 'd':
      if (startsWith(b, "dlvsym failed on ")) return true;
      break;  // "dev.cc:12 -> 3": a trace, below
    case 'E':
      if (startsWith(b, "Enabled NCCL Func/Proto/Algo Matrix")) return true;
      break;
    case 'N': return recordNLine(s, line, ln, hash);
    case 'U': return recordUsingLine(s, line, ln, hash);
    case 'P':
      if (startsWith(b, "P2P plugin ")) {
        recordPlugin(s, line, ln, trimView(b.substr(11)));
        return true;
      }
      if (startsWith(b, "Plugin Path")) return true;
      return startsWith(b, "P2P Chunksize") || startsWith(b, "PROFILER/Plugin") || startsWith(b, "Pattern ");
    case 'F':
      if (startsWith(b, "Failed to open libibverbs") || startsWith(b, "Failed to initialize NET plugin IB")) {
        s.sig_socket_cause.add(s.file, ln, line.text);
        return true;
      }
      return false;
    case 'I': return startsWith(b, "Initialized NET plugin") || startsWith(b, "Init timings");
    case 'A':
      return startsWith(b, "Assigned NET plugin") || startsWith(b, "Allocated") || has(b, ": opCount ");
    case 'S': return startsWith(b, "Setting affinity");
    case 'T': return startsWith(b, "Trees") || startsWith(b, "Tree ") || startsWith(b, "TUNER/Plugin");
    case 't':
      if (startsWith(b, "threadThresholds")) return true;
      break;  // "transport/net_socket.cc:336 -> 2": a trace, below
    case 'D': return startsWith(b, "DMA-BUF");
    case '[': return startsWith(b, "[Proxy Progress]") || (startsWith(b, "[Proxy Service") && !has(b, "ail"));
    default: break;
  }
  if (isDigit(b.front())) return has(b, " channels");
  return recordErrorTrace(s, line, ln);
}

}  // namespace railkit::logs::nccl
