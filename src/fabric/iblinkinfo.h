#pragma once
// The parser of `iblinkinfo` output (infiniband-diags): every port of every
// switch, cabled or not, with its logical and physical state. ibnetdiscover
// prints only the ports that have a link; iblinkinfo also shows the ports
// that are Down (Polling, Disabled), which is how a dead cable or a disabled
// port looks from the switch:
//
//   Switch: 0x0000000000200001 leaf-r1:
//              3    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       6    1[  ] "node001 mlx5_1" ( )
//              3    2[  ] ==(                Down/ Polling)==>             [  ] "" ( )
//
// CA blocks ("CA: node001 mlx5_1:") are read past: the switches' side is
// what the checks compare.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace railkit::fabric {

struct SwitchPortState {
  std::string guid;         // the switch's GUID, lower-case hex without 0x and leading zeros
  std::string description;  // as iblinkinfo prints it
  int port = 0;
  std::string state;  // "Active", "Down", "Init", "Armed"
  std::string phys;   // "LinkUp", "Polling", "Disabled", ...
  long line = 0;
};

struct LinkInfoCapture {
  std::string source;
  std::vector<SwitchPortState> ports;
};

// "0x0000000000200001", "S-0000000000200001" -> "200001".
std::string normaliseGuid(std::string_view text);

Result<LinkInfoCapture> parseIblinkinfo(std::string_view text, std::string source);
Result<LinkInfoCapture> readIblinkinfoFile(const std::string& path);

}  // namespace railkit::fabric
