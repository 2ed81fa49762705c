// MPI hostfile parser, reader and FQDN rewriter (see hostfile.h).
#include "doctor/hostfile.h"

#include <arpa/inet.h>

#include <algorithm>
#include <unordered_set>

#include "core/input_file.h"
#include "core/strings.h"

namespace railkit::doctor {
namespace {

constexpr size_t kMaxHostName = 253;  // DNS limit for a full name

std::string quoteForMessage(std::string_view s) {
  // Keep messages one short line whatever the input holds.
  std::string out;
  for (char c : s.substr(0, 60)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (s.size() > 60) out += "...";
  return "'" + out + "'";
}

tl::unexpected<Error> lineError(std::string_view source, int line, const std::string& what) {
  return makeError(ErrorCode::kInvalidInput, std::string(source) + ":" + std::to_string(line) + ": " + what);
}

bool isIpv6Literal(std::string_view host) {
  return std::count(host.begin(), host.end(), ':') > 1;
}

bool validHostChar(char c, bool ipv6) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  if (c == '-' || c == '.' || c == '_') return true;
  return ipv6 && (c == ':' || c == '[' || c == ']' || c == '%');
}

Result<uint32_t> parseSlots(std::string_view value, std::string_view field, std::string_view source,
                            int line) {
  auto n = parseUint(value);
  if (!n || *n == 0 || *n > kMaxSlots)
    return lineError(source, line,
                     "bad slot count " + quoteForMessage(std::string(field)) +
                         ": expected a whole number from 1 to " + std::to_string(kMaxSlots));
  return static_cast<uint32_t>(*n);
}

// Parses one non-empty, comment-free line into `entry`.
Status parseLine(std::string_view raw, std::string_view content, int line, std::string_view source,
                 HostfileEntry& entry) {
  auto tokens = splitWhitespace(content);
  std::string_view host = tokens[0];
  entry.line = line;
  entry.host_offset = static_cast<size_t>(host.data() - raw.data());
  if (host.find('=') != std::string_view::npos)
    return lineError(source, line, "expected a host name first, found " + quoteForMessage(host));
  const bool ipv6 = isIpv6Literal(host);
  if (!ipv6) {
    auto colon = host.find(':');
    if (colon != std::string_view::npos) {  // MPICH host:N
      auto slots = parseSlots(host.substr(colon + 1), host, source, line);
      if (!slots) return tl::unexpected(slots.error());
      entry.slots = *slots;
      host = host.substr(0, colon);
    }
  }
  if (host.empty()) return lineError(source, line, "empty host name in " + quoteForMessage(tokens[0]));
  if (host.size() > kMaxHostName)
    return lineError(source, line,
                     "host name is " + std::to_string(host.size()) + " characters, more than " +
                         std::to_string(kMaxHostName));
  // mpirun hands each host to ssh (or its rsh agent) as an argument: a name
  // starting with '-' would be read as an option (-oProxyCommand=...).
  if (host.front() == '-')
    return lineError(
        source, line,
        "host name " + quoteForMessage(host) + " starts with '-': ssh and mpirun would read it as an option");
  for (char c : host)
    if (!validHostChar(c, ipv6))
      return lineError(source, line,
                       "invalid character in host name " + quoteForMessage(host) +
                           " (expected letters, digits, '-', '.', '_')");
  entry.host = std::string(host);

  for (size_t i = 1; i < tokens.size(); ++i) {
    std::string_view field = tokens[i];
    auto eq = field.find('=');
    std::string key = eq == std::string_view::npos ? std::string(field) : toLower(field.substr(0, eq));
    if (key == "slots" || key == "slot") {
      if (eq == std::string_view::npos || entry.slots)
        return lineError(
            source, line,
            entry.slots ? "slot count given twice" : "expected slots=N, found " + quoteForMessage(field));
      auto slots = parseSlots(field.substr(eq + 1), field, source, line);
      if (!slots) return tl::unexpected(slots.error());
      entry.slots = *slots;
    } else if (key == "max_slots" || key == "max-slots") {
      if (eq == std::string_view::npos || entry.max_slots)
        return lineError(source, line,
                         entry.max_slots ? "max_slots given twice"
                                         : "expected max_slots=N, found " + quoteForMessage(field));
      auto slots = parseSlots(field.substr(eq + 1), field, source, line);
      if (!slots) return tl::unexpected(slots.error());
      entry.max_slots = *slots;
    } else {
      return lineError(source, line,
                       "unknown field " + quoteForMessage(field) + " after host " + quoteForMessage(host) +
                           " (expected slots=N or max_slots=N)");
    }
  }
  if (entry.max_slots && *entry.max_slots < entry.slots.value_or(1))
    return lineError(source, line,
                     "max_slots=" + std::to_string(*entry.max_slots) +
                         " is below slots=" + std::to_string(entry.slots.value_or(1)));
  return okStatus();
}

// Calls fn(line_number, line_without_newline_or_cr) for each line.
template <class Fn>
Status forEachLine(std::string_view text, Fn&& fn) {
  int line = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    auto st = fn(++line, raw);
    if (!st) return st;
    pos = end + 1;
  }
  return okStatus();
}

}  // namespace

