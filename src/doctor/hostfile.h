#pragma once
// MPI hostfiles: the list of hosts mpirun starts ranks on. In Kubernetes the
// MPI operator writes one into the launcher (`/etc/mpi/hostfile`) naming every
// worker pod through the job's headless Service, e.g.
//   job-worker-0.job.team.svc slots=8
// Those names resolve only once the pods exist and are ready, and only through
// cluster DNS on the pod network; a launcher that starts mpirun before that
// fails with ssh/orted "could not resolve" errors. railkit reads the hostfile
// to check every name (doctor --hostfile), to wait for them (wait-dns) and to
// rewrite them into the full `<pod>.<svc>.<ns>.svc.<cluster-domain>` form that
// resolves whatever the pod's DNS search path says.
//
// Accepted lines (Open MPI and MPICH/Hydra forms):
//   host                 one slot (the MPI default)
//   host slots=N         Open MPI; also max_slots=M (max-slots=M) after it
//   host:N               MPICH/Hydra
//   # comment            whole-line or trailing; blank lines; CRLF endings
// Parsing is a pure function of the text; the reader is separate.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::doctor {

struct HostfileEntry {
  std::string host;
  int line = 0;                       // 1-based
  std::optional<uint32_t> slots;      // absent: one slot
  std::optional<uint32_t> max_slots;  // Open MPI max_slots=
  size_t host_offset = 0;             // where the host name starts in its line
};

struct Hostfile {
  std::vector<HostfileEntry> entries;
  // Distinct host names in order of first appearance.
  std::vector<std::string> distinctHosts() const;
};

// Largest hostfile railkit reads (a 100k-node file is ~6 MiB).
inline constexpr size_t kMaxHostfileBytes = 16u << 20;
// Largest slot count accepted: more is a typo, not a machine.
inline constexpr uint32_t kMaxSlots = 1u << 20;

// Parses hostfile text. `source` names the file in error messages
// ("hostfile:3: ..."). Errors (kInvalidInput) name the line and what was
// expected: bad slot counts, unknown fields, binary data, invalid host names.
// Host names are letters, digits, '-', '.', '_' (IPv6 literals also ':',
// '[', ']', '%'), and never start with '-': they end up as arguments on an
// ssh command line. Whitespace separates fields; control bytes are refused.
Result<Hostfile> parseHostfile(std::string_view text, std::string_view source);

// The text of the hostfile at `path` (at most kMaxHostfileBytes). A FIFO, a
// device or a directory is refused at once (kInvalidInput), never read.
Result<std::string> readHostfileText(const std::string& path);
// readHostfileText + parseHostfile.
Result<Hostfile> loadHostfile(const std::string& path);

// How a short hostfile name becomes a cluster-DNS FQDN.
struct FqdnOptions {
  std::string ns;       // namespace, for `pod` and `pod.svc`
  std::string service;  // headless Service, for bare `pod`
  std::string cluster_domain = "cluster.local";
};

// The `.svc.<cluster-domain>` form of one host name:
//   pod.svc.ns.svc        -> pod.svc.ns.svc.cluster.local
//   pod.svc.ns            -> pod.svc.ns.svc.cluster.local
//   pod.svc               -> pod.svc.<ns>.svc.cluster.local      (needs ns)
//   pod                   -> pod.<service>.<ns>.svc.cluster.local (needs both)
// IP literals, names already ending in .svc.<cluster-domain>, names with a
// trailing dot and names of four or more labels not ending in .svc are kept.
Result<std::string> fqdnFor(std::string_view host, const FqdnOptions& options);

// The hostfile text with every host replaced by fqdnFor(host): slots, comments
// and blank lines kept, line endings normalised to LF.
Result<std::string> rewriteHostfileFqdn(std::string_view text, const Hostfile& parsed,
                                        const FqdnOptions& options, std::string_view source);

}  // namespace railkit::doctor
