#pragma once
// Writes a gzip-compressed POSIX tar (pax) archive of directories, regular
// files and symbolic links to an open file descriptor: what `snapshot -o
// FILE.tar.gz` needs, and nothing more. libarchive still reads snapshots;
// its writer is not used because its format table drags every writer it
// has (7-Zip, XAR, mtree...) and their libraries into the static binary.
// Names and link targets too long for the ustar header get a pax extended
// header, as GNU tar and libarchive write them.

#include <zlib.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit::model {

class TarGzWriter {
 public:
  // Does not own `fd`. Every entry gets `mtime`.
  TarGzWriter(int fd, std::time_t mtime);
  ~TarGzWriter();
  TarGzWriter(const TarGzWriter&) = delete;
  TarGzWriter& operator=(const TarGzWriter&) = delete;

  Status addDirectory(std::string_view name);
  Status addFile(std::string_view name, std::string_view content);
  Status addSymlink(std::string_view name, std::string_view target);
  // The end-of-archive blocks and the gzip trailer; nothing may follow.
  Status finish();

 private:
  Status addEntry(char type, std::string_view name, std::string_view link, std::uint32_t mode,
                  std::string_view content);
  Status write(const void* data, std::size_t size);
  Status pad(std::size_t size);
  Status deflateOut(int flush);

  int fd_;
  std::time_t mtime_;
  z_stream zs_{};
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace railkit::model
