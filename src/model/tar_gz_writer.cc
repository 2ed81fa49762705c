#include "model/tar_gz_writer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace railkit::model {
namespace {

constexpr std::size_t kBlock = 512;

// The ustar header (POSIX.1-1988 with the POSIX.1-2001 magic).
struct UstarHeader {
  char name[100];
  char mode[8];
  char uid[8];
  char gid[8];
  char size[12];
  char mtime[12];
  char checksum[8];
  char type;
  char linkname[100];
  char magic[6];
  char version[2];
  char uname[32];
  char gname[32];
  char devmajor[8];
  char devminor[8];
  char prefix[155];
  char padding[12];
};
static_assert(sizeof(UstarHeader) == kBlock);

// Right-aligned, zero-padded octal, NUL-terminated, in a field of `width`.
bool octal(char* field, std::size_t width, std::uint64_t value) {
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + (value & 7)));
    value >>= 3;
  } while (value != 0);
  if (digits.size() > width - 1) return false;
  std::memset(field, '0', width - 1 - digits.size());
  std::memcpy(field + width - 1 - digits.size(), digits.data(), digits.size());
  field[width - 1] = '\0';
  return true;
}

// One pax record: "LEN key=value\n", where LEN counts the whole record,
// its own digits included.
std::string paxRecord(std::string_view key, std::string_view value) {
  std::size_t body = key.size() + value.size() + 3;  // ' ', '=', '\n'
  std::size_t len = body + 1;
  while (std::to_string(len).size() + body != len) len = std::to_string(len).size() + body;
  return std::to_string(len) + " " + std::string(key) + "=" + std::string(value) + "\n";
}

}  // namespace

TarGzWriter::TarGzWriter(int fd, std::time_t mtime) : fd_(fd), mtime_(mtime < 0 ? 0 : mtime) {
  // windowBits 15 + 16: a gzip wrapper, not zlib's own.
  started_ = deflateInit2(&zs_, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

TarGzWriter::~TarGzWriter() {
  if (started_) deflateEnd(&zs_);
}

Status TarGzWriter::deflateOut(int flush) {
  std::array<unsigned char, 64 * 1024> out;
  int rc = Z_OK;
  do {
    zs_.next_out = out.data();
    zs_.avail_out = static_cast<uInt>(out.size());
    rc = deflate(&zs_, flush);
    if (rc == Z_STREAM_ERROR) return makeError(ErrorCode::kInternal, "gzip: deflate failed");
    std::size_t have = out.size() - zs_.avail_out;
    for (std::size_t done = 0; done < have;) {
      ssize_t n = ::write(fd_, out.data() + done, have - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return makeError(ErrorCode::kIo, std::string("cannot write: ") + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    // Full output buffer: more may be pending. Z_FINISH: until the trailer.
  } while (flush == Z_FINISH ? rc != Z_STREAM_END : zs_.avail_out == 0);
  return okStatus();
}

Status TarGzWriter::write(const void* data, std::size_t size) {
  if (!started_) return makeError(ErrorCode::kInternal, "gzip: the compressor did not start");
  if (finished_) return makeError(ErrorCode::kInternal, "tar: an entry after the end of the archive");
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size > 0) {
    // zlib counts in uInt: feed at most 1 GiB at a time.
    std::size_t chunk = std::min<std::size_t>(size, std::size_t{1} << 30);
    zs_.next_in = const_cast<unsigned char*>(bytes);
    zs_.avail_in = static_cast<uInt>(chunk);
    if (auto st = deflateOut(Z_NO_FLUSH); !st) return st;
    bytes += chunk;
    size -= chunk;
  }
  return okStatus();
}

Status TarGzWriter::pad(std::size_t size) {
  static constexpr std::array<char, kBlock> kZeros{};
  std::size_t rest = size % kBlock;
  return rest == 0 ? okStatus() : write(kZeros.data(), kBlock - rest);
}

Status TarGzWriter::addEntry(char type, std::string_view name, std::string_view link, std::uint32_t mode,
                             std::string_view content) {
  if (name.empty()) return makeError(ErrorCode::kInternal, "tar: an entry without a name");
  // 8 GiB is the most 11 octal digits hold; a longer file needs pax's size.
  bool long_name = name.size() >= sizeof(UstarHeader::name);
  bool long_link = link.size() >= sizeof(UstarHeader::linkname);
  bool big = content.size() >= (std::uint64_t{1} << 33);
  if (long_name || long_link || big) {
    std::string records;
    if (long_name) records += paxRecord("path", name);
    if (long_link) records += paxRecord("linkpath", link);
    if (big) records += paxRecord("size", std::to_string(content.size()));
    std::string pax_name = "PaxHeaders/" + std::string(name.substr(0, 80));
    if (auto st = addEntry('x', pax_name, {}, 0644, records); !st) return st;
  }
  UstarHeader h{};
  // An empty view's data() may be null, which memcpy must never get.
  if (!link.empty()) std::memcpy(h.linkname, link.data(), std::min(link.size(), sizeof(h.linkname)));
  std::memcpy(h.name, name.data(), std::min(name.size(), sizeof(h.name)));
  octal(h.mode, sizeof(h.mode), mode);
  octal(h.uid, sizeof(h.uid), 0);
  octal(h.gid, sizeof(h.gid), 0);
  octal(h.size, sizeof(h.size), big ? 0 : content.size());
  octal(h.mtime, sizeof(h.mtime), static_cast<std::uint64_t>(mtime_));
  h.type = type;
  std::memcpy(h.magic, "ustar", 6);
  std::memcpy(h.version, "00", 2);
  std::memcpy(h.uname, "root", 4);
  std::memcpy(h.gname, "root", 4);
  // The checksum is summed with its own field as spaces.
  std::memset(h.checksum, ' ', sizeof(h.checksum));
  unsigned sum = 0;
  for (unsigned char c : std::string_view(reinterpret_cast<const char*>(&h), sizeof(h))) sum += c;
  octal(h.checksum, 7, sum);
  h.checksum[7] = ' ';
  if (auto st = write(&h, sizeof(h)); !st) return st;
  if (auto st = write(content.data(), content.size()); !st) return st;
  return pad(content.size());
}

Status TarGzWriter::addDirectory(std::string_view name) {
  std::string dir(name);
  if (dir.empty() || dir.back() != '/') dir += '/';
  return addEntry('5', dir, {}, 0755, {});
}

Status TarGzWriter::addFile(std::string_view name, std::string_view content) {
  return addEntry('0', name, {}, 0644, content);
}

Status TarGzWriter::addSymlink(std::string_view name, std::string_view target) {
  return addEntry('2', name, target, 0777, {});
}

Status TarGzWriter::finish() {
  static constexpr std::array<char, 2 * kBlock> kEnd{};
  if (auto st = write(kEnd.data(), kEnd.size()); !st) return st;
  finished_ = true;
  zs_.next_in = nullptr;
  zs_.avail_in = 0;
  return deflateOut(Z_FINISH);
}

}  // namespace railkit::model
