#pragma once
// What a DRA claim gives a pod, decided from the claim itself and not from
// the fact that the pod has one: an IMEX channel of a ComputeDomain is no
// NIC, a GPU request is no RDMA device. Each request of a
// ResourceClaimTemplate or ResourceClaim is placed by its deviceClassName
// (a DeviceClass of the input, whose CEL selectors name the driver, or a
// class installed by a known driver: dranet, GKE managed DRANET, NVIDIA's
// GPU and ComputeDomain classes, EFA) and by its own selectors; the opaque
// dra.net device config names the interface a NIC gets in the pod.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "k8s/manifest.h"

namespace railkit::k8s {

struct DraDevices {
  bool nic = false;   // a network interface moved into the pod
  bool rdma = false;  // an RDMA device (RDMA NIC, EFA)
  // A NIC whose class and selectors do not say whether it is RDMA (a
  // dra.net NIC without its rdma attribute): RDMA when GPUs use it.
  bool nic_maybe_rdma = false;
  long gpus = 0;      // GPUs requested
  bool imex = false;  // a ComputeDomain IMEX channel or daemon
  // Device classes lint cannot place: counted as neither NIC nor RDMA.
  std::vector<std::string> unknown_classes;
  // Names the claim's NICs get in the pod, where the claim says them
  // (dra.net config `interface.name`, or a selector pinning `ifName`).
  std::vector<std::string> interfaces;
  bool interfaces_known = true;  // false when a NIC's name in the pod is not said

  void merge(const DraDevices& other);
};

// The claims an input declares, by name.
struct DraCatalog {
  std::map<std::string, DraDevices> templates;  // ResourceClaimTemplate (and ComputeDomain channels)
  std::map<std::string, DraDevices> claims;     // ResourceClaim
};

DraCatalog buildDraCatalog(const std::vector<std::unique_ptr<Manifest>>& manifests);

// The classes lint knows without a DeviceClass in the input, for messages.
std::string knownDeviceClassesText();

}  // namespace railkit::k8s
