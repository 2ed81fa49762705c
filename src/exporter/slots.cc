#include "exporter/slots.h"

namespace railkit::exporter {

bool evictsBefore(const SlotState& a, const SlotState& b) {
  // A writer holds a request it accepted and a page on its way; a waiting
  // connection has been given nothing yet, or has had its answer already.
  bool a_writes = a.phase == Phase::kWriting;
  bool b_writes = b.phase == Phase::kWriting;
  if (a_writes != b_writes) return b_writes;
  return a.since < b.since;
}

}  // namespace railkit::exporter
