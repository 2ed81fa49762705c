// Job and JobSet, and the walk over a manifest's objects.
#include "controllers.h"

#include <string_view>

namespace railkit::podrun {
namespace {

using k8s::YamlNode;

constexpr const char* kCompletionIndex = "batch.kubernetes.io/job-completion-index";

Result<std::string> base64Decode(std::string_view text, const std::string& where) {
  std::string out;
  int bits = 0;
  unsigned value = 0;
  for (char c : text) {
    int digit = c >= 'A' && c <= 'Z'   ? c - 'A'
                : c >= 'a' && c <= 'z' ? c - 'a' + 26
                : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '+'             ? 62
                : c == '/'             ? 63
                                       : -1;
    if (c == '=' || c == '\n' || c == ' ') continue;
    if (digit < 0) return makeError(ErrorCode::kInvalidInput, where + ": data is not base64");
    value = (value << 6) | static_cast<unsigned>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xff));
    }
  }
  return out;
}

Result<DataObject> readDataObject(const k8s::Object& object) {
  DataObject data{object.kind, object.ns, object.name, {}};
  std::string where = object.ref();
  if (const YamlNode* entries = object.root->get("data"); entries != nullptr && entries->isMap()) {
    for (const auto& [key, value] : entries->entries) {
      if (object.kind == "ConfigMap") {
        data.data[key] = value.text();
        continue;
      }
      auto decoded = base64Decode(value.text(), where + " data." + key);
      if (!decoded) return tl::unexpected(decoded.error());
      data.data[key] = *decoded;
    }
  }
  if (const YamlNode* entries = object.root->get("stringData"); entries != nullptr && entries->isMap())
    for (const auto& [key, value] : entries->entries) data.data[key] = value.text();
  return data;
}

bool selects(const YamlNode* selector, const std::map<std::string, std::string>& labels) {
  if (selector == nullptr || !selector->isMap() || selector->entries.empty()) return false;
  for (const auto& [key, value] : selector->entries) {
    auto found = labels.find(key);
    if (found == labels.end() || found->second != value.text()) return false;
  }
  return true;
}

// A bare Job's pods resolve by hostname.subdomain only when a headless Service
// of that name in their namespace selects them (the Job controller makes none).
void publishByServices(const k8s::Manifest& manifest, Expansion& out) {
  for (PlannedPod& pod : out.pods) {
    if (pod.published || pod.subdomain.empty()) continue;
    for (const k8s::Object& object : manifest.objects) {
      if (object.kind != "Service" || object.name != pod.subdomain || object.ns != pod.ns) continue;
      const YamlNode* cluster_ip = object.root->at({"spec", "clusterIP"});
      if (cluster_ip == nullptr || cluster_ip->text() != "None") {
        out.notes.push_back("Service " + object.name + " is not headless (clusterIP: None): pod " + pod.name +
                            " gets no DNS name from it");
        continue;
      }
      pod.published = selects(object.root->at({"spec", "selector"}), pod.spec.labels);
    }
    if (!pod.published)
      out.notes.push_back("pod " + pod.name + " has subdomain " + pod.subdomain +
                          " but no headless Service of that name selects it: " + pod.hostname + "." +
                          pod.subdomain + " does not resolve");
  }
}

Status expandJob(const k8s::Object& object, Expansion& out) {
  const YamlNode* spec = object.root->get("spec");
  std::string where = object.ref();
  if (spec == nullptr || spec->get("template") == nullptr)
    return makeError(ErrorCode::kInvalidInput, where + ": no spec.template");
  JobShape job;
  job.name = object.name;
  job.ns = object.ns;
  job.controller = where;
  job.role = "worker";
  auto completions = intField(spec->get("completions"), 1, where + " spec.completions");
  if (!completions) return tl::unexpected(completions.error());
  job.completions = *completions;
  job.indexed = spec->get("completionMode") && spec->get("completionMode")->text() == "Indexed";
  auto pod = parsePodTemplate(*spec->get("template"), where + " spec.template");
  if (!pod) return tl::unexpected(pod.error());
  job.pod = std::move(*pod);
  stampJob(job, out);
  return {};
}

