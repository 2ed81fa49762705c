#pragma once
// Port counters and state numbers of one RDMA port, read from sysfs through a
// FileRoot.
//
// The kernel shows two directories per port:
//   ports/N/counters/     the IB PortCounters (symbol_error, link_downed,
//                         port_xmit_discards, port_xmit_packets, ...), the
//                         files kIbPortCounters names. Since Linux 4.6
//                         port_xmit_data, port_rcv_data and the packet
//                         counters here are the 64-bit extended counters
//                         when the device has them; unicast_* and
//                         multicast_* exist only on devices with the
//                         extended PortCounters (mlx5, not mlx4 or hfi1).
//   ports/N/counters_ext/ older kernels only: the 64-bit copies
//                         (port_xmit_data_64, ...), preferred when present.
//   ports/N/hw_counters/  driver counters (mlx5: np_cnp_sent, rp_cnp_handled,
//                         out_of_sequence, ...), every file one number, plus
//                         `lifespan`, which is a setting and not a counter.
// port_xmit_data and port_rcv_data count 4-octet words (IBTA PortCounters).
//
// What a directory lists is what the device has: a counter it does not list
// has no value and is no error. A listed file that cannot be read or is not
// a number is skipped and counted in read_errors: a counter that cannot be
// read is a gap in the metrics, never a failure.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/file_root.h"

namespace railkit::exporter {

// One file of counters/ and the metric it becomes; kIbPortCounters is the
// one list of them (metrics.cc renders it, the tests and docs name the
// metrics).
struct IbPortCounter {
  const char* file;      // counters/<file>
  const char* ext_file;  // counters_ext/<ext_file>, the 64-bit copy of older kernels; nullptr if none
  const char* metric;    // railkit_rdma_port_..._total
  const char* help;
  bool words;  // counts 4-octet words: the metric is bytes (4 x the file)
};

std::span<const IbPortCounter> ibPortCounters();

struct PortCounters {
  std::map<std::string, uint64_t> ib;  // by IbPortCounter::file (from counters/ or counters_ext/)
  std::map<std::string, uint64_t> hw;  // hw_counters/<name>, sorted by name
  std::optional<uint64_t> state;       // the number of `state` ("4: ACTIVE" -> 4)
  std::optional<uint64_t> phys_state;  // the number of `phys_state` ("5: LinkUp" -> 5)
  uint64_t read_errors = 0;            // listed counter files skipped in this read
};

// A counter file's text ("12345\n") as a number; nullopt for anything else
// (empty, negative, trailing garbage, out of range).
std::optional<uint64_t> parseCounterValue(std::string_view text);

// The number before the colon of a `state` or `phys_state` file ("4: ACTIVE"
// -> 4, "5: LinkUp" -> 5); nullopt when there is none.
std::optional<uint64_t> parseStateNumber(std::string_view text);

// Reads the counters and state numbers of `device` port `port` under
// /sys/class/infiniband.
PortCounters readPortCounters(const FileRoot& root, const std::string& device, int port);

}  // namespace railkit::exporter
