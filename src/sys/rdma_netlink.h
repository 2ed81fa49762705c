#pragma once
// RDMA devices and their port statistics through the kernel's RDMA netlink
// interface (NETLINK_RDMA, client RDMA_NL_NLDEV): what `rdma dev` and
// `rdma statistic show` print. Unlike sysfs, the answer belongs to the
// network namespace of the calling thread, which is how the exporter reads the
// devices a pod holds (ib_core netns_mode exclusive, as Spiderpool sets it).
//
// Parsing is a pure function over the bytes the kernel sent, so tests feed it
// canned replies and a fuzzer feeds it anything; the live query only owns the
// socket.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace railkit::sys {

// One device of an RDMA_NLDEV_CMD_GET reply.
struct RdmaNlDevice {
  uint32_t index = 0;      // RDMA_NLDEV_ATTR_DEV_INDEX
  std::string name;        // RDMA_NLDEV_ATTR_DEV_NAME ("mlx5_0")
  uint32_t last_port = 0;  // RDMA_NLDEV_ATTR_PORT_INDEX: the device's last port number
};

// The counters of one port from an RDMA_NLDEV_CMD_STAT_GET reply
// (RDMA_NLDEV_ATTR_STAT_HWCOUNTERS: name and value per entry, driver order).
struct RdmaNlPortStats {
  uint32_t device_index = 0;
  std::string device;
  uint32_t port = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;
};

// Everything recognised in a run of netlink messages. Messages of other
// types and attributes of other kinds are skipped.
struct RdmaNlReply {
  std::vector<RdmaNlDevice> devices;
  std::vector<RdmaNlPortStats> port_stats;
  bool done = false;  // an NLMSG_DONE ended a dump
  int error = 0;      // errno of an NLMSG_ERROR (0: none, or an acknowledgement)
};

// Parses concatenated netlink messages (one or more recv() buffers). A
// message or attribute whose length is too short or runs past its container
// is kInvalidInput naming the offset; nothing in the bytes can make it read
// outside `bytes`.
Result<RdmaNlReply> parseRdmaNetlink(std::span<const uint8_t> bytes);

// The request bytes: a dump of every device, and the default counters of one
// port (RDMA_NLDEV_CMD_STAT_GET with device and port, no statistic resource).
std::vector<uint8_t> rdmaDeviceDumpRequest(uint32_t seq);
std::vector<uint8_t> rdmaPortStatsRequest(uint32_t seq, uint32_t device_index, uint32_t port);

// The RDMA devices of the calling thread's network namespace and the counters
// of each of their ports (ports whose driver keeps no counters are left out).
// kUnavailable when the kernel has no RDMA netlink (ib_core not loaded:
// socket() fails with EPROTONOSUPPORT); kIo for other failures. Every receive
// waits at most `timeout_ms`.
struct RdmaNlStatistics {
  std::vector<RdmaNlDevice> devices;
  std::vector<RdmaNlPortStats> ports;
};
Result<RdmaNlStatistics> liveRdmaStatistics(int timeout_ms);

}  // namespace railkit::sys
