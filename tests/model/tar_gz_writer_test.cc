// TarGzWriter against two readers it did not write for: libarchive (which
// reads snapshots back) and GNU tar, with names and link targets past the
// ustar header's 100 bytes.
#include "model/tar_gz_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "support/process.h"

namespace fs = std::filesystem;
using railkit::model::TarGzWriter;

namespace {

struct Entry {
  char type;  // 'f', 'd', 'l'
  std::string content_or_target;
};

fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("railkit_tar_gz_writer_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// Every entry of the archive as libarchive reads it.
std::map<std::string, Entry> readBack(const fs::path& path) {
  std::map<std::string, Entry> out;
  struct archive* a = archive_read_new();
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  EXPECT_EQ(archive_read_open_filename(a, path.c_str(), 1 << 16), ARCHIVE_OK) << archive_error_string(a);
  struct archive_entry* e = nullptr;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string name = archive_entry_pathname(e);
    switch (archive_entry_filetype(e)) {
      case AE_IFDIR: out[name] = {'d', ""}; break;
      case AE_IFLNK: out[name] = {'l', archive_entry_symlink(e)}; break;
      default: {
        std::string content(static_cast<std::size_t>(archive_entry_size(e)), '\0');
        EXPECT_EQ(archive_read_data(a, content.data(), content.size()),
                  static_cast<la_ssize_t>(content.size()));
        out[name] = {'f', content};
      }
    }
  }
  archive_read_free(a);
  return out;
}

}  // namespace

TEST(TarGzWriter, LibarchiveAndGnuTarReadWhatItWrites) {
  fs::path path = scratch("a.tar.gz");
  std::string long_dir = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0/net";
  std::string long_name = long_dir + "/ens1f0np0/statistics/rx_bytes";
  std::string long_target = "../../../../" + std::string(120, 'x');
  std::string binary(
      "\0\x01\xff"
      "abc",
      6);
  std::string big(300000, 'z');
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    TarGzWriter tar(fd, 1700000000);
    ASSERT_TRUE(tar.addDirectory("sys"));
    ASSERT_TRUE(tar.addFile("sys/empty", ""));
    ASSERT_TRUE(tar.addFile("sys/binary", binary));
    ASSERT_TRUE(tar.addFile("sys/big", big));
    ASSERT_TRUE(tar.addFile(long_name, "12345\n"));
    ASSERT_TRUE(tar.addSymlink("sys/link", "../proc/self"));
    ASSERT_TRUE(tar.addSymlink("sys/far", long_target));
    ASSERT_TRUE(tar.finish());
    ::close(fd);
  }
  auto entries = readBack(path);
  ASSERT_EQ(entries.size(), 7u);
  EXPECT_EQ(entries["sys/"].type, 'd');
  EXPECT_EQ(entries["sys/empty"].content_or_target, "");
  EXPECT_EQ(entries["sys/binary"].content_or_target, binary);
  EXPECT_EQ(entries["sys/big"].content_or_target, big);
  EXPECT_EQ(entries[long_name].content_or_target, "12345\n");
  EXPECT_EQ(entries["sys/link"].type, 'l');
  EXPECT_EQ(entries["sys/link"].content_or_target, "../proc/self");
  EXPECT_EQ(entries["sys/far"].content_or_target, long_target);

  // GNU tar: the same names, no warning, and the mtime given.
  auto tar = railkit::testing::runProcess(
      railkit::testing::ProcessSpec({"tar", "-tzvf", path.string(), "--full-time"})
          .withTimeout(std::chrono::seconds(60)));
  const std::string& listing = tar.out;
  EXPECT_EQ(tar.status, 0) << listing << tar.err;
  EXPECT_EQ(tar.err, "");
  EXPECT_NE(listing.find(long_name), std::string::npos) << listing;
  EXPECT_NE(listing.find("sys/far -> " + long_target), std::string::npos) << listing;
  EXPECT_NE(listing.find("2023-11-14"), std::string::npos) << listing;
  EXPECT_EQ(listing.find("tar:"), std::string::npos) << listing;
  fs::remove_all(path.parent_path());
}

TEST(TarGzWriter, AWriteThatFailsIsAnError) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ::close(fds[0]);  // nobody reads: writes fail with EPIPE
  signal(SIGPIPE, SIG_IGN);
  TarGzWriter tar(fds[1], 0);
  railkit::Status st = tar.addFile("f", std::string(1 << 20, 'a'));
  if (st) st = tar.finish();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, railkit::ErrorCode::kIo);
  EXPECT_NE(st.error().message.find("cannot write"), std::string::npos) << st.error().message;
  ::close(fds[1]);
}

TEST(TarGzWriter, NothingAfterTheEnd) {
  int fd = ::open("/dev/null", O_WRONLY);
  ASSERT_GE(fd, 0);
  TarGzWriter tar(fd, 0);
  ASSERT_TRUE(tar.finish());
  EXPECT_FALSE(tar.addFile("late", "x"));
  ::close(fd);
}
