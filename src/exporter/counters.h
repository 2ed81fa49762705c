#pragma once
// Port counters of one RDMA port, read from sysfs through a FileRoot.
//
// The kernel shows two directories per port:
//   ports/N/counters/     the IB PortCounters (symbol_error, link_downed,
//                         port_rcv_errors, port_xmit_wait, port_xmit_data,
//                         port_rcv_data, ...). Since Linux 4.6 port_xmit_data
//                         and port_rcv_data here are the 64-bit extended
//                         counters when the device has them.
//   ports/N/counters_ext/ older kernels only: port_xmit_data_64 and
//                         port_rcv_data_64, preferred when present.
//   ports/N/hw_counters/  driver counters (mlx5: np_cnp_sent, rp_cnp_handled,
//                         out_of_sequence, ...), every file one number, plus
//                         `lifespan`, which is a setting and not a counter.
// port_xmit_data and port_rcv_data count 4-octet words (IBTA PortCounters);
// the *_bytes fields below are already multiplied by 4.
//
// Each file is small and read whole with a cap. A file that is missing,
// unreadable or not a number is skipped and counted in read_errors: a
// counter that cannot be read is a gap in the metrics, never a failure.
// A port without a counters/ directory (a virtual device, a snapshot taken
// without counters) simply has none and counts no error.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/file_root.h"

namespace railkit::exporter {

struct PortCounters {
  std::optional<uint64_t> transmitted_words;  // port_xmit_data (4-octet words)
  std::optional<uint64_t> received_words;     // port_rcv_data
  std::optional<uint64_t> symbol_errors;      // symbol_error
  std::optional<uint64_t> link_downed;        // link_downed
  std::optional<uint64_t> receive_errors;     // port_rcv_errors
  std::optional<uint64_t> transmit_wait;      // port_xmit_wait
  std::map<std::string, uint64_t> hw;         // hw_counters/<name>, sorted by name
  uint64_t read_errors = 0;                   // files skipped in this read
};

// A counter file's text ("12345\n") as a number; nullopt for anything else
// (empty, negative, trailing garbage, out of range).
std::optional<uint64_t> parseCounterValue(std::string_view text);

// Reads the counters of `device` port `port` under /sys/class/infiniband.
PortCounters readPortCounters(const FileRoot& root, const std::string& device, int port);

}  // namespace railkit::exporter
