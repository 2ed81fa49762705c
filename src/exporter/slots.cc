#include "exporter/slots.h"

namespace railkit::exporter {

bool evictsBefore(const SlotState& a, const SlotState& b) {
  if (a.last_progress != b.last_progress) return a.last_progress < b.last_progress;
  return a.serial < b.serial;
}

}  // namespace railkit::exporter
