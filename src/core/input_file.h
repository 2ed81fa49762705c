#pragma once
// Reading a file the user names on the command line (a manifest, a profile, a
// hostfile, an hwloc XML, a schema). Such a path may be anything: a FIFO that
// never gets a writer, /dev/zero, /dev/urandom, a directory, a 10 GB file. A
// command that expects a file must not hang or eat the machine's memory on
// it, so every such read goes through here: the type is checked first (a
// regular file, or standard input only where the caller allows "-"), the file
// is opened without blocking, and at most `max_bytes` are read. Anything else
// is an error value that names the path, what was expected and what was found.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"

namespace railkit {

struct InputFileOptions {
  // What the file is, for messages: "manifest", "profile", "hostfile"; empty
  // for the path alone.
  std::string what = "file";
  // Larger inputs are refused (kInvalidInput), never truncated silently.
  std::size_t max_bytes = 16u << 20;
  // "-" reads standard input (a pipe, as cat does), still capped.
  bool allow_stdin = false;
};

// Opens a named input for a reader that streams it (logs): the same open
// without blocking and the same type check as readInputFile, no size cap.
// "-" is not handled here. The descriptor is blocking again, close-on-exec,
// and the caller's to close.
Result<int> openInputFile(const std::string& path, const InputFileOptions& options);

// The whole file as text. kNotFound when absent, kInvalidInput for a
// directory, FIFO, device, socket or an over-size file, kIo when the OS refuses.
Result<std::string> readInputFile(const std::string& path, const InputFileOptions& options);

// A short name for a file type found by stat ("a directory", "a FIFO", "a
// character device", ...), for "expected a regular file, found ..." messages.
std::string describeFileType(unsigned mode);

// "16 MiB", "512 KiB", "100 bytes".
std::string formatByteLimit(std::size_t bytes);

}  // namespace railkit
