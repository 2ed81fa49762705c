// The pod runner's planner on a GKE TCPXO-shaped pod: multi-network
// interfaces, hostPath volumes and a native sidecar (podplan_test.cc covers
// the controllers).
#include <gtest/gtest.h>

#include "resolve.h"

namespace railkit::podrun {
namespace {

Result<Plan> plan(const std::string& yaml) {
  auto manifest = k8s::loadManifest(yaml, "test.yaml");
  if (!manifest) return tl::unexpected(manifest.error());
  // The plan points into the manifest only while planning.
  return planManifest(**manifest, PlanOptions{});
}

// GKE multi-networking names every interface; all but the default one are
// the pod's extra NICs. A native sidecar keeps its kind and its hostPath
// mounts, read-only where the mount says so.
TEST(PodPlan, GkeInterfacesHostPathsAndNativeSidecar) {
  auto p = plan(R"y(
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns}
spec:
  template:
    metadata:
      annotations:
        networking.gke.io/default-interface: eth0
        networking.gke.io/interfaces: '[{"interfaceName":"eth0","network":"default"},{"interfaceName":"eth1","network":"vpc1"},{"interfaceName":"eth2","network":"vpc2"}]'
    spec:
      initContainers:
        - name: daemon
          restartPolicy: Always
          command: [/fts/run]
          volumeMounts: [{name: sys, mountPath: /hostsysfs}]
      containers:
        - name: c
          command: [run]
          volumeMounts: [{name: lib, mountPath: /usr/local/nvidia, readOnly: true}]
      volumes:
        - {name: sys, hostPath: {path: /sys}}
        - {name: lib, hostPath: {path: /home/kubernetes/bin/nvidia}}
)y");
  ASSERT_TRUE(p) << p.error().message;
  const ResolvedPod& r = p->pods.at(0);
  ASSERT_EQ(r.netifs.size(), 3u);
  EXPECT_EQ(r.netifs[1].name, "eth1");
  EXPECT_TRUE(r.netifs[1].data);
  EXPECT_EQ(r.netifs[2].name, "eth2");
  ASSERT_EQ(r.containers.size(), 2u);
  EXPECT_EQ(r.containers[0].kind, "sidecar");
  ASSERT_EQ(r.containers[0].host_mounts.size(), 1u);
  EXPECT_EQ(r.containers[0].host_mounts[0].host_path, "/sys");
  EXPECT_EQ(r.containers[0].host_mounts[0].path, "/hostsysfs");
  EXPECT_FALSE(r.containers[0].host_mounts[0].read_only);
  ASSERT_EQ(r.containers[1].host_mounts.size(), 1u);
  EXPECT_EQ(r.containers[1].host_mounts[0].host_path, "/home/kubernetes/bin/nvidia");
  EXPECT_TRUE(r.containers[1].host_mounts[0].read_only);
}

// An interface list that is not JSON is the plan's error, not a pod without NICs.
TEST(PodPlan, GkeInterfacesNotJsonIsAnError) {
  auto p = plan(R"y(
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ns}
spec:
  template:
    metadata:
      annotations: {networking.gke.io/interfaces: 'eth1,eth2'}
    spec:
      containers: [{name: c, command: [run]}]
)y");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("networking.gke.io/interfaces"), std::string::npos) << p.error().message;
}

}  // namespace
}  // namespace railkit::podrun
