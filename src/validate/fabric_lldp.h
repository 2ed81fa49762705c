#pragma once
// Rank 0's check of the Ethernet (RoCE) fabric after phase 1: the LLDP
// neighbours every node sent (node_lldp.h) become one fabric, as `railkit
// fabric --lldp` builds it from files, with each node named by its label
// and each port by the RDMA device behind it, and fabric's checks run over
// it (a cable on the wrong rail's leaf, a node missing a rail, ...). An
// error finding fails the run. It needs LLDP from at least two nodes: one
// node's cables show no rail that another node contradicts.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fabric/lldp.h"

namespace railkit::validate {

struct LldpFabricCheck {
  nlohmann::json section;             // the document's "fabric"; null when not analysed
  std::vector<std::string> failures;  // "fabric: [rail-miscabled] node3 mlx5_1: ..." per error finding
  std::vector<std::string> notes;     // the nodes without LLDP, and why
  std::string summary;                // one line for the progress output; empty when not analysed
};

// `reports` as parseNodeReport returned them (rank order), `labels` the
// nodes' names; `hca_spec` selects the data rails (NCCL_IB_HCA syntax; empty:
// every device heard on).
LldpFabricCheck checkLldpFabric(const std::vector<nlohmann::json>& reports,
                                const std::vector<std::string>& labels, const std::string& hca_spec);

// The rails in order: the RDMA devices heard on that `hca_spec` selects, in
// natural order (mlx5_2 before mlx5_10); where no neighbour knows its
// device, every interface heard on.
std::vector<std::string> lldpRails(const std::vector<fabric::LldpCapture>& captures,
                                   const std::string& hca_spec);

}  // namespace railkit::validate
