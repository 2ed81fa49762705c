// The two glibc functions newer than 2.34 that the static C++ runtime of
// Debian 12 (GCC 12 built on glibc 2.36) calls, given here in terms of older
// ones, so that the release binary runs on glibc 2.34 (Ubuntu 22.04, RHEL 9).
// The railkit executable is linked with -Wl,--wrap for both (deps/CMakeLists.txt):
// every call to arc4random or _dl_find_object, in libstdc++.a and
// libgcc_eh.a too, lands here instead.
//   arc4random (2.36): std::random_device's default source.
//   _dl_find_object (2.35): the unwinder's lookup of the .eh_frame_hdr of
//   the object holding a PC; without an answer no exception can be caught.
#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

namespace {

struct FindObject {
  std::uintptr_t pc;
  dl_find_object* result;
};

// dl_iterate_phdr's callback: 1 (stop) for the object one of whose PT_LOAD
// segments holds the PC, after filling in what _dl_find_object reports.
int findObject(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<FindObject*>(data);
  std::uintptr_t start = UINTPTR_MAX, end = 0;
  const void* eh_frame = nullptr;
  bool holds_pc = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    std::uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      if (search->pc >= begin && search->pc < begin + segment.p_memsz) holds_pc = true;
      if (begin < start) start = begin;
      if (begin + segment.p_memsz > end) end = begin + segment.p_memsz;
    } else if (segment.p_type == DLFO_EH_SEGMENT_TYPE) {
      eh_frame = reinterpret_cast<const void*>(begin);
    }
  }
  if (!holds_pc) return 0;
  *search->result = dl_find_object{};
  search->result->dlfo_map_start = reinterpret_cast<void*>(start);
  search->result->dlfo_map_end = reinterpret_cast<void*>(end);
  search->result->dlfo_eh_frame = const_cast<void*>(eh_frame);
  return 1;
}

}  // namespace

extern "C" {

std::uint32_t __wrap_arc4random() {
  std::uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  std::size_t got = 0;
  while (got < sizeof(value)) {
    ssize_t n = getrandom(bytes + got, sizeof(value) - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
    // getrandom (Linux 3.17) only fails here on a signal: try again.
    else if (n < 0 && errno != EINTR)
      break;
  }
  return value;
}

int __wrap__dl_find_object(void* pc, dl_find_object* result) {
  FindObject search{reinterpret_cast<std::uintptr_t>(pc), result};
  return dl_iterate_phdr(findObject, &search) == 1 ? 0 : -1;
}

}  // extern "C"
