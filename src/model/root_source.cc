#include "model/root_source.h"

#include <cstdlib>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "core/strings.h"

namespace fs = std::filesystem;

namespace railkit::model {

bool isTarGz(const fs::path& path) {
  std::string name = path.filename().string();
  return endsWith(name, ".tar.gz") || endsWith(name, ".tgz");
}

namespace {

bool safeEntryPath(std::string_view p) {
  if (p.empty() || p.front() == '/') return false;
  for (auto part : split(p, '/'))
    if (part == "..") return false;
  return true;
}

Status extract(const fs::path& archive_path, const fs::path& dest) {
  struct archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  auto fail = [&](const std::string& what) {
    std::string msg = "--root " + archive_path.string() + ": " + what;
    archive_read_free(a);
    return makeError(ErrorCode::kInvalidInput, msg);
  };
  if (archive_read_open_filename(a, archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
    return fail(std::string("not a readable .tar.gz (") + archive_error_string(a) + ")");
  struct archive_entry* entry = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a, &entry)) == ARCHIVE_OK) {
    std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    while (startsWith(name, "./")) name = name.substr(2);
    if (name.empty() || name == ".") continue;
    if (!safeEntryPath(name)) return fail("entry '" + name + "' leaves the snapshot directory");
    fs::path out = dest / name;
    std::error_code ec;
    fs::create_directories(out.parent_path(), ec);
    auto type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      fs::create_directories(out, ec);
    } else if (type == AE_IFLNK) {
      const char* target = archive_entry_symlink(entry);
      fs::remove(out, ec);
      // Links may point anywhere: FileRoot resolves them inside the root.
      fs::create_symlink(target ? target : "", out, ec);
      if (ec) return fail("cannot create link '" + name + "': " + ec.message());
    } else if (type == AE_IFREG) {
      FILE* f = std::fopen(out.c_str(), "wb");
      if (!f) return fail("cannot write '" + out.string() + "'");
      const void* buf;
      size_t size;
      la_int64_t offset;
      int r;
      while ((r = archive_read_data_block(a, &buf, &size, &offset)) == ARCHIVE_OK)
        std::fwrite(buf, 1, size, f);
      std::fclose(f);
      if (r != ARCHIVE_EOF) return fail(std::string("damaged entry '") + name + "': " + archive_error_string(a));
    }
    // Device nodes, fifos and sockets are skipped: their existence is
    // recorded as an empty regular file by snapshot.
  }
  if (rc != ARCHIVE_EOF) return fail(std::string("damaged archive: ") + archive_error_string(a));
  archive_read_free(a);
  return {};
}

}  // namespace

Result<RootSource> RootSource::open(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return makeError(ErrorCode::kNotFound, "--root " + path.string() + ": no such file or directory");
  RootSource source;
  if (fs::is_directory(path, ec)) {
    source.directory_ = path;
    return source;
  }
  if (!isTarGz(path))
    return makeError(ErrorCode::kInvalidInput,
                     "--root " + path.string() + ": expected a directory or a .tar.gz snapshot");
  std::string tmpl = (fs::temp_directory_path() / "railkit-root-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    return makeError(ErrorCode::kIo, "cannot create a temporary directory for " + path.string());
  source.temp_ = tmpl;
  source.directory_ = tmpl;
  if (auto st = extract(path, source.directory_); !st) return tl::unexpected(st.error());
  return source;
}

RootSource::RootSource(RootSource&& other) noexcept
    : directory_(std::move(other.directory_)), temp_(std::move(other.temp_)) {
  other.temp_.clear();
}

RootSource& RootSource::operator=(RootSource&& other) noexcept {
  if (this != &other) {
    if (!temp_.empty()) {
      std::error_code ec;
      fs::remove_all(temp_, ec);
    }
    directory_ = std::move(other.directory_);
    temp_ = std::move(other.temp_);
    other.temp_.clear();
  }
  return *this;
}

RootSource::~RootSource() {
  if (!temp_.empty()) {
    std::error_code ec;
    fs::remove_all(temp_, ec);
  }
}

}  // namespace railkit::model
