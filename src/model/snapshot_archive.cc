#include "model/snapshot_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "core/input_file.h"
#include "core/interrupt.h"
#include "core/tree_writer.h"

namespace railkit::model {

namespace {

struct ArchiveFree {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<struct archive, ArchiveFree>;

std::string archiveMessage(struct archive* a) {
  const char* s = archive_error_string(a);
  return s ? s : "unknown error";
}

// Names as tar writers spell them: "./sys/x", "sys/x/" for a directory.
std::string entryName(struct archive_entry* e) {
  const char* raw = archive_entry_pathname(e);
  std::string name = raw ? raw : "";
  while (name.size() >= 2 && name.compare(0, 2, "./") == 0) name.erase(0, 2);
  return name;
}

size_t depthOf(const std::string& name) {
  return static_cast<size_t>(std::count(name.begin(), name.end(), '/')) + 1;
}

class Extractor {
 public:
  Extractor(struct archive* a, TreeWriter tree, std::string label, const ArchiveLimits& limits)
      : a_(a), tree_(std::move(tree)), label_(std::move(label)), limits_(limits) {}

  Result<ExtractStats> run() {
    struct archive_entry* entry = nullptr;
    while (true) {
      if (auto st = checkInterrupt(label_.c_str()); !st) return tl::unexpected(st.error());
      int rc = archive_read_next_header(a_, &entry);
      if (rc == ARCHIVE_EOF) break;
      if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
        std::string where =
            stats_.entries == 0 ? "" : " after " + std::to_string(stats_.entries) + " entries";
        return fail(ErrorCode::kInvalidInput,
                    "damaged or truncated archive" + where + " (" + archiveMessage(a_) + ")");
      }
      if (++stats_.entries > limits_.max_entries)
        return fail(ErrorCode::kInvalidInput, "more than " + std::to_string(limits_.max_entries) +
                                                  " entries (the limit for a snapshot)");
      if (auto st = one(entry); !st) return tl::unexpected(st.error());
    }
    if (stats_.files + stats_.links == 0)
      return fail(ErrorCode::kInvalidInput,
                  "the archive holds no files (an empty or all-NUL tar is not a snapshot)");
    return stats_;
  }

 private:
  tl::unexpected<Error> fail(ErrorCode code, const std::string& what) const {
    return makeError(code, label_ + ": " + what);
  }
  Status refuse(const std::string& name, const std::string& why) const {
    return fail(ErrorCode::kInvalidInput, "entry '" + name + "' refused: " + why);
  }
  // TreeWriter's message already quotes the name.
  Status treeError(const Error& e) const { return makeError(e.code, label_ + ": entry " + e.message); }

  Status one(struct archive_entry* entry) {
    std::string name = entryName(entry);
    if (name.empty() || name == "." || name == "./") return okStatus();
    if (name.size() > limits_.max_path_bytes)
      return refuse(name.substr(0, 80) + "...",
                    "name longer than " + std::to_string(limits_.max_path_bytes) + " bytes");
    if (depthOf(name) > limits_.max_depth)
      return refuse(name, "more than " + std::to_string(limits_.max_depth) + " components deep");
    if (name.front() == '/') return refuse(name, "absolute name");
    la_int64_t size = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    if (size < 0 || static_cast<std::uint64_t>(size) > limits_.max_entry_bytes)
      return refuse(name,
                    "larger than " + formatByteLimit(limits_.max_entry_bytes) + " (the limit per file)");
    if (archive_entry_hardlink(entry) != nullptr)
      return refuse(name, std::string("hard link to '") + archive_entry_hardlink(entry) +
                              "' (a snapshot holds no hard links)");
    switch (archive_entry_filetype(entry)) {
      case AE_IFDIR: {
        if (auto st = tree_.makeDirectory(name); !st) return treeError(st.error());
        ++stats_.dirs;
        return okStatus();
      }
      case AE_IFLNK: {
        const char* target = archive_entry_symlink(entry);
        std::string t = target ? target : "";
        if (t.size() > limits_.max_path_bytes)
          return refuse(name,
                        "symlink target longer than " + std::to_string(limits_.max_path_bytes) + " bytes");
        if (auto st = tree_.makeSymlink(name, t); !st) return treeError(st.error());
        ++stats_.links;
        return okStatus();
      }
      case AE_IFREG: return file(name);
      case AE_IFCHR:
      case AE_IFBLK:
      case AE_IFIFO:
      case AE_IFSOCK: {
        // Only existence matters (dev/infiniband/uverbs0); an empty regular
        // file keeps that without anything that could block or stream.
        auto fd = tree_.createFile(name);
        if (!fd) return treeError(fd.error());
        ++stats_.files;
        return okStatus();
      }
      default: return refuse(name, "an entry of unknown type");
    }
  }

