#pragma once
// Builds .tar.gz archives for the snapshot tests, hostile ones included
// (links out of the tree, names written twice, hard links, bombs), with
// libarchive's write API: tar(1) refuses to create most of them.
//
//   ArchiveBuilder(path).file("sys/x", "1\n").symlink("esc", "/tmp/canary").file("esc/f", "x").write();

#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace railkit::testing {

class ArchiveBuilder {
 public:
  explicit ArchiveBuilder(std::filesystem::path path) : path_(std::move(path)) {}

  ArchiveBuilder& file(const std::string& name, std::string content) {
    entries_.push_back({name, AE_IFREG, std::move(content), "", false, 0});
    return *this;
  }
  // A file of `size` zero bytes, streamed (never held in memory).
  ArchiveBuilder& zeros(const std::string& name, std::uint64_t size) {
    entries_.push_back({name, AE_IFREG, "", "", false, size});
    return *this;
  }
  ArchiveBuilder& dir(const std::string& name) {
    entries_.push_back({name, AE_IFDIR, "", "", false, 0});
    return *this;
  }
  ArchiveBuilder& symlink(const std::string& name, const std::string& target) {
    entries_.push_back({name, AE_IFLNK, "", target, false, 0});
    return *this;
  }
  ArchiveBuilder& hardlink(const std::string& name, const std::string& target) {
    entries_.push_back({name, AE_IFREG, "", target, true, 0});
    return *this;
  }
  ArchiveBuilder& special(const std::string& name, unsigned type) {
    entries_.push_back({name, type, "", "", false, 0});
    return *this;
  }

  // gzip = false writes a plain tar.
  bool write(bool gzip = true) const {
    struct archive* a = archive_write_new();
    if (gzip) archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    bool ok = archive_write_open_filename(a, path_.c_str()) == ARCHIVE_OK;
    for (const auto& e : entries_) {
      if (!ok) break;
      struct archive_entry* entry = archive_entry_new();
      archive_entry_set_pathname(entry, e.name.c_str());
      archive_entry_set_filetype(entry, e.type);
      archive_entry_set_perm(entry, e.type == AE_IFDIR ? 0755 : 0644);
      if (e.type == AE_IFLNK) archive_entry_set_symlink(entry, e.target.c_str());
      if (e.hard) archive_entry_set_hardlink(entry, e.target.c_str());
      std::uint64_t size = e.zeros ? e.zeros : e.content.size();
      if (e.type == AE_IFREG && !e.hard) archive_entry_set_size(entry, static_cast<la_int64_t>(size));
      ok = archive_write_header(a, entry) == ARCHIVE_OK;
      if (ok && !e.content.empty()) ok = archive_write_data(a, e.content.data(), e.content.size()) >= 0;
      if (ok && e.zeros) {
        std::vector<char> block(1 << 20, 0);
        for (std::uint64_t left = e.zeros; ok && left > 0;) {
          size_t n = static_cast<size_t>(std::min<std::uint64_t>(left, block.size()));
          ok = archive_write_data(a, block.data(), n) >= 0;
          left -= n;
        }
      }
      archive_entry_free(entry);
    }
    if (archive_write_close(a) != ARCHIVE_OK) ok = false;
    archive_write_free(a);
    return ok;
  }

 private:
  struct Entry {
    std::string name;
    unsigned type;
    std::string content;
    std::string target;
    bool hard;
    std::uint64_t zeros;
  };
  std::filesystem::path path_;
  std::vector<Entry> entries_;
};

}  // namespace railkit::testing
