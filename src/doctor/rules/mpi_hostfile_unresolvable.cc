// mpi-hostfile-unresolvable: mpirun reaches every host of its hostfile by
// name (ssh or the operator's kubectl exec agent, then orted's TCP wire-up);
// a name that does not resolve is a launch that fails or hangs.
#include "doctor/rules/helpers.h"

namespace railkit::doctor {
namespace {

std::vector<Finding> check(const DoctorInput& in) {
  if (!in.hostfile) return {};
  std::vector<Finding> out;
  for (const auto& host : in.hostfile->hosts) {
    if (host.resolved) continue;
    out.push_back(makeFinding(
        kMpiHostfileUnresolvable, host.name,
        "hostfile host " + host.name + " does not resolve" +
            (host.detail.empty() ? "" : " (" + host.detail + ")"),
        {{in.hostfile->path, host.line,
          host.name + ": " + (host.detail.empty() ? "unresolvable" : host.detail)}},
        "start mpirun only after `railkit wait-dns --hostfile " + in.hostfile->path +
            " --timeout 300` succeeds; give the workers a headless Service (clusterIP: None) matching "
            "their pods' subdomain; if short names fail, use <pod>.<service>.<namespace>.svc.cluster.local "
            "(wait-dns --rewrite-fqdn)"));
  }
  return out;
}

}  // namespace

extern const Rule kMpiHostfileUnresolvable = {
    {"mpi-hostfile-unresolvable", Severity::kError,
     "A host of the MPI hostfile (--hostfile) does not resolve",
     R"(mpirun starts one daemon per hostfile line by name (ssh, or the MPI operator's kubectl-exec agent) and
the daemons then connect back over TCP. A name that does not resolve fails the launch with
'ssh: Could not resolve hostname' or 'ORTE was unable to reliably start one or more daemons'.
In Kubernetes the worker names (e.g. job-worker-0.job.ns.svc) exist in cluster DNS only when:
  - a headless Service selects the workers and each worker pod sets spec.hostname and
    spec.subdomain: <service> (the MPI operator does both; a StatefulSet needs serviceName);
  - the worker pods are running and ready (publishNotReadyAddresses: true on the Service
    publishes them before readiness);
  - the lookup goes through the pod network: cluster DNS is not reachable over the RDMA
    secondary network (net1), so keep MPI's control traffic on eth0
    (OMPI_MCA_btl_tcp_if_include=eth0, OMPI_MCA_oob_tcp_if_include=eth0).)",
     R"(Fix:
  railkit wait-dns --hostfile /etc/mpi/hostfile --timeout 300 &&
      mpirun --hostfile /etc/mpi/hostfile ...
  # clusters whose search path does not complete short names:
  railkit wait-dns --hostfile /etc/mpi/hostfile --timeout 300 --rewrite-fqdn --namespace NS \
      --output /tmp/hostfile && mpirun --hostfile /tmp/hostfile ...
  # the FQDN form: <pod>.<service>.<namespace>.svc.cluster.local
  apiVersion: v1
  kind: Service
  metadata: {name: job-worker}
  spec: {clusterIP: None, publishNotReadyAddresses: true, selector: {job: job, role: worker}}
Check by hand with `getent hosts <name>` from the launcher pod.)"},
    check};

}  // namespace railkit::doctor
