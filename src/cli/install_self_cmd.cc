// railkit install-self DIR: copies the running railkit executable to
// DIR/railkit. It is what the render's initContainer runs to bring railkit
// into a pod whose image lacks it (docs/render.md, "railkit from its own
// image"): railkit's image has no shell, so no cp, and the binary needs only
// glibc, so a copy runs in any glibc image.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "sys/paths.h"

namespace railkit::cli {
namespace {

// The copy's name in DIR: what the rendered commands call (/opt/railkit/railkit).
constexpr const char* kInstalledName = "railkit";

struct InstallSelfOptions {
  std::string dir;
};

// Closes the executable's descriptor on every path out.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// The bytes of /proc/self/exe into `out`, whole: a short copy is an error,
// never a truncated binary.
Status copyExecutable(int in, AtomicFile& out, off_t expected) {
  std::array<char, 1 << 16> buffer{};
  off_t copied = 0;
  while (true) {
    ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return makeError(ErrorCode::kIo, std::string("install-self: cannot read ") + sys::paths::kSelfExe +
                                           ": " + std::strerror(errno));
    if (n == 0) break;
    if (auto st = out.write(std::string_view(buffer.data(), static_cast<std::size_t>(n))); !st) return st;
    copied += n;
  }
  if (copied != expected)
    return makeError(ErrorCode::kIo, "install-self: read " + std::to_string(copied) + " bytes of " +
                                         std::string(sys::paths::kSelfExe) + ", " + "expected " +
                                         std::to_string(expected));
  return okStatus();
}

Result<std::string> installSelf(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return makeError(ErrorCode::kUsage, "install-self " + dir + ": " + std::strerror(errno) +
                                            " (expected an existing directory)");
  if (!S_ISDIR(st.st_mode)) return makeError(ErrorCode::kUsage, "install-self " + dir + ": not a directory");
  // The kernel's link to this process's own file: right even when railkit
  // was started through a symlink or by a relative path.
  int in = ::open(sys::paths::kSelfExe, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return makeError(ErrorCode::kIo, std::string("install-self: cannot open ") + sys::paths::kSelfExe +
                                         " (is /proc mounted?): " + std::strerror(errno));
  FdCloser closer{in};
  struct stat self {};
  if (::fstat(in, &self) != 0)
    return makeError(ErrorCode::kIo, std::string("install-self: cannot stat ") + sys::paths::kSelfExe + ": " +
                                         std::strerror(errno));
  std::string target = (dir.back() == '/' ? dir : dir + "/") + kInstalledName;
  // A temporary file in DIR renamed over the name: a container that starts
  // while an earlier copy is replaced sees the old binary or the new one.
  auto file = AtomicFile::create(target, "install-self");
  if (!file) return tl::unexpected(file.error());
  if (auto copied = copyExecutable(in, *file, self.st_size); !copied) return tl::unexpected(copied.error());
  // Executable by every user: the test containers run as root or not.
  if (::fchmod(file->fd(), 0755) != 0)
    return makeError(ErrorCode::kIo,
                     "install-self " + target + ": cannot make it executable: " + std::strerror(errno));
  if (auto committed = file->commit(); !committed) return tl::unexpected(committed.error());
  return target;
}

int runInstallSelf(const InstallSelfOptions& options) {
  auto target = installSelf(options.dir);
  if (!target) return reportError(target.error());
  std::printf("railkit: installed %s\n", target->c_str());
  auto st = stdoutWritten("install-self");
  return st ? kExitOk : reportError(st.error());
}

}  // namespace

void registerInstallSelf(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "install-self",
      "Copy this railkit executable to DIR/railkit (an image without a shell: the render's "
      "initContainer)");
  auto options = std::make_shared<InstallSelfOptions>();
  command->add_option("DIR", options->dir, "existing directory (an emptyDir the test containers mount)")
      ->required();
  command->callback([&context, options] { context.action = [options] { return runInstallSelf(*options); }; });
}

}  // namespace railkit::cli
