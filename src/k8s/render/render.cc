// GCC 12 reports a false -Wrestrict inside std::string concatenation (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include "k8s/render/render.h"

#include "k8s/render/emit.h"
#include "k8s/render/lldp.h"
#include "k8s/render/parts.h"

namespace railkit::k8s::render {
namespace {

RenderedObject namespaceObject(const Profile& profile) {
  return {"namespace.yaml",
          "Pod Security: only the 'privileged' level admits the IPC_LOCK capability RDMA memory registration "
          "needs, so enforce is privileged; warn and audit stay at baseline so anything beyond IPC_LOCK is "
          "still reported.",
          {{"apiVersion", "v1"},
           {"kind", "Namespace"},
           {"metadata",
            {{"name", profile.ns},
             {"labels",
              {{"pod-security.kubernetes.io/enforce", "privileged"},
               {"pod-security.kubernetes.io/warn", "baseline"},
               {"pod-security.kubernetes.io/audit", "baseline"}}}}}}};
}

// A `#` comment, wrapped at 100 columns. Every byte outside printable
// ASCII becomes '?': a line break of any kind (CR, NEL, a line separator)
// would end the comment for some YAML reader and start a line of its own.
std::string commentLines(const std::string& raw) {
  std::string text = raw;
  for (char& c : text)
    if (c < 0x20 || c >= 0x7f) c = '?';
  std::string out;
  std::string line = "#";
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find(' ', start);
    std::string word = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.size() + word.size() + 1 > 100) {
      out.append(line).append(1, '\n');
      line.assign(1, '#');
    }
    line.append(1, ' ').append(word);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  out.append(line).append(1, '\n');
  return out;
}

}  // namespace

Result<std::vector<RenderedObject>> renderProfile(const Profile& input) {
  Profile profile = input;
  if (auto status = finishProfile(profile); !status) return tl::unexpected(status.error());
  std::vector<RenderedObject> objects = {namespaceObject(profile)};
  PodDecoration decoration;
  auto mode = renderMode(profile, decoration);
  if (!mode) return tl::unexpected(mode.error());
  decorateForLldp(profile, decoration);
  auto launcher = renderLauncher(profile, decoration);
  if (!launcher) return tl::unexpected(launcher.error());
  objects.insert(objects.end(), mode->begin(), mode->end());
  for (RenderedObject& object : lldpObjects(profile)) objects.push_back(std::move(object));
  if (usesEnvBootstrap(profile.launcher)) {
    auto secret = jobTokenSecret(profile);
    if (!secret) return tl::unexpected(secret.error());
    objects.push_back(std::move(*secret));
  }
  for (RenderedObject& object : *launcher) {
    if (!decoration.pod_comment.empty()) object.comment += " " + decoration.pod_comment;
    const std::string kind = object.object.value("kind", "");
    bool holds_pods = kind == "MPIJob" || kind == "Job" || kind == "JobSet" || kind == "TrainingRuntime";
    if (holds_pods && !profile.railkit_image.empty())
      object.comment += " railkit comes from " + profile.railkit_image +
                        ": an initContainer copies it into the emptyDir " + kRailkitVolume +
                        ", mounted read-only at " + kRailkitMount + "; the image needs no railkit.";
    objects.push_back(std::move(object));
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    std::string prefix = (i < 10 ? "0" : "") + std::to_string(i) + "-";
    objects[i].file_name = prefix + objects[i].file_name;
  }
  return objects;
}

std::string toYaml(const RenderedObject& object) {
  std::string out = commentLines(object.comment);
  out.append(emitYaml(object.object));
  return out;
}

std::string toYaml(const std::vector<RenderedObject>& objects) {
  std::string out;
  for (const RenderedObject& object : objects) out += "---\n" + toYaml(object);
  return out;
}

}  // namespace railkit::k8s::render
