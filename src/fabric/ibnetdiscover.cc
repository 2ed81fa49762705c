#include "fabric/ibnetdiscover.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "core/input_file.h"
#include "core/strings.h"
#include "fabric/capture_file.h"

namespace railkit::fabric {
namespace {

// No NodeDescription (64 bytes), GUID or comment makes a real line this long.
constexpr std::size_t kMaxLine = 4096;
// InfiniBand port numbers are 8 bits.
constexpr int kMaxPorts = 255;

std::string shown(std::string_view text) {
  std::string out(text.substr(0, 80));
  if (text.size() > 80) out += "...";
  return out;
}

// The text between the first pair of double quotes at or after `from`, and
// where the closing quote is; nullopt when there is no pair.
std::optional<std::pair<std::string_view, std::size_t>> quoted(std::string_view text, std::size_t from = 0) {
  auto open = text.find('"', from);
  if (open == std::string_view::npos) return std::nullopt;
  auto close = text.find('"', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return std::make_pair(text.substr(open + 1, close - open - 1), close);
}

// "[12]" at the start of `text`: the number and the rest after ']'.
std::optional<std::pair<int, std::string_view>> bracketNumber(std::string_view text) {
  if (text.empty() || text.front() != '[') return std::nullopt;
  auto close = text.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  auto n = parseUint(text.substr(1, close - 1));
  if (!n || *n > 100000) return std::nullopt;
  return std::make_pair(static_cast<int>(*n), text.substr(close + 1));
}

// Skips "(e09d7303007a4bd8)", a port GUID, when `text` starts with one.
std::string_view skipGuid(std::string_view text) {
  if (text.empty() || text.front() != '(') return text;
  auto close = text.find(')');
  return close == std::string_view::npos ? text : text.substr(close + 1);
}

// The last "4xNDR"-shaped word of a port line's comment.
void parseRate(std::string_view comment, PortLink& link) {
  auto words = splitWhitespace(comment);
  for (auto it = words.rbegin(); it != words.rend(); ++it) {
    auto x = it->find('x');
    if (x == std::string_view::npos || x == 0 || x + 1 >= it->size()) continue;
    auto lanes = parseUint(it->substr(0, x));
    if (!lanes || *lanes == 0 || *lanes > 32) continue;
    link.width = static_cast<int>(*lanes);
    link.speed = std::string(it->substr(x + 1));
    return;
  }
}

// The number after the first "lid " word of `text` (0 when none).
unsigned lidIn(std::string_view text) {
  auto words = splitWhitespace(text);
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "lid") {
      auto n = parseUint(words[i + 1]);
      return n && *n <= 0xffff ? static_cast<unsigned>(*n) : 0;
    }
  return 0;
}

NodeKind kindOfId(std::string_view id) {
  if (startsWith(id, "S-")) return NodeKind::kSwitch;
  if (startsWith(id, "H-")) return NodeKind::kCa;
  if (startsWith(id, "R-")) return NodeKind::kRouter;
  return NodeKind::kUnknown;
}

std::optional<NodeKind> headerKind(std::string_view word) {
  if (word == "Switch") return NodeKind::kSwitch;
  if (word == "Ca" || word == "Hca") return NodeKind::kCa;  // Hca: ibsim's net files
  if (word == "Rt") return NodeKind::kRouter;
  return std::nullopt;
}

bool isKeyValue(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) return false;
  for (char c : text.substr(0, eq))
    if (!(c >= 'a' && c <= 'z')) return false;
  return true;
}

}  // namespace

IbnetdiscoverParser::IbnetdiscoverParser(std::string source) {
  fabric_.source = std::move(source);
}

Error IbnetdiscoverParser::at(long number, const std::string& message) const {
  return Error{ErrorCode::kInvalidInput, fmt::format("{}:{}: {}", fabric_.source, number, message)};
}

std::size_t IbnetdiscoverParser::nodeFor(std::string_view id) {
  auto [it, added] = index_.try_emplace(std::string(id), fabric_.nodes.size());
  if (added) {
    Node node;
    node.id = std::string(id);
    node.kind = kindOfId(id);
    fabric_.nodes.push_back(std::move(node));
  }
  return it->second;
}

