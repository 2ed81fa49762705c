#pragma once
// The controllers' part of running a manifest: which pods exist, with which
// names, hostnames, labels, env and volumes, as the Job controller (Indexed
// completion), JobSet, Kubeflow Trainer v2 (TrainJob + TrainingRuntime: a JobSet
// stamped from the runtime) and the MPI Operator v2beta1 (launcher + workers,
// hostfile ConfigMap, SSH Secret) would create them. Each simulation follows
// the upstream controller's source (and Volcano's job controller with its svc
// and pytorch plugins); what a controller makes that the manifest
// does not hold (the MPI hostfile, the SSH key Secret) becomes a DataObject.

#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "k8s/manifest.h"
#include "pod_model.h"

namespace railkit::podrun {

struct PlannedPod {
  std::string name;
  std::string ns;
  std::string hostname;
  std::string subdomain;
  std::string controller;  // "MPIJob/rk", "Job/rk" (batch or Volcano), "JobSet/rk", "TrainJob/rk"
  std::string job;         // the batch Job it belongs to ("rk-launcher", "rk-workers-0")
  int completion_index = -1;
  std::string role;  // "launcher", "worker", the replicated job's or Volcano task's name
  // How the pod ends: by itself (a Job's pod); deleted by its controller once
  // the pods that end by themselves have ended (an MPIJob's workers with
  // cleanPodPolicy Running or All; a JobSet's jobs outside its
  // successPolicy.targetReplicatedJobs); or never (an MPIJob's workers with
  // cleanPodPolicy None: sshd keeps running).
  enum class End { kExits, kDeletedWhenDone, kOutlivesLauncher };
  End end = End::kExits;
  // A headless Service publishes hostname.subdomain (made by the controller,
  // or a Service in the manifest selecting the pod).
  bool published = false;
  PodTemplate spec;
};

// A Secret or ConfigMap: from the manifest, or made by a controller.
struct DataObject {
  std::string kind;  // "Secret" | "ConfigMap"
  std::string ns;
  std::string name;
  std::map<std::string, std::string> data;  // decoded
};

struct Expansion {
  std::vector<PlannedPod> pods;
  std::vector<DataObject> data;
  std::string report_pod;          // the pod whose main container prints rank 0's table
  std::vector<std::string> notes;  // what the platform would do differently from what was meant
};

struct ControllerOptions {
  // The key pair the operators' SSH Secrets hold (made by the test).
  std::string ssh_private_key = "(ssh private key)\n";
  std::string ssh_public_key = "(ssh public key)\n";
  std::string cluster_domain = "cluster.local";
};

Result<Expansion> expandControllers(const k8s::Manifest& manifest, const ControllerOptions& options);

// Internal to the controller simulations: one batch Job's pods.
struct JobShape {
  std::string name;
  std::string ns;
  long completions = 1;
  bool indexed = false;
  std::string controller;
  std::string role;
  PodTemplate pod;
  std::map<std::string, std::string> extra_labels;  // added to labels and annotations
};
void stampJob(const JobShape& job, Expansion& out);

// A JobSet spec read into a form Trainer can amend before it is stamped.
struct ReplicatedJob {
  std::string name;
  long replicas = 1;
  long completions = 1;
  bool indexed = false;
  std::map<std::string, std::string> job_labels;  // replicatedJobs[].template.metadata.labels
  PodTemplate pod;
};
struct JobSetShape {
  std::string name;
  std::string ns;
  std::string subdomain;
  bool dns_hostnames = true;
  // successPolicy.targetReplicatedJobs: once they complete, the JobSet is
  // done and JobSet deletes the other Jobs still active. Empty: all.
  std::vector<std::string> success_targets;
  std::vector<ReplicatedJob> jobs;
};
Result<JobSetShape> parseJobSetSpec(const k8s::YamlNode& spec, const std::string& name, const std::string& ns,
                                    const std::string& where);
void stampJobSet(const JobSetShape& jobset, const std::string& controller, Expansion& out);

Status expandMpiJob(const k8s::Object& object, const ControllerOptions& options, Expansion& out);
// A Volcano Job (batch.volcano.sh): its tasks' pods and what the svc,
// pytorch and env plugins add; any other plugin is an error.
Status expandVolcanoJob(const k8s::Object& object, Expansion& out);
Status expandTrainJob(const k8s::Object& object, const k8s::Manifest& manifest,
                      const ControllerOptions& options, Expansion& out);

}  // namespace railkit::podrun
