#pragma once
// A fresh SSH key pair for the pods of one rendered job: ECDSA P-256, the
// private key in the PEM form OpenSSH reads (as `ssh-keygen -m PEM` writes
// it), the public key as one authorized_keys line. The MPI Operator and
// Kubeflow Trainer make such a pair per job for their launchers; render does
// the same for Indexed Jobs and JobSets, which have no operator to do it.
#include <string>

#include "core/result.h"

namespace railkit::k8s::render {

struct SshKeyPair {
  std::string private_pem;      // -----BEGIN EC PRIVATE KEY----- ...
  std::string authorized_line;  // ecdsa-sha2-nistp256 AAAA... COMMENT
};

Result<SshKeyPair> newSshKeyPair(const std::string& comment);

}  // namespace railkit::k8s::render
