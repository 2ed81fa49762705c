#pragma once
// Writes a Plan as the directory podrun.sh runs:
//   pods.tsv    one line per pod: NODE POD HOSTNAME END ROLE JOB CONTROLLER (tab-separated);
//               END is "exits", "deleted-when-done" or "outlives-launcher"
//   report      the pod whose main container prints rank 0's table
//   notes       what the platform would do that the manifest may not mean
//   summary     the same for people: controllers, jobs, pods, interfaces
//   pods/POD/   hostname, hosts, netifs ("NAME ADDRESS ctrl|data"),
//               containers ("KIND NAME": init, sidecar, main, in start order)
//   pods/POD/c/NAME/  argv and env (NUL-separated), command.txt (shell-quoted, for
//               people), dirs ("MODE ro|rw PATH"), files ("MODE PATH"), the files'
//               content under root/PATH, binds ("ro|rw HOSTPATH PATH": hostPath
//               volumes, HOSTPATH read under the fake node's root), volumes ("ro|rw
//               VOLUME PATH": emptyDir volumes, one directory per pod), image (the
//               container's image), security ("user UID GID", "read-only-root")
#include <filesystem>

#include "core/result.h"
#include "resolve.h"

namespace railkit::podrun {

Status writePlan(const Plan& plan, const std::filesystem::path& dir);

}  // namespace railkit::podrun
