#pragma once
// What `railkit fabric` reports: the fabric's shape (switches, leaves, hosts,
// rails), the rails-by-leaves picture and the findings of every check, as one
// struct that renders both the human view and the JSON document
// (railkit.fabric/v1, docs/schemas/railkit.fabric.v1.json).

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/finding.h"
#include "fabric/hca_map.h"
#include "fabric/iblinkinfo.h"
#include "fabric/perfquery.h"
#include "fabric/sminfo.h"
#include "fabric/tiers.h"
#include "fabric/topology.h"

namespace railkit::fabric {

// One rail's row of the picture: the leaves its HCAs are on.
struct RailCell {
  std::string leaf;  // switchName
  int hcas = 0;
  bool stray = false;  // a few HCAs of this rail on another rail's leaf
};
struct RailRow {
  int rail = 0;
  std::string device;  // "mlx5_3"
  std::vector<RailCell> leaves;
};

// One group of a tier (tiers.h), by name.
struct TierGroupRow {
  std::string name;
  std::vector<std::string> switches;  // switchName of each
  int hosts = 0;
};
struct TierRow {
  std::string name;  // "block", "spine", ...
  std::vector<TierGroupRow> groups;
};

struct FabricReport {
  std::string source;
  int switches = 0, leaves = 0, upper = 0;
  int hosts = 0, hca_ports = 0, unnamed = 0;
  int rails = 0;
  std::vector<RailRow> picture;
  FabricTiers tiers;                 // what --topology-out writes for the schedulers
  std::vector<TierRow> tier_rows;    // the same, by name
  std::vector<std::string> masters;  // "0x200000 (lid 1)": the master SMs sminfo named
  std::vector<Finding> findings;
  int errors = 0, warnings = 0, infos = 0;
};

// `counters`: perfquery captures, none, one, or an earlier and a later read.
// `map`: the --hca-map names, or null; `links`: iblinkinfo's port states, or null;
// `rail_names`: the rails by device in order (LLDP's interfaces), or null.
FabricReport analyseFabric(const Fabric& fabric, const std::vector<SmCapture>& sm = {},
                           const std::vector<CounterCapture>& counters = {}, const HcaMap* map = nullptr,
                           const LinkInfoCapture* links = nullptr,
                           const std::vector<std::string>* rail_names = nullptr);

nlohmann::json fabricDocument(const FabricReport& report);
std::string renderFabricText(const FabricReport& report);

}  // namespace railkit::fabric
