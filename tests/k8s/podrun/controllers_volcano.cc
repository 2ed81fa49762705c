// Volcano's job controller (batch.volcano.sh/v1alpha1 Job): the pods of each
// task and what the job plugins add to them. Follows volcano-sh/volcano:
// pkg/controllers/job/job_controller_util.go (createJobPod: names, labels),
// pkg/webhooks/admission/jobs/mutate/mutate_job.go (the svc plugin is added
// for pytorch, mpi and tensorflow), pkg/controllers/job/plugins/svc/svc.go,
// distributed-framework/pytorch/pytorch.go and env/env.go.
#include <algorithm>
#include <cctype>

#include "controllers.h"

namespace railkit::podrun {
namespace {

using k8s::YamlNode;

using Plugins = std::map<std::string, std::vector<std::string>>;

// A Go flag set's view of a plugin's arguments: `--name=value`, `-name=value`,
// `--name value`, or a bare `--name` (a bool). Parsing stops at the first
// argument that is not a flag, as flag.Parse does.
std::map<std::string, std::string> pluginFlags(const std::vector<std::string>& args) {
  std::map<std::string, std::string> flags;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') break;
    arg.erase(0, arg[1] == '-' ? 2 : 1);
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      flags[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else if (i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') {
      flags[arg] = args[++i];
    } else {
      flags[arg] = "true";
    }
  }
  return flags;
}

std::string flagOr(const std::map<std::string, std::string>& flags, const std::string& name,
                   const std::string& fallback) {
  auto found = flags.find(name);
  return found == flags.end() ? fallback : found->second;
}

// The svc plugin's env names: VC_<TASK>_HOSTS, the task name upper-cased
// with '-' as '_'.
std::string taskEnvKey(const std::string& task) {
  std::string key = task;
  std::replace(key.begin(), key.end(), '-', '_');
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::toupper(c); });
  return key;
}

struct Task {
  std::string name;
  long replicas = 0;
  PodTemplate pod;
};

Result<std::vector<Task>> readTasks(const YamlNode& spec, const std::string& where) {
  const YamlNode* tasks = spec.get("tasks");
  if (tasks == nullptr || !tasks->isSeq() || tasks->items.empty())
    return makeError(ErrorCode::kInvalidInput, where + ": no spec.tasks");
  std::vector<Task> out;
  for (const YamlNode& item : tasks->items) {
    Task task;
    task.name = item.get("name") ? item.get("name")->text() : "";
    std::string here = where + " tasks[" + task.name + "]";
    if (task.name.empty()) return makeError(ErrorCode::kInvalidInput, here + ": a task needs a name");
    auto replicas = intField(item.get("replicas"), 0, here + ".replicas");
    if (!replicas) return tl::unexpected(replicas.error());
    task.replicas = *replicas;
    if (item.get("template") == nullptr) return makeError(ErrorCode::kInvalidInput, here + ": no template");
    auto pod = parsePodTemplate(*item.get("template"), here + ".template");
    if (!pod) return tl::unexpected(pod.error());
    task.pod = std::move(*pod);
    out.push_back(std::move(task));
  }
  return out;
}

Result<Plugins> readPlugins(const YamlNode& spec, const std::string& where, Expansion& out) {
  Plugins plugins;
  if (const YamlNode* node = spec.get("plugins"); node != nullptr && node->isMap())
    for (const auto& [name, args] : node->entries) {
      std::vector<std::string>& list = plugins[name];
      if (args.isSeq())
        for (const YamlNode& arg : args.items) list.push_back(arg.text());
    }
  for (const auto& [name, args] : plugins)
    if (name != "svc" && name != "pytorch" && name != "env")
      return makeError(
          ErrorCode::kInvalidInput,
          where + ": the pod runner simulates Volcano's svc, pytorch and env plugins, not '" + name + "'");
  // mutate_job.go: the distributed-framework plugins need svc, so the
  // webhook adds it.
  if (plugins.count("pytorch") != 0 && plugins.count("svc") == 0) {
    plugins["svc"] = {};
    out.notes.push_back(where + ": the pytorch plugin without svc: Volcano's webhook adds the svc plugin");
  }
  return plugins;
}

