#include "model/snapshot.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/interrupt.h"
#include "core/tree_writer.h"
#include "model/collect_parts.h"
#include "model/root_source.h"
#include "model/tar_gz_writer.h"

namespace fs = std::filesystem;

namespace railkit::model {

namespace {

constexpr const char* kWhat = "snapshot --output";

// "/sys/class/net" -> "sys/class/net": TreeWriter names are relative.
std::string rel(const std::string& abs) {
  size_t i = abs.find_first_not_of('/');
  return i == std::string::npos ? std::string() : abs.substr(i);
}

// A temporary directory removed (without following links) when it goes out
// of scope unless released.
class TempTree {
 public:
  explicit TempTree(fs::path path) : path_(std::move(path)) {}
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  ~TempTree() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  fs::path path_;
};

Result<fs::path> makeTempDir(const fs::path& parent, const std::string& prefix) {
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    return makeError(ErrorCode::kIo, std::string("snapshot: cannot create a temporary directory in ") +
                                         parent.string() + ": " + std::strerror(errno));
  return fs::path(tmpl);
}

// The source may itself be a hostile snapshot, so the copy is written
// through a TreeWriter too: no name of the source can make us write outside
// `dir` (kReplace: placeholders for listed entries are replaced by the real
// file or link later).
Status writeTree(const FileRoot& root, const SnapshotRecorder& rec, const Inventory& inv, const fs::path& dir,
                 SnapshotStats& stats) {
  auto opened = TreeWriter::open(dir.string(), TreeWriter::Existing::kReplace);
  if (!opened) return tl::unexpected(opened.error());
  TreeWriter& tree = *opened;
  auto context = [](const Error& e) { return tl::unexpected(e.withContext("snapshot")); };
  std::error_code ec;
  // Listed directories with their entries: links as links, directories as
  // directories, anything else (device nodes, unread files) as empty files.
  for (const auto& d : rec.dirs()) {
    if (auto st = checkInterrupt("snapshot"); !st) return st;
    if (rel(d).empty()) continue;
    if (auto st = tree.makeDirectory(rel(d)); !st) return context(st.error());
    ++stats.dirs;
    auto entries = root.listDir(d);
    if (!entries) continue;
    for (const auto& name : *entries) {
      if (auto st = checkInterrupt("snapshot"); !st) return st;
      fs::path src = root.diskPath(d) / name;
      std::string dst = rel(joinPath(d, name));
      auto type = fs::symlink_status(src, ec);
      Status st;
      if (fs::is_symlink(type)) {
        st = tree.makeSymlink(dst, fs::read_symlink(src, ec).string());
      } else if (fs::is_directory(type)) {
        st = tree.makeDirectory(dst);
      } else {
        auto fd = tree.createFile(dst);
        if (!fd) st = tl::unexpected(fd.error());
      }
      if (!st) return context(st.error());
    }
  }
  for (const auto& [link, target] : rec.links()) {
    if (auto st = checkInterrupt("snapshot"); !st) return st;
    if (auto st = tree.makeSymlink(rel(link), target); !st) return context(st.error());
    ++stats.links;
  }
  for (const auto& f : rec.files()) {
    if (auto st = checkInterrupt("snapshot"); !st) return st;
    // Read through the root again: /proc files report size 0, so copy bytes.
    auto bytes = root.readBytes(f, 16 << 20);
    if (!bytes) continue;
    std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    if (auto st = tree.writeFile(rel(f), text); !st) return context(st.error());
    ++stats.files;
  }
  nlohmann::json live = nlohmann::json::object();
  nlohmann::json addresses = nlohmann::json::object();
  bool known = false;
  for (const auto& n : inv.interfaces)
    if (n.addresses_known) {
      known = true;
      addresses[n.name] = n.addresses;
    }
  if (known) live["addresses"] = addresses;
  if (inv.process.shm_bytes && inv.process.shm_source == "statvfs") {
    live["shm_bytes"] = *inv.process.shm_bytes;
    live["shm_source"] = "statvfs";
  }
  nlohmann::json net = networkStateToJson(inv);
  for (auto& [key, value] : net.items()) live[key] = value;
  std::string text = live.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // railkit/ is ours: a source that had a link there (to anywhere) gets a
  // real directory instead, replacing the copied link.
  fs::path live_path = rel(kLiveFactsPath);
  if (auto st = tree.makeDirectory(live_path.parent_path().string()); !st) return context(st.error());
  if (auto st = tree.writeFile(live_path.string(), text); !st) return context(st.error());
  return {};
}

// Packs `dir` (our own staging tree) into the open file `fd`.
Status packTarGz(const fs::path& dir, int fd, const std::string& out) {
  TarGzWriter tar(fd, std::time(nullptr));
  auto fail = [&](const std::string& what, const Error& e) {
    return makeError(e.code, std::string(kWhat) + " " + out + ": " + what + " (" + e.message + ")");
  };
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (auto st = checkInterrupt("snapshot"); !st) return st;
    std::string name = it->path().lexically_relative(dir).string();
    auto type = it->symlink_status();
    Status added;
    if (fs::is_symlink(type)) {
      added = tar.addSymlink(name, fs::read_symlink(it->path(), ec).string());
    } else if (fs::is_directory(type)) {
      added = tar.addDirectory(name);
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      std::string content(std::istreambuf_iterator<char>(in), {});
      added = tar.addFile(name, content);
    }
    if (!added) return fail("cannot add " + name, added.error());
  }
  if (ec) return makeError(ErrorCode::kIo, "snapshot: cannot walk the staging tree: " + ec.message());
  if (auto st = tar.finish(); !st) return fail("cannot finish", st.error());
  return {};
}

// "--output out/" names the directory "out": the temporary sibling and the rename
// need the last component.
fs::path outputPath(const fs::path& out) {
  fs::path p = out;
  while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

bool isEmptyDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec)) && fs::is_empty(p, ec);
}