std::vector<std::string> Hostfile::distinctHosts() const {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const auto& e : entries)
    if (seen.insert(e.host).second) out.push_back(e.host);
  return out;
}

Result<Hostfile> parseHostfile(std::string_view text, std::string_view source) {
  Hostfile out;
  auto st = forEachLine(text, [&](int line, std::string_view raw) -> Status {
    for (char c : raw)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
        return lineError(source, line,
                         "binary data (control byte " + std::to_string(static_cast<unsigned char>(c)) +
                             "): not a hostfile");
    std::string_view content = raw.substr(0, raw.find('#'));
    if (trim(content).empty()) return okStatus();
    HostfileEntry entry;
    auto parsed = parseLine(raw, content, line, source, entry);
    if (!parsed) return parsed;
    out.entries.push_back(std::move(entry));
    return okStatus();
  });
  if (!st) return tl::unexpected(st.error());
  return out;
}

Result<std::string> readHostfileText(const std::string& path) {
  // Type checked before reading (a FIFO, /dev/zero or a directory is refused
  // at once) and capped: a hostfile is never endless.
  return readInputFile(path, InputFileOptions{"hostfile", kMaxHostfileBytes, false});
}

Result<Hostfile> loadHostfile(const std::string& path) {
  auto text = readHostfileText(path);
  if (!text) return tl::unexpected(text.error());
  return parseHostfile(*text, path);
}

Result<std::string> fqdnFor(std::string_view host, const FqdnOptions& options) {
  if (host.empty()) return makeError(ErrorCode::kInvalidInput, "empty host name");
  std::string h(host);
  unsigned char buf[16];
  if (inet_pton(AF_INET, h.c_str(), buf) == 1 || isIpv6Literal(host) || host.front() == '[') return h;
  if (host.back() == '.') return h;  // already absolute
  const std::string domain = options.cluster_domain.empty() ? "cluster.local" : options.cluster_domain;
  if (endsWith(host, ".svc." + domain)) return h;
  auto labels = split(host, '.');
  if (labels.back() == "svc") return h + "." + domain;
  switch (labels.size()) {
    case 3:  // pod.service.namespace
      return h + ".svc." + domain;
    case 2:  // pod.service
      if (options.ns.empty())
        return makeError(ErrorCode::kUsage,
                         "host " + h + " is <pod>.<service> and needs --namespace to become an FQDN");
      return h + "." + options.ns + ".svc." + domain;
    case 1:  // bare pod name
      if (options.ns.empty() || options.service.empty())
        return makeError(ErrorCode::kUsage,
                         "host " + h +
                             " is a bare pod name and needs --service (the headless Service) and "
                             "--namespace to become an FQDN");
      return h + "." + options.service + "." + options.ns + ".svc." + domain;
    default: return h;  // some other fully qualified name
  }
}

Result<std::string> rewriteHostfileFqdn(std::string_view text, const Hostfile& parsed,
                                        const FqdnOptions& options, std::string_view source) {
  std::string out;
  out.reserve(text.size() + parsed.entries.size() * 32);
  size_t next = 0;
  auto st = forEachLine(text, [&](int line, std::string_view raw) -> Status {
    if (next < parsed.entries.size() && parsed.entries[next].line == line) {
      const auto& entry = parsed.entries[next++];
      auto fqdn = fqdnFor(entry.host, options);
      if (!fqdn)
        return tl::unexpected(fqdn.error().withContext(std::string(source) + ":" + std::to_string(line)));
      out.append(raw.substr(0, entry.host_offset));
      out.append(*fqdn);
      out.append(raw.substr(entry.host_offset + entry.host.size()));
    } else {
      out.append(raw);
    }
    out.push_back('\n');
    return okStatus();
  });
  if (!st) return tl::unexpected(st.error());
  if (next != parsed.entries.size())
    return makeError(ErrorCode::kInternal, "hostfile text and its parse disagree at " + std::string(source));
  return out;
}

}  // namespace railkit::doctor