Status IbnetdiscoverParser::line(std::string_view text, long number) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  if (text.size() > kMaxLine)
    return tl::unexpected(at(number, fmt::format("a line of {} bytes; ibnetdiscover's lines are short "
                                                 "(is this a topology file?)",
                                                 text.size())));
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t')
      return tl::unexpected(at(number, fmt::format("byte 0x{:02x} at column {}: binary data, not "
                                                   "ibnetdiscover output",
                                                   c, i + 1)));
  }
  std::string_view body = trim(text);
  if (body.empty()) {
    current_ = kNoNode;  // a blank line ends a record
    return okStatus();
  }
  if (body.front() == '#') return okStatus();
  if (body.front() == '[') return port(body, number);
  auto words = splitWhitespace(body);
  if (headerKind(words.front())) return header(body, number);
  current_ = kNoNode;
  // vendid=, devid=, sysimgguid=, switchguid=, caguid= (and ibsim's width=,
  // speed=) describe the next record; `-g` adds chassis headings.
  if (isKeyValue(body) || words.front() == "Chassis" || startsWith(body, "Non-Chassis Nodes"))
    return okStatus();
  return tl::unexpected(at(number, fmt::format("expected a node record (Switch, Ca or Rt), a port line "
                                               "([port] \"peer\"[port]) or key=value; found '{}'",
                                               shown(body))));
}

Status IbnetdiscoverParser::header(std::string_view text, long number) {
  auto words = splitWhitespace(text);
  NodeKind kind = *headerKind(words.front());
  // The count as a plain number (0: absent or not a number), which also
  // keeps GCC's -Wmaybe-uninitialized quiet about an optional here.
  uint64_t ports = 0;
  if (words.size() > 1) ports = parseUint(words[1]).value_or(0);
  auto id = quoted(text);
  if (ports == 0 || ports > kMaxPorts || !id || id->first.empty())
    return tl::unexpected(at(number, fmt::format("expected '{} PORTS \"ID\"' with 1 to {} ports; found '{}'",
                                                 words.front(), kMaxPorts, shown(text))));
  std::size_t index = nodeFor(id->first);
  Node& node = fabric_.nodes[index];
  if (node.line != 0)
    return tl::unexpected(at(number, fmt::format("node \"{}\" is described a second time (first at line {})",
                                                 node.id, node.line)));
  node.kind = kind;
  node.port_count = static_cast<int>(ports);
  node.line = number;
  // The NodeDescription is the comment's quoted text; ibsim's net files
  // have none, and their id is the description.
  auto hash = text.find('#', id->second + 1);
  auto description = hash == std::string_view::npos ? std::nullopt : quoted(text, hash);
  node.description = std::string(description ? description->first : id->first);
  // A switch prints its LID after the description; a CA prints one per port.
  if (kind == NodeKind::kSwitch && hash != std::string_view::npos)
    node.lid = lidIn(text.substr(description ? hash + description->first.size() + 3 : hash));
  current_ = index;
  ++records_;
  return okStatus();
}

Status IbnetdiscoverParser::port(std::string_view text, long number) {
  if (current_ == kNoNode)
    return tl::unexpected(at(number, fmt::format("a port line outside a node record (no Switch/Ca/Rt "
                                                 "line above it): '{}'",
                                                 shown(text))));
  auto local = bracketNumber(text);
  auto peer = local ? quoted(skipGuid(local->second)) : std::nullopt;
  std::string_view after = peer ? skipGuid(local->second).substr(peer->second + 1) : std::string_view{};
  auto remote = peer ? bracketNumber(trim(after)) : std::nullopt;
  if (!local || !peer || peer->first.empty() || !remote)
    return tl::unexpected(
        at(number,
           fmt::format("expected '[port] \"peer\"[port]'; found '{}' (a truncated file?)", shown(text))));
  Node& self = fabric_.nodes[current_];
  if (local->first < 1 || local->first > self.port_count)
    return tl::unexpected(at(number, fmt::format("port {} of \"{}\", which has {} ports", local->first,
                                                 self.id, self.port_count)));
  if (remote->first < 1 || remote->first > kMaxPorts)
    return tl::unexpected(
        at(number, fmt::format("peer port {} is not a port number (1 to {})", remote->first, kMaxPorts)));
  for (const auto& p : self.ports)
    if (p.port == local->first)
      return tl::unexpected(at(number, fmt::format("port {} of \"{}\" is listed twice (first at line {})",
                                                   p.port, self.id, p.line)));
  if (peer->first == self.id && remote->first == local->first)
    return tl::unexpected(
        at(number, fmt::format("port {} of \"{}\" is cabled to itself", local->first, self.id)));
  PortLink link;
  link.port = local->first;
  link.peer_port = remote->first;
  link.line = number;
  auto hash = remote->second.find('#');
  std::string_view comment = hash == std::string_view::npos ? "" : remote->second.substr(hash + 1);
  parseRate(comment, link);
  // A CA's port line starts its comment with the port's own LID.
  if (self.kind != NodeKind::kSwitch && startsWith(trim(comment), "lid ")) link.lid = lidIn(comment);
  std::size_t owner = current_;
  link.peer = nodeFor(peer->first);  // may grow the vector: no reference held across it
  Node& other = fabric_.nodes[link.peer];
  if (other.line == 0 && other.description.empty()) {
    auto description = quoted(comment);
    if (description) other.description = std::string(description->first);
  }
  fabric_.nodes[owner].ports.push_back(std::move(link));
  return okStatus();
}