// What --force may replace with a directory: a file, or a directory that is
// a railkit snapshot. Never an arbitrary directory (think `-o ~ --force`).
bool replaceableByForce(const fs::path& p) {
  std::error_code ec;
  auto st = fs::symlink_status(p, ec);
  if (fs::is_regular_file(st)) return true;
  return fs::is_directory(st) && fs::is_regular_file(fs::symlink_status(p / rel(kLiveFactsPath), ec));
}

Result<SnapshotStats> writeTarGz(const FileRoot& root, const SnapshotRecorder& rec, const Inventory& inv,
                                 const fs::path& out, bool force) {
  SnapshotStats stats;
  auto file = AtomicFile::create(out.string(), kWhat, force ? ExistingFile::kReplace : ExistingFile::kRefuse);
  if (!file) return tl::unexpected(file.error());
  auto staging = makeTempDir(fs::temp_directory_path(), "railkit-snap-");
  if (!staging) return tl::unexpected(staging.error());
  TempTree cleanup(*staging);
  if (auto st = writeTree(root, rec, inv, *staging, stats); !st) return tl::unexpected(st.error());
  if (auto st = packTarGz(*staging, file->fd(), out.string()); !st) return tl::unexpected(st.error());
  if (auto st = file->commit(); !st) return tl::unexpected(st.error());
  return stats;
}

Result<SnapshotStats> writeDirectory(const FileRoot& root, const SnapshotRecorder& rec, const Inventory& inv,
                                     const fs::path& out, bool force) {
  SnapshotStats stats;
  fs::path parent = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  // Built beside the final name (same file system), then renamed into place:
  // a killed run leaves no half-written snapshot under that name.
  // Appended, not "." + name + ...: GCC 12 warns falsely (-Wrestrict) on
  // that chain of operator+ once it is inlined here (GCC bug 105329).
  std::string prefix = ".";
  prefix += out.filename().string();
  prefix += ".railkit-snap-";
  auto temp = makeTempDir(parent, prefix);
  if (!temp) return tl::unexpected(temp.error());
  TempTree cleanup(*temp);
  ::chmod(temp->c_str(), 0755);  // mkdtemp's 0700 is for staging, not for a result
  if (auto st = writeTree(root, rec, inv, *temp, stats); !st) return tl::unexpected(st.error());
  std::error_code ec;
  bool exists = fs::exists(fs::symlink_status(out, ec));
  if (!exists || isEmptyDir(out)) {
    // rename(2) replaces an empty directory in one step, and fails if it
    // was filled meanwhile.
    if (::rename(temp->c_str(), out.c_str()) != 0)
      return makeError(ErrorCode::kIo, std::string(kWhat) + " " + out.string() +
                                           ": cannot rename into place: " + std::strerror(errno));
    cleanup.release();
    return stats;
  }
  if (!force || !replaceableByForce(out))
    return makeError(ErrorCode::kUsage,
                     std::string(kWhat) + " " + out.string() + ": changed while the snapshot was written");
  // Swap the new tree and the old one atomically, then remove the old one
  // (now under the temporary name).
  if (::renameat2(AT_FDCWD, temp->c_str(), AT_FDCWD, out.c_str(), RENAME_EXCHANGE) != 0)
    return makeError(ErrorCode::kIo, std::string(kWhat) + " " + out.string() +
                                         ": cannot replace it: " + std::strerror(errno));
  return stats;  // `cleanup` removes the old snapshot
}

}  // namespace

Status checkSnapshotOutput(const fs::path& given, bool force) {
  fs::path out = outputPath(given);
  std::error_code ec;
  auto st = fs::symlink_status(out, ec);
  if (!fs::exists(st)) return okStatus();
  const std::string head = std::string(kWhat) + " " + out.string() + ": ";
  if (isTarGz(out)) {
    if (fs::is_directory(st))
      return makeError(ErrorCode::kUsage, head + "is a directory, expected a file name");
    if (!force) return makeError(ErrorCode::kUsage, head + "already exists (remove it or pass --force)");
    return okStatus();
  }
  if (isEmptyDir(out)) return okStatus();
  if (!force)
    return makeError(ErrorCode::kUsage,
                     head + "exists and is not an empty directory (remove it or pass --force)");
  if (!replaceableByForce(out))
    return makeError(
        ErrorCode::kUsage,
        head + "exists and is not a railkit snapshot (no railkit/live.json); --force replaces only those");
  return okStatus();
}

Result<SnapshotStats> writeSnapshot(const FileRoot& root, const SnapshotRecorder& recorder,
                                    const Inventory& inventory, const fs::path& given, bool force) {
  fs::path out = outputPath(given);
  if (auto st = checkSnapshotOutput(out, force); !st) return tl::unexpected(st.error());
  // Held until every temporary file and directory below is gone.
  CleanupScope scope;
  if (isTarGz(out)) return writeTarGz(root, recorder, inventory, out, force);
  return writeDirectory(root, recorder, inventory, out, force);
}

}  // namespace railkit::model