Status expandJobSet(const k8s::Object& object, Expansion& out) {
  const YamlNode* spec = object.root->get("spec");
  if (spec == nullptr) return makeError(ErrorCode::kInvalidInput, object.ref() + ": no spec");
  auto jobset = parseJobSetSpec(*spec, object.name, object.ns, object.ref());
  if (!jobset) return tl::unexpected(jobset.error());
  stampJobSet(*jobset, object.ref(), out);
  return {};
}

}  // namespace

void stampJob(const JobShape& job, Expansion& out) {
  for (long i = 0; i < job.completions; ++i) {
    PlannedPod pod;
    pod.name = job.name + "-" + std::to_string(i);
    pod.ns = job.ns;
    pod.controller = job.controller;
    pod.job = job.name;
    pod.role = job.role;
    pod.spec = job.pod;
    pod.spec.labels["job-name"] = job.name;
    pod.spec.labels["batch.kubernetes.io/job-name"] = job.name;
    for (const auto& [key, value] : job.extra_labels) {
      pod.spec.labels[key] = value;
      pod.spec.annotations[key] = value;
    }
    pod.hostname = pod.spec.hostname.empty() ? pod.name : pod.spec.hostname;
    if (job.indexed) {
      // The Job controller names the host JOB-INDEX and tells every container
      // its index (JOB_COMPLETION_INDEX, from the annotation).
      pod.completion_index = static_cast<int>(i);
      pod.spec.labels[kCompletionIndex] = std::to_string(i);
      pod.spec.annotations[kCompletionIndex] = std::to_string(i);
      if (pod.spec.hostname.empty()) pod.hostname = job.name + "-" + std::to_string(i);
      std::string path = std::string("metadata.annotations['") + kCompletionIndex + "']";
      for (Container& c : pod.spec.init_containers) upsertEnv(c.env, fieldEnv("JOB_COMPLETION_INDEX", path));
      for (Container& c : pod.spec.containers) upsertEnv(c.env, fieldEnv("JOB_COMPLETION_INDEX", path));
    }
    pod.subdomain = pod.spec.subdomain;
    out.pods.push_back(std::move(pod));
  }
}

Result<JobSetShape> parseJobSetSpec(const YamlNode& spec, const std::string& name, const std::string& ns,
                                    const std::string& where) {
  JobSetShape jobset;
  jobset.name = name;
  jobset.ns = ns;
  jobset.subdomain = name;
  if (const YamlNode* network = spec.get("network")) {
    if (const YamlNode* sub = network->get("subdomain"); sub != nullptr && !sub->text().empty())
      jobset.subdomain = sub->text();
    if (const YamlNode* dns = network->get("enableDNSHostnames"))
      jobset.dns_hostnames = dns->text() != "false";
  }
  if (const YamlNode* targets = spec.at({"successPolicy", "targetReplicatedJobs"});
      targets != nullptr && targets->isSeq())
    for (const YamlNode& target : targets->items) jobset.success_targets.push_back(target.text());
  const YamlNode* jobs = spec.get("replicatedJobs");
  if (jobs == nullptr || !jobs->isSeq())
    return makeError(ErrorCode::kInvalidInput, where + ": no spec.replicatedJobs");
  for (const YamlNode& item : jobs->items) {
    ReplicatedJob rjob;
    rjob.name = item.get("name") ? item.get("name")->text() : "";
    std::string here = where + " replicatedJobs[" + rjob.name + "]";
    auto replicas = intField(item.get("replicas"), 1, here + ".replicas");
    if (!replicas) return tl::unexpected(replicas.error());
    rjob.replicas = *replicas;
    const YamlNode* job_spec = item.at({"template", "spec"});
    if (job_spec == nullptr || job_spec->get("template") == nullptr)
      return makeError(ErrorCode::kInvalidInput, here + ": no template.spec.template");
    auto completions = intField(job_spec->get("completions"), 1, here + ".completions");
    if (!completions) return tl::unexpected(completions.error());
    rjob.completions = *completions;
    // JobSet's webhook defaults every replicated Job to Indexed.
    rjob.indexed =
        job_spec->get("completionMode") == nullptr || job_spec->get("completionMode")->text() == "Indexed";
    if (const YamlNode* labels = item.at({"template", "metadata", "labels"});
        labels != nullptr && labels->isMap())
      for (const auto& [key, value] : labels->entries) rjob.job_labels[key] = value.text();
    auto pod = parsePodTemplate(*job_spec->get("template"), here);
    if (!pod) return tl::unexpected(pod.error());
    rjob.pod = std::move(*pod);
    jobset.jobs.push_back(std::move(rjob));
  }
  return jobset;
}

