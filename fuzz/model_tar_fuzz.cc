// Fuzzes snapshot extraction (model/snapshot_archive.h) and checks, after
// every input, the property that matters: nothing exists in the sandbox
// outside the extraction directory, and the extraction directory holds only
// directories, regular files with one link, and symlinks.
//
// Inputs that start with the gzip magic are used as they are; anything else
// is taken as a tar and gzip-compressed first, so that mutations explore tar
// headers rather than dying on deflate checksums.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "model/snapshot_archive.h"

namespace fs = std::filesystem;

namespace {

std::string gzip(const uint8_t* data, size_t size) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // 15+16: gzip wrapper
  std::string out(deflateBound(&z, size) + 64, '\0');
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

[[noreturn]] void violation(const std::string& what) {
  std::fprintf(stderr, "model_tar_fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes = size >= 2 && data[0] == 0x1f && data[1] == 0x8b
                          ? std::string(reinterpret_cast<const char*>(data), size)
                          : gzip(data, size);
  std::string tmpl = (fs::temp_directory_path() / "railkit-fuzz-sandbox-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) violation("cannot create a sandbox");
  fs::path sandbox = tmpl;
  fs::path dest = sandbox / "root";
  fs::create_directory(dest);

  int fd = memfd_create("archive", MFD_CLOEXEC);
  if (fd < 0 || write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
    violation("memfd");
  lseek(fd, 0, SEEK_SET);
  // Small limits: the fuzzer explores structure, not size.
  railkit::model::ArchiveLimits limits;
  limits.max_entry_bytes = 64 << 10;
  limits.max_total_bytes = 256 << 10;
  limits.max_entries = 512;
  if (railkit::model::checkGzipMagic(fd, "fuzz"))
    (void)railkit::model::extractSnapshotArchive(fd, dest.string(), "fuzz", limits);
  close(fd);

  std::error_code ec;
  for (const auto& e : fs::directory_iterator(sandbox, ec))
    if (e.path() != dest) violation("written outside the extraction directory: " + e.path().string());
  if (!fs::is_directory(fs::symlink_status(dest, ec))) violation("the extraction directory was replaced");
  for (auto it = fs::recursive_directory_iterator(dest, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) continue;
    bool ok = S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode) || (S_ISREG(st.st_mode) && st.st_nlink == 1);
    if (!ok) violation("unexpected kind of file or hard link: " + it->path().string());
  }
  fs::remove_all(sandbox, ec);
  if (ec) violation("cannot clean the sandbox: " + ec.message());
  return 0;
}
