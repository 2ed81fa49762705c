#pragma once
// Reading a .tar.gz snapshot that may have been written by anyone.
//
// railkit runs as root and snapshots are files people pass around, so the
// archive is hostile until proven otherwise. Extraction goes through a
// TreeWriter (core/tree_writer.h): nothing is ever created outside the
// destination directory, no entry is written through a symlink, and no name
// is written twice. What a snapshot may hold:
//   - directories, regular files, symlinks (kept as links with their raw
//     targets; FileRoot resolves them inside the root, never on this machine);
//   - device nodes, FIFOs and sockets become empty regular files: readers
//     only ask whether /dev/infiniband/uverbs0 exists, and an empty file can
//     neither block nor stream.
// Refused, with one line naming the entry: absolute names, "..", a name
// below a symlink or a file, a second entry for an existing name (other than
// a directory again), hard links, entries of unknown type, and anything past
// the limits below. Garbage is refused too: a file that is not gzip, a gzip
// that holds no tar, a truncated archive, and an archive with no files (all
// NULs read as an empty tar).

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/result.h"

namespace railkit::model {

// What a snapshot can reasonably hold. `railkit snapshot` of a DGX H100 node
// is ~450 entries and ~2 MiB: sysfs attributes are at most a page, the
// largest files are PCI config space (4 KiB) and /proc/self/mountinfo (tens
// of KiB on a busy host). The limits leave two orders of magnitude for a
// `tar czf` of a whole /sys/class tree while keeping a hostile archive from
// filling the disk (a 6 MB gzip of zeros is 6 GB).
struct ArchiveLimits {
  // Per regular file; FileRoot never reads more than 4 MiB of one file.
  std::uint64_t max_entry_bytes = 16u << 20;
  // Sum of all regular files.
  std::uint64_t max_total_bytes = 256u << 20;
  // Every header counts (directories and links too); the whole of a large
  // server's /sys is ~100k entries.
  std::size_t max_entries = 200000;
  // Entry names and symlink targets: the kernel's PATH_MAX.
  std::size_t max_path_bytes = 4096;
  // Components in one name; sysfs PCI device paths are ~15 deep.
  std::size_t max_depth = 128;
};

struct ExtractStats {
  std::size_t entries = 0;  // headers read
  std::size_t files = 0;    // regular files and special files made empty
  std::size_t links = 0;
  std::size_t dirs = 0;
  std::uint64_t bytes = 0;
};

// Checks the first bytes of the regular file `fd` (from offset 0): gzip magic,
// or an error saying what the file is instead ("a file of NUL bytes", "an
// empty file", "not gzip-compressed"). `label` starts the message
// ("--root x.tar.gz"). Leaves the offset at 0.
Status checkGzipMagic(int fd, const std::string& label);

// Extracts the gzip-compressed tar read from `fd` into `dest`, an existing
// empty directory. Errors (kInvalidInput for the archive's faults, kIo for
// the OS's) start with `label`; an interrupt (core/interrupt.h) is an error.
// On error `dest` may hold part of the archive: the caller removes it.
Result<ExtractStats> extractSnapshotArchive(int fd, const std::string& dest, const std::string& label,
                                            const ArchiveLimits& limits = {});

}  // namespace railkit::model
