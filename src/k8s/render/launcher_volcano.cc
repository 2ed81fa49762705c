// The Volcano Job launcher (batch.volcano.sh/v1alpha1): a master task (rank
// 0) and a worker task (ranks 1..N-1), gang-scheduled by the volcano
// scheduler. The job's plugins give each pod what railkit's env bootstrap
// reads, so the pods carry no rank env of their own (Volcano's job
// controller, pkg/controllers/job/plugins, docs/render.md "Launchers"):
//   svc      hostname JOB-TASK-INDEX, subdomain JOB, the headless Service JOB
//            (--publish-not-ready-addresses: a name resolves once its pod
//            has an address, as with the other launchers);
//   pytorch  MASTER_ADDR JOB-master-0.JOB, MASTER_PORT (--port), WORLD_SIZE
//            (master and worker replicas), RANK 0 for the master's pod and
//            INDEX + 1 for the worker task's pod INDEX.
#include "k8s/render/launch_scripts.h"
#include "k8s/render/parts.h"

namespace railkit::k8s::render {
namespace {

constexpr const char* kMasterTask = "master";
constexpr const char* kWorkerTask = "worker";

// The DNS name the svc plugin gives a task's pod: JOB-TASK-INDEX.JOB.
std::string volcanoHost(const Profile& profile, const std::string& task, const std::string& index) {
  return profile.name + "-" + task + "-" + index + "." + profile.name;
}

// Every pod runs the same script; RANK (from the pytorch plugin) picks its part.
std::string volcanoScript(const Profile& profile, const PodDecoration& decoration, const PodNetwork& net) {
  std::string master = volcanoHost(profile, kMasterTask, "0");
  if (profile.test.tool == "railkit" || profile.test.tool == "validate")
    return indexedBenchScript(profile, net);
  if (profile.test.tool == "perftest") return indexedPerftestScript(profile, net, master);
  std::vector<std::string> forward;
  for (const auto& item : ncclEnv(profile, decoration)) forward.push_back(item["name"].get<std::string>());
  // Two tasks, two name patterns: rank 0's host is the master task's pod,
  // rank i's the worker task's pod i-1 (RANK = INDEX + 1).
  RankHosts hosts;
  hosts.setup =
      "# Volcano names a task's pods JOB-TASK-INDEX: rank 0 is the master task's pod,\n"
      "# rank i the worker task's pod i-1.\n"
      "rank_host() { if [ \"$1\" = 0 ]; then echo " +
      master + "; else echo \"" + volcanoHost(profile, kWorkerTask, "$(($1 - 1))") + "\"; fi; }\n";
  hosts.host = "$(rank_host \"$i\")";
  hosts.master = master;
  return indexedMpiScript(profile, net, hosts, forward);
}

// One task: `replicas` pods whose main container is named after the task (as
// in Volcano's own pytorch example).
json volcanoTask(const Profile& profile, const PodDecoration& decoration, const std::string& name,
                 int replicas, const std::string& script) {
  json spec = workerPodSpec(profile, decoration, bash(script), json::array({tokenEnv(profile)}), name);
  if (needsSshKeys(profile)) mountSshKeys(profile, spec, name);
  spec["restartPolicy"] = "Never";
  return {{"name", name}, {"replicas", replicas}, {"template", podTemplate(decoration.annotations, spec)}};
}

}  // namespace

RenderedObject volcanoJob(const Profile& profile, const PodDecoration& decoration) {
  PodNetwork net = podNetwork(profile, decoration);
  std::string script = volcanoScript(profile, decoration, net);
  json master = volcanoTask(profile, decoration, kMasterTask, 1, script);
  // Rank 0's end is the job's: Volcano completes the Job and stops whatever
  // is left of the workers.
  master["policies"] = json::array({{{"event", "TaskCompleted"}, {"action", "CompleteJob"}}});
  json tasks = json::array({master});
  if (profile.nodes > 1)
    tasks.push_back(volcanoTask(profile, decoration, kWorkerTask, profile.nodes - 1, script));
  json plugins = {{"svc", {"--publish-not-ready-addresses"}},
                  {"pytorch",
                   {std::string("--master=") + kMasterTask, std::string("--worker=") + kWorkerTask,
                    std::string("--port=") + kMasterPort}}};
  // A failed or evicted pod ends the test, failed: a restart would run it
  // again and hide the failure.
  json policies = json::array({{{"event", "PodFailed"}, {"action", "TerminateJob"}},
                               {{"event", "PodEvicted"}, {"action", "TerminateJob"}}});
  json spec = {{"schedulerName", "volcano"},
               {"minAvailable", profile.nodes},
               {"plugins", plugins},
               {"policies", policies},
               {"tasks", tasks}};
  return {"volcano-job.yaml",
          "Volcano Job: gang-scheduled (minAvailable " + std::to_string(profile.nodes) +
              " pods or none); the svc plugin names the pods " + volcanoHost(profile, "TASK", "INDEX") +
              ", the pytorch plugin gives them RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT.",
          {{"apiVersion", "batch.volcano.sh/v1alpha1"},
           {"kind", "Job"},
           {"metadata", metadata(profile.name, profile.ns)},
           {"spec", spec}}};
}

}  // namespace railkit::k8s::render
