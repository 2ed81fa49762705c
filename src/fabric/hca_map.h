#pragma once
// A small mapping file for HCAs whose node description does not say
// "<host> <device>" (rdma-ndd not running, a firmware default such as
// "MT4129 ConnectX7   Mellanox Technologies"): one line per HCA with the
// description it should have had, keyed by the HCA as ibnetdiscover names it.
//
//   # key                 host               device
//   H-e09d730300858f00    b08-p1-dgx-08-c03  HCA-6
//   0xe09d730300858efc    b08-p1-dgx-08-c03  HCA-5
//
// The key is the CA's id ("H-<node GUID>"), its node GUID (with or without
// 0x), or, for ibsim's net files, the CA's name. Rails then follow from the
// device names as for every other HCA.

#include <map>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit::fabric {

struct HcaMapEntry {
  std::string host;
  std::string device;
  long line = 0;
};

struct HcaMap {
  std::string source;
  std::map<std::string, HcaMapEntry> entries;  // by normalised key (lower case, no "H-", no 0x)

  // The entry for a CA id, or null.
  const HcaMapEntry* find(const std::string& ca_id) const;
};

// Lower case, without a leading "H-" and "0x": the form keys are stored in.
std::string normaliseHcaKey(std::string_view key);

Result<HcaMap> parseHcaMap(std::string_view text, std::string source);
Result<HcaMap> readHcaMapFile(const std::string& path);

}  // namespace railkit::fabric