  Status file(const std::string& name) {
    auto fd = tree_.createFile(name);
    if (!fd) return treeError(fd.error());
    ++stats_.files;
    std::uint64_t written = 0;
    const void* buf = nullptr;
    size_t len = 0;
    la_int64_t offset = 0;
    while (true) {
      if (auto st = checkInterrupt(label_.c_str()); !st) return st;
      int rc = archive_read_data_block(a_, &buf, &len, &offset);
      if (rc == ARCHIVE_EOF) break;
      if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
        return fail(ErrorCode::kInvalidInput,
                    "damaged or truncated archive in entry '" + name + "' (" + archiveMessage(a_) + ")");
      // Sparse entries: the holes would be written out in full; sysfs has none.
      if (offset < 0 || static_cast<std::uint64_t>(offset) != written)
        return refuse(name, "a sparse file (a snapshot holds none)");
      written += len;
      stats_.bytes += len;
      // The header's size was checked, but the data is what fills the disk.
      if (written > limits_.max_entry_bytes)
        return refuse(name,
                      "larger than " + formatByteLimit(limits_.max_entry_bytes) + " (the limit per file)");
      if (stats_.bytes > limits_.max_total_bytes)
        return fail(ErrorCode::kInvalidInput, "more than " + formatByteLimit(limits_.max_total_bytes) +
                                                  " of files (the limit for a snapshot), at entry '" + name +
                                                  "'");
      auto st =
          writeAll(fd->get(), std::string_view(static_cast<const char*>(buf), len), label_ + ": " + name);
      if (!st) return st;
    }
    return okStatus();
  }

  struct archive* a_;
  TreeWriter tree_;
  std::string label_;
  ArchiveLimits limits_;
  ExtractStats stats_;
};

}  // namespace

Status checkGzipMagic(int fd, const std::string& label) {
  unsigned char head[4096];
  ssize_t got;
  do got = ::pread(fd, head, sizeof head, 0);
  while (got < 0 && errno == EINTR);
  if (got < 0) return makeError(ErrorCode::kIo, label + ": cannot read: " + std::strerror(errno));
  if (::lseek(fd, 0, SEEK_SET) != 0)
    return makeError(ErrorCode::kIo, label + ": cannot seek: " + std::strerror(errno));
  const std::string expected = "expected a directory or a gzip-compressed tar snapshot, found ";
  if (got == 0) return makeError(ErrorCode::kInvalidInput, label + ": " + expected + "an empty file");
  if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b) return okStatus();
  bool all_nul = std::all_of(head, head + got, [](unsigned char c) { return c == 0; });
  if (all_nul) return makeError(ErrorCode::kInvalidInput, label + ": " + expected + "a file of NUL bytes");
  if (got >= 262 && std::memcmp(head + 257, "ustar", 5) == 0)
    return makeError(ErrorCode::kInvalidInput, label + ": " + expected + "an uncompressed tar (gzip it)");
  return makeError(ErrorCode::kInvalidInput, label + ": " + expected + "a file that is not gzip-compressed");
}

Result<ExtractStats> extractSnapshotArchive(int fd, const std::string& dest, const std::string& label,
                                            const ArchiveLimits& limits) {
  auto tree = TreeWriter::open(dest, TreeWriter::Existing::kRefuse);
  if (!tree) return tl::unexpected(tree.error().withContext(label));
  ArchivePtr a(archive_read_new());
  // gzip and tar only: no other filter or format is a railkit snapshot, and
  // each one more is parser surface for a hostile file.
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_fd(a.get(), fd, 1 << 16) != ARCHIVE_OK)
    return makeError(ErrorCode::kInvalidInput,
                     label + ": not a readable .tar.gz (" + archiveMessage(a.get()) + ")");
  Extractor extractor(a.get(), std::move(*tree), label, limits);
  return extractor.run();
}

}  // namespace railkit::model