// svc: every pod's hostname and subdomain, the hosts ConfigMap mounted at
// /etc/volcano and (unless --inject-hosts-env=false) VC_<TASK>_HOSTS and
// VC_<TASK>_NUM from it, in every container.
void applySvc(const std::string& job, const std::vector<std::string>& args, const std::vector<Task>& tasks,
              PlannedPod& pod) {
  auto flags = pluginFlags(args);
  std::string config_map = job + "-svc";
  if (pod.hostname.empty()) pod.hostname = pod.name;
  if (pod.subdomain.empty()) pod.subdomain = job;
  // The headless Service the plugin makes is named after the job and
  // selects the job's pods.
  pod.published = pod.subdomain == job;
  std::vector<EnvVar> host_env;
  if (flagOr(flags, "inject-hosts-env", "true") == "true")
    for (const Task& task : tasks)
      for (const char* format : {"VC_%_HOSTS", "VC_%_NUM"}) {
        std::string name = format;
        name.replace(name.find('%'), 1, taskEnvKey(task.name));
        EnvVar var;
        var.name = name;
        var.from = EnvVar::From::kConfigMap;
        var.ref_name = config_map;
        var.ref_key = name;
        host_env.push_back(var);
      }
  Volume volume;
  volume.name = config_map;
  volume.kind = Volume::Kind::kConfigMap;
  volume.source = config_map;
  pod.spec.volumes.push_back(volume);
  for (auto* list : {&pod.spec.containers, &pod.spec.init_containers})
    for (Container& c : *list) {
      c.env.insert(c.env.end(), host_env.begin(), host_env.end());
      c.mounts.push_back({config_map, "/etc/volcano", ""});
    }
}

// The ConfigMap JOB-svc: per task, TASK.host (one name a line),
// VC_TASK_HOSTS (comma-separated) and VC_TASK_NUM.
DataObject svcConfigMap(const std::string& job, const std::string& ns, const std::vector<Task>& tasks) {
  DataObject data{"ConfigMap", ns, job + "-svc", {}};
  for (const Task& task : tasks) {
    std::string lines, commas;
    long count = 0;
    for (long i = 0; i < task.replicas; ++i) {
      std::string host =
          task.pod.hostname.empty() ? job + "-" + task.name + "-" + std::to_string(i) : task.pod.hostname;
      host += "." + (task.pod.subdomain.empty() ? job : task.pod.subdomain);
      lines += (count == 0 ? "" : "\n") + host;
      commas += (count == 0 ? "" : ",") + host;
      ++count;
      if (!task.pod.hostname.empty()) break;  // one fixed hostname: one entry
    }
    std::string key = task.name;
    std::replace(key.begin(), key.end(), '-', '_');
    data.data[key + ".host"] = lines;
    data.data["VC_" + taskEnvKey(task.name) + "_HOSTS"] = commas;
    data.data["VC_" + taskEnvKey(task.name) + "_NUM"] = std::to_string(count);
  }
  return data;
}

// pytorch: MASTER_ADDR (the master task's pod 0, or its own hostname and
// subdomain), MASTER_PORT, WORLD_SIZE (master and worker replicas) and RANK
// (0 for the master task, INDEX + 1 for the worker task) in every container
// (not the init containers).
void applyPytorch(const std::string& job, const std::vector<std::string>& args,
                  const std::vector<Task>& tasks, const std::string& task_name, long index, PlannedPod& pod,
                  Expansion& out) {
  auto flags = pluginFlags(args);
  std::string master = flagOr(flags, "master", "master");
  std::string worker = flagOr(flags, "worker", "worker");
  std::string port = flagOr(flags, "port", "23456");
  const Task* master_task = nullptr;
  long world = 0;
  for (const Task& task : tasks) {
    if (task.name == master) master_task = &task;
    if (task.name == master || task.name == worker) world += task.replicas;
  }
  if (master_task == nullptr) {
    if (index == 0 && task_name == tasks.front().name)
      out.notes.push_back("Job/" + job + ": the pytorch plugin's master task '" + master +
                          "' is not in the job: no pod gets MASTER_ADDR, RANK or WORLD_SIZE");
    return;
  }
  std::string host =
      master_task->pod.hostname.empty() ? job + "-" + master + "-0" : master_task->pod.hostname;
  std::string addr = host + "." + (master_task->pod.subdomain.empty() ? job : master_task->pod.subdomain);
  // --wait-master-enabled: the worker pods first wait, in an init container
  // of their own, until the master's port answers (or the timeout ends them).
  if (task_name == worker && flagOr(flags, "wait-master-enabled", "false") == "true") {
    Container wait;
    wait.name = "wait-for-master";
    wait.image = flagOr(flags, "wait-master-image", "busybox:1.36.1");
    std::string limit = flagOr(flags, "wait-master-timeout", "300");
    wait.command = {"sh", "-c",
                    "start=$(date +%s)\nuntil nc -z " + addr + " " + port +
                        " 2>/dev/null; do\n  [ $(($(date +%s) - start)) -lt " + limit +
                        " ] || exit 1\n  sleep 2\ndone\n"};
    pod.spec.init_containers.push_back(wait);
  }
  for (Container& c : pod.spec.containers) {
    c.env.push_back(literalEnv("MASTER_ADDR", addr));
    c.env.push_back(literalEnv("MASTER_PORT", port));
    c.env.push_back(literalEnv("WORLD_SIZE", std::to_string(world)));
    if (task_name == worker) c.env.push_back(literalEnv("RANK", std::to_string(index + 1)));
    if (task_name == master) c.env.push_back(literalEnv("RANK", "0"));
  }
}

}  // namespace