void stampJobSet(const JobSetShape& jobset, const std::string& controller, Expansion& out) {
  long global = 0;
  for (const ReplicatedJob& rjob : jobset.jobs) {
    for (long j = 0; j < rjob.replicas; ++j) {
      JobShape job;
      job.name = jobset.name + "-" + rjob.name + "-" + std::to_string(j);
      job.ns = jobset.ns;
      job.completions = rjob.completions;
      job.indexed = rjob.indexed;
      job.controller = controller;
      job.role = rjob.name;
      job.pod = rjob.pod;
      job.extra_labels = {{"jobset.sigs.k8s.io/jobset-name", jobset.name},
                          {"jobset.sigs.k8s.io/replicatedjob-name", rjob.name},
                          {"jobset.sigs.k8s.io/replicatedjob-replicas", std::to_string(rjob.replicas)},
                          {"jobset.sigs.k8s.io/job-index", std::to_string(j)},
                          {"jobset.sigs.k8s.io/job-global-index", std::to_string(global++)}};
      size_t first = out.pods.size();
      stampJob(job, out);
      // JobSet's pod webhook: hostname JOB-INDEX under the JobSet's subdomain,
      // published by the headless Service JobSet creates.
      bool target = jobset.success_targets.empty();
      for (const std::string& name : jobset.success_targets) target = target || name == rjob.name;
      for (size_t p = first; p < out.pods.size(); ++p) {
        if (!target) out.pods[p].end = PlannedPod::End::kDeletedWhenDone;
        if (!jobset.dns_hostnames) continue;
        out.pods[p].subdomain = jobset.subdomain;
        out.pods[p].published = true;
      }
    }
  }
}

Result<Expansion> expandControllers(const k8s::Manifest& manifest, const ControllerOptions& options) {
  Expansion out;
  for (const k8s::Object& object : manifest.objects) {
    if (object.kind == "Secret" || object.kind == "ConfigMap") {
      auto data = readDataObject(object);
      if (!data) return tl::unexpected(data.error());
      out.data.push_back(std::move(*data));
    }
  }
  for (const k8s::Object& object : manifest.objects) {
    Status status;
    bool volcano = object.api_version.rfind("batch.volcano.sh/", 0) == 0;
    if (object.kind == "Job" && volcano)
      status = expandVolcanoJob(object, out);
    else if (object.kind == "Job")
      status = expandJob(object, out);
    else if (object.kind == "JobSet")
      status = expandJobSet(object, out);
    else if (object.kind == "MPIJob")
      status = expandMpiJob(object, options, out);
    else if (object.kind == "TrainJob")
      status = expandTrainJob(object, manifest, options, out);
    else if (object.kind == "Pod" || object.kind == "Deployment" || object.kind == "StatefulSet")
      return makeError(ErrorCode::kInvalidInput,
                       object.ref() + ": the pod runner does not simulate this kind");
    if (!status) return tl::unexpected(status.error());
  }
  if (out.pods.empty())
    return makeError(ErrorCode::kInvalidInput,
                     manifest.file + ": no Job, JobSet, TrainJob, MPIJob or Volcano Job");
  publishByServices(manifest, out);
  if (out.report_pod.empty()) {
    for (const PlannedPod& pod : out.pods)
      if (pod.completion_index == 0) {
        out.report_pod = pod.name;
        break;
      }
    if (out.report_pod.empty()) out.report_pod = out.pods.front().name;
  }
  return out;
}

}  // namespace railkit::podrun