namespace {

const PortLink* findPort(const Node& node, int port) {
  for (const auto& p : node.ports)
    if (p.port == port) return &p;
  return nullptr;
}

std::string end(const Node& node, int port) {
  return fmt::format("\"{}\"[{}]", node.id, port);
}

}  // namespace

Result<Fabric> IbnetdiscoverParser::finish() && {
  if (records_ == 0)
    return makeError(ErrorCode::kInvalidInput,
                     fmt::format("{}: no Switch, Ca or Rt record: not ibnetdiscover output (empty, or cut "
                                 "before its first record?)",
                                 fabric_.source));
  auto& nodes = fabric_.nodes;
  // A cable is printed at both ends when both records are there; the two
  // lines must agree. Where a record is missing (an excerpt, a node that
  // vanished mid-scan), the cable is added to the end that lacks it, so
  // every check sees each cable from both sides.
  std::vector<std::pair<std::size_t, PortLink>> mirrors;
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    for (const auto& link : nodes[a].ports) {
      const Node& b = nodes[link.peer];
      if (b.line != 0 && link.peer_port > b.port_count)
        return tl::unexpected(
            at(link.line, fmt::format("{} is cabled to port {} of \"{}\", which has {} ports "
                                      "(line {})",
                                      end(nodes[a], link.port), link.peer_port, b.id, b.port_count, b.line)));
      const PortLink* back = findPort(b, link.peer_port);
      if (back == nullptr) {
        PortLink mirror = link;
        mirror.port = link.peer_port;
        mirror.peer = a;
        mirror.peer_port = link.port;
        mirror.lid = 0;  // a CA port's own LID, not the far end's
        mirrors.emplace_back(link.peer, std::move(mirror));
      } else if (back->peer != a || back->peer_port != link.port) {
        return tl::unexpected(
            at(link.line, fmt::format("this line cables {} to {}, but line {} cables {} to {}",
                                      end(nodes[a], link.port), end(b, link.peer_port), back->line,
                                      end(b, link.peer_port), end(nodes[back->peer], back->peer_port))));
      }
    }
  }
  for (auto& [b, mirror] : mirrors) {
    if (const PortLink* taken = findPort(nodes[b], mirror.port))
      return tl::unexpected(
          at(mirror.line,
             fmt::format("this line cables {} to {}, but line {} cables {} to {}",
                         end(nodes[mirror.peer], mirror.peer_port), end(nodes[b], mirror.port), taken->line,
                         end(nodes[taken->peer], taken->peer_port), end(nodes[b], mirror.port))));
    nodes[b].ports.push_back(std::move(mirror));
  }
  for (auto& node : nodes)
    std::sort(node.ports.begin(), node.ports.end(),
              [](const PortLink& x, const PortLink& y) { return x.port < y.port; });
  return std::move(fabric_);
}

Result<Fabric> parseIbnetdiscover(std::string_view text, std::string source) {
  IbnetdiscoverParser parser(std::move(source));
  long number = 0;
  while (!text.empty()) {
    auto newline = text.find('\n');
    std::string_view one = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (auto st = parser.line(one, ++number); !st) return tl::unexpected(st.error());
  }
  return std::move(parser).finish();
}

Result<Fabric> readIbnetdiscoverFile(const std::string& path) {
  InputFileOptions options;
  options.what = "ibnetdiscover output";
  // A 100,000-HCA fabric prints about 50 MB.
  options.max_bytes = std::size_t{256} << 20;
  options.allow_stdin = true;
  return readCaptureFile<Fabric>(path, options, parseIbnetdiscover);
}

}  // namespace railkit::fabric
