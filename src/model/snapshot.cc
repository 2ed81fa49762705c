#include "model/snapshot.h"

#include <cstdlib>
#include <fstream>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <nlohmann/json.hpp>

#include "model/collect_parts.h"
#include "model/root_source.h"

namespace fs = std::filesystem;

namespace railkit::model {

namespace {

fs::path inside(const fs::path& dir, const std::string& abs) { return dir / abs.substr(1); }

Status writeTree(const FileRoot& root, const SnapshotRecorder& rec, const Inventory& inv,
                 const fs::path& dir, SnapshotStats& stats) {
  std::error_code ec;
  // Listed directories with their entries: links as links, directories as
  // directories, anything else (device nodes, unread files) as empty files.
  for (const auto& d : rec.dirs()) {
    fs::create_directories(inside(dir, d), ec);
    ++stats.dirs;
    auto entries = root.listDir(d);
    if (!entries) continue;
    for (const auto& name : *entries) {
      fs::path src = root.diskPath(d) / name;
      fs::path dst = inside(dir, d) / name;
      auto st = fs::symlink_status(src, ec);
      if (fs::is_symlink(st)) {
        fs::remove(dst, ec);
        fs::create_symlink(fs::read_symlink(src, ec), dst, ec);
      } else if (fs::is_directory(st)) {
        fs::create_directories(dst, ec);
      } else if (!fs::exists(dst, ec)) {
        std::ofstream(dst, std::ios::binary);
      }
    }
  }
  for (const auto& [link, target] : rec.links()) {
    fs::path dst = inside(dir, link);
    fs::create_directories(dst.parent_path(), ec);
    fs::remove(dst, ec);
    fs::create_symlink(target, dst, ec);
    if (ec) return makeError(ErrorCode::kIo, "snapshot: cannot create link " + dst.string() + ": " + ec.message());
    ++stats.links;
  }
  for (const auto& f : rec.files()) {
    // Read through the root again: /proc files report size 0, so copy bytes.
    auto bytes = root.readBytes(f, 16 << 20);
    if (!bytes) continue;
    fs::path dst = inside(dir, f);
    fs::create_directories(dst.parent_path(), ec);
    fs::remove(dst, ec);
    std::ofstream out(dst, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    if (!out) return makeError(ErrorCode::kIo, "snapshot: cannot write " + dst.string());
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
  fs::path live_path = inside(dir, kLiveFactsPath);
  fs::create_directories(live_path.parent_path(), ec);
  std::ofstream(live_path) << live.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  return {};
}

Status packTarGz(const fs::path& dir, const fs::path& out) {
  struct archive* a = archive_write_new();
  archive_write_add_filter_gzip(a);
  archive_write_set_format_pax(a);
  auto fail = [&](const std::string& what) {
    std::string msg = "snapshot: " + out.string() + ": " + what + " (" +
                      (archive_error_string(a) ? archive_error_string(a) : "") + ")";
    archive_write_free(a);
    return makeError(ErrorCode::kIo, msg);
  };
  if (archive_write_open_filename(a, out.c_str()) != ARCHIVE_OK) return fail("cannot create");
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::string rel = it->path().lexically_relative(dir).string();
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, rel.c_str());
    auto st = it->symlink_status();
    std::string content;
    if (fs::is_symlink(st)) {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_perm(e, 0777);
      archive_entry_set_symlink(e, fs::read_symlink(it->path()).c_str());
    } else if (fs::is_directory(st)) {
      archive_entry_set_filetype(e, AE_IFDIR);
      archive_entry_set_perm(e, 0755);
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      content.assign(std::istreambuf_iterator<char>(in), {});
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_perm(e, 0644);
      archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    }
    if (archive_write_header(a, e) != ARCHIVE_OK) {
      archive_entry_free(e);
      return fail("cannot add " + rel);
    }
    if (!content.empty()) archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  if (archive_write_close(a) != ARCHIVE_OK) return fail("cannot finish");
  archive_write_free(a);
  return {};
}

}  // namespace

Result<SnapshotStats> writeSnapshot(const FileRoot& root, const SnapshotRecorder& recorder,
                                    const Inventory& inventory, const fs::path& out) {
  SnapshotStats stats;
  std::error_code ec;
  if (isTarGz(out)) {
    std::string tmpl = (fs::temp_directory_path() / "railkit-snap-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) return makeError(ErrorCode::kIo, "snapshot: cannot create a temporary directory");
    fs::path staging = tmpl;
    auto st = writeTree(root, recorder, inventory, staging, stats);
    if (st) st = packTarGz(staging, out);
    fs::remove_all(staging, ec);
    if (!st) return tl::unexpected(st.error());
    return stats;
  }
  if (fs::exists(out, ec) && !(fs::is_directory(out, ec) && fs::is_empty(out, ec)))
    return makeError(ErrorCode::kUsage, "snapshot -o " + out.string() + ": exists and is not an empty directory");
  fs::create_directories(out, ec);
  if (ec) return makeError(ErrorCode::kIo, "snapshot -o " + out.string() + ": " + ec.message());
  auto st = writeTree(root, recorder, inventory, out, stats);
  if (!st) return tl::unexpected(st.error());
  return stats;
}

}  // namespace railkit::model
