#include "exporter/families.h"

namespace railkit::exporter {

MetricFamily counterFamily(const IbPortCounter& counter) {
  return {counter.metric, "counter", "device,port", counter.help};
}

std::vector<MetricFamily> metricFamilies() {
  std::vector<MetricFamily> out = {kRdmaPortInfo, kRdmaPortUp, kRdmaPortState, kRdmaPortPhysicalState,
                                   kRdmaPortRate};
  for (const auto& c : ibPortCounters()) out.push_back(counterFamily(c));
  for (const MetricFamily& f :
       {kRdmaHwEvents, kNetdevPfcPause, kDoctorFinding, kDoctorFindings, kGpuNicDistance, kPodRdmaDevices,
        kPodRdmaHwEvents, kExporterPodsSupported, kExporterPodNetworkNamespaces, kExporterPodNetnsErrors,
        kExporterScrapeDuration, kExporterReadErrors})
    out.push_back(f);
  return out;
}

}  // namespace railkit::exporter