Status expandVolcanoJob(const k8s::Object& object, Expansion& out) {
  const YamlNode* spec = object.root->get("spec");
  std::string where = object.ref();
  if (spec == nullptr) return makeError(ErrorCode::kInvalidInput, where + ": no spec");
  auto plugins = readPlugins(*spec, where, out);
  if (!plugins) return tl::unexpected(plugins.error());
  auto tasks = readTasks(*spec, where);
  if (!tasks) return tl::unexpected(tasks.error());
  const std::string& job = object.name;
  std::string queue = spec->get("queue") ? spec->get("queue")->text() : "default";
  if (plugins->count("svc") != 0) out.data.push_back(svcConfigMap(job, object.ns, *tasks));
  for (const Task& task : *tasks) {
    for (long i = 0; i < task.replicas; ++i) {
      PlannedPod pod;
      pod.name = job + "-" + task.name + "-" + std::to_string(i);
      pod.ns = object.ns;
      pod.controller = where;
      pod.job = job;
      pod.role = task.name;
      pod.spec = task.pod;
      pod.hostname = task.pod.hostname;
      pod.subdomain = task.pod.subdomain;
      // Every pod must end by itself. A TaskCompleted -> CompleteJob policy
      // would have Volcano stop the pods still running once that task is
      // done; the runner does not, so a pod that would only end that way
      // fails the run, and a pass here is one in the cluster too.
      for (auto& [key, value] :
           std::map<std::string, std::string>{{"volcano.sh/job-name", job},
                                              {"volcano.sh/job-namespace", object.ns},
                                              {"volcano.sh/queue-name", queue},
                                              {"volcano.sh/task-spec", task.name},
                                              {"volcano.sh/task-index", std::to_string(i)}})
        pod.spec.labels[key] = value;
      pod.spec.annotations["volcano.sh/task-spec"] = task.name;
      pod.spec.annotations["volcano.sh/task-index"] = std::to_string(i);
      if (auto svc = plugins->find("svc"); svc != plugins->end()) applySvc(job, svc->second, *tasks, pod);
      if (auto torch = plugins->find("pytorch"); torch != plugins->end())
        applyPytorch(job, torch->second, *tasks, task.name, i, pod, out);
      if (plugins->count("env") != 0)
        for (auto* list : {&pod.spec.containers, &pod.spec.init_containers})
          for (Container& c : *list) {
            c.env.push_back(literalEnv("VK_TASK_INDEX", std::to_string(i)));
            c.env.push_back(literalEnv("VC_TASK_INDEX", std::to_string(i)));
          }
      if (pod.hostname.empty()) pod.hostname = pod.name;
      out.pods.push_back(std::move(pod));
    }
  }
  // Rank 0's table comes from the pytorch plugin's master.
  if (auto torch = plugins->find("pytorch"); torch != plugins->end() && out.report_pod.empty()) {
    std::string master = flagOr(pluginFlags(torch->second), "master", "master");
    for (const Task& task : *tasks)
      if (task.name == master && task.replicas > 0) out.report_pod = job + "-" + master + "-0";
  }
  return {};
}

}  // namespace railkit::podrun
