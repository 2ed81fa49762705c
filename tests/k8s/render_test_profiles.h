#pragma once
// Profiles the render tests start from: one place for the fields every
// `test: validate` case shares, each test file then setting what it is about.
#include <string>

#include "k8s/render/profile.h"
#include "k8s/render/render.h"

namespace railkit::k8s::render::testing {

// railkit validate over RoCE, 4 GPUs and three data NICs per node (host
// names, which never appear in the pods), a fixed job token.
inline Profile validateTestProfile(const std::string& mode, const std::string& launcher) {
  Profile profile;
  profile.name = "fabric-check";
  profile.image = "registry.example.com/nccl:1";
  profile.mode = mode;
  profile.launcher = launcher;
  profile.fabric = "roce";
  profile.gpus_per_node = 4;
  profile.data_interfaces = {"ens1f0", "ens2f0", "ens3f0"};
  profile.test.tool = "validate";
  profile.job_token = "fixed-job-token-for-tests-0123456789";
  return profile;
}

}  // namespace railkit::k8s::render::testing
