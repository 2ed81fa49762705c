// What the release binary calls in glibc, brought down to glibc 2.17: every
// symbol listed in glibc_floor.inc is wrapped (-Wl,--wrap, in every object
// the executable links, the static C++ runtime's too) and lands here.
//   - RAILKIT_GLIBC_OLD entries: a jump to the same function at its older
//     version (a compatibility symbol that the new glibc still exports).
//   - RAILKIT_GLIBC_NEW entries: written below with older functions.
// tests/dist/dist_portable_test.sh checks the result with objdump, and
// ship_container_bullseye runs the tarball's binary on Debian 11's glibc.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

#if !defined(__x86_64__)
#error \
    "glibc_compat.cc names x86_64's glibc symbol versions; build other machines with -DRAILKIT_PORTABLE=OFF"
#endif

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

// --- RAILKIT_GLIBC_OLD: jumps to the older version -------------------------
// A tail jump keeps every argument register and the stack as the caller
// left them, so one stub serves any signature (variadic and floating-point
// ones too). The .symver line turns the stub's reference into NAME@VERSION,
// which the linker resolves against the compatibility symbol; --wrap does not
// touch a versioned reference, so the jump does not come back here.
#define RAILKIT_GLIBC_NEW(name)
#define RAILKIT_GLIBC_OLD(name, version)                            \
  __asm__(".symver railkit_glibc_old_" #name ", " #name "@" version \
          "\n"                                                      \
          ".pushsection .text\n"                                    \
          ".globl __wrap_" #name                                    \
          "\n"                                                      \
          ".type __wrap_" #name                                     \
          ", @function\n"                                           \
          "__wrap_" #name                                           \
          ":\n"                                                     \
          "endbr64\n"                                               \
          "jmp railkit_glibc_old_" #name                            \
          "@PLT\n"                                                  \
          ".size __wrap_" #name ", .-__wrap_" #name                 \
          "\n"                                                      \
          ".popsection\n");
#include "glibc_floor.inc"
#undef RAILKIT_GLIBC_OLD
#undef RAILKIT_GLIBC_NEW

// --- RAILKIT_GLIBC_NEW: written with older functions -----------------------

// Older functions these are written with, named by their x86_64 version so
// that the declarations do not depend on what today's headers still declare.
#define RAILKIT_GLIBC_CALL(local, name, version) __asm__(".symver " #local ", " #name "@" version)
int railkit_glibc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                             void (*init)(int, char**, char**), void (*fini)(), void (*rtld_fini)(),
                             void* stack_end);
RAILKIT_GLIBC_CALL(railkit_glibc_start_main, __libc_start_main, "GLIBC_2.2.5");
int railkit_glibc_xstat(int, const char*, struct stat*);
RAILKIT_GLIBC_CALL(railkit_glibc_xstat, __xstat, "GLIBC_2.2.5");
int railkit_glibc_lxstat(int, const char*, struct stat*);
RAILKIT_GLIBC_CALL(railkit_glibc_lxstat, __lxstat, "GLIBC_2.2.5");
int railkit_glibc_fxstat(int, int, struct stat*);
RAILKIT_GLIBC_CALL(railkit_glibc_fxstat, __fxstat, "GLIBC_2.2.5");
int railkit_glibc_fxstatat(int, int, const char*, struct stat*, int);
RAILKIT_GLIBC_CALL(railkit_glibc_fxstatat, __fxstatat, "GLIBC_2.4");
int railkit_glibc_cond_timedwait(pthread_cond_t*, pthread_mutex_t*, const timespec*);
RAILKIT_GLIBC_CALL(railkit_glibc_cond_timedwait, pthread_cond_timedwait, "GLIBC_2.3.2");
#undef RAILKIT_GLIBC_CALL

// The executable's constructors. Since glibc 2.34, crt1.o passes no init
// function and __libc_start_main runs DT_INIT and DT_INIT_ARRAY itself; an
// older __libc_start_main runs only the init function it is given (glibc's
// old crt1.o passed __libc_csu_init, from libc_nonshared.a). Given this
// one, every glibc runs the constructors once: 2.34+ calls the init function
// instead of its own loop when there is one. DT_PREINIT_ARRAY is ld.so's job
// in both.
extern void (*__init_array_start[])(int, char**, char**) __attribute__((visibility("hidden")));
extern void (*__init_array_end[])(int, char**, char**) __attribute__((visibility("hidden")));
void _init();

static void railkit_run_constructors(int argc, char** argv, char** envp) {
  _init();
  for (auto* constructor = __init_array_start; constructor != __init_array_end; ++constructor)
    (*constructor)(argc, argv, envp);
}

int __wrap___libc_start_main(int (*main)(int, char**, char**), int argc, char** argv,
                             void (*)(int, char**, char**), void (*)(), void (*rtld_fini)(),
                             void* stack_end) {
  return railkit_glibc_start_main(main, argc, argv, railkit_run_constructors, nullptr, rtld_fini, stack_end);
}

// 2.33 made stat and friends real functions; before, <sys/stat.h> called
// __xstat and friends with the structure's version (1 on x86_64), where
// struct stat and struct stat64 are the same.
constexpr int kStatVersion = 1;
int __wrap_stat(const char* path, struct stat* buf) {
  return railkit_glibc_xstat(kStatVersion, path, buf);
}
int __wrap_stat64(const char* path, struct stat* buf) {
  return railkit_glibc_xstat(kStatVersion, path, buf);
}
int __wrap_lstat(const char* path, struct stat* buf) {
  return railkit_glibc_lxstat(kStatVersion, path, buf);
}
int __wrap_lstat64(const char* path, struct stat* buf) {
  return railkit_glibc_lxstat(kStatVersion, path, buf);
}
int __wrap_fstat(int fd, struct stat* buf) {
  return railkit_glibc_fxstat(kStatVersion, fd, buf);
}
int __wrap_fstat64(int fd, struct stat* buf) {
  return railkit_glibc_fxstat(kStatVersion, fd, buf);
}
int __wrap_fstatat(int dirfd, const char* path, struct stat* buf, int flags) {
  return railkit_glibc_fxstatat(kStatVersion, dirfd, path, buf, flags);
}
int __wrap_fstatat64(int dirfd, const char* path, struct stat* buf, int flags) {
  return railkit_glibc_fxstatat(kStatVersion, dirfd, path, buf, flags);
}

// libstdc++ skips atomic reference counting when this says the process has
// one thread. 0 ("maybe more than one") is right on every glibc; the cost is
// an atomic increment where a plain one would do.
char __wrap___libc_single_threaded = 0;

// std::condition_variable waits on the monotonic clock. Before 2.30 only
// pthread_cond_timedwait existed, on the condition's clock (realtime for a
// default condition, which is what libstdc++ makes): the deadline moves to
// that clock. A realtime clock step during the wait moves its end, as it did
// with every libstdc++ built before 2.30.
int __wrap_pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex, clockid_t clock,
                                  const timespec* deadline) {
  if (clock == CLOCK_REALTIME) return railkit_glibc_cond_timedwait(cond, mutex, deadline);
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  timespec now_monotonic{}, now_realtime{};
  clock_gettime(CLOCK_MONOTONIC, &now_monotonic);
  clock_gettime(CLOCK_REALTIME, &now_realtime);
  constexpr long kNanosPerSecond = 1000000000L;
  long long nanos = (static_cast<long long>(deadline->tv_sec) - now_monotonic.tv_sec) * kNanosPerSecond +
                    (deadline->tv_nsec - now_monotonic.tv_nsec);
  if (nanos < 0) nanos = 0;
  nanos += static_cast<long long>(now_realtime.tv_nsec);
  timespec realtime_deadline{};
  realtime_deadline.tv_sec = now_realtime.tv_sec + static_cast<time_t>(nanos / kNanosPerSecond);
  realtime_deadline.tv_nsec = static_cast<long>(nanos % kNanosPerSecond);
  return railkit_glibc_cond_timedwait(cond, mutex, &realtime_deadline);
}

// The system calls themselves (getrandom: Linux 3.17, renameat2: 3.15),
// with glibc's conventions: -1 and errno.
int __wrap_renameat2(int old_dir, const char* old_path, int new_dir, const char* new_path, unsigned flags) {
  return static_cast<int>(syscall(SYS_renameat2, old_dir, old_path, new_dir, new_path, flags));
}

ssize_t __wrap_getrandom(void* buffer, std::size_t length, unsigned flags) {
  return syscall(SYS_getrandom, buffer, length, flags);
}

// getentropy: all LENGTH bytes (at most 256) or -1, retrying after signals.
int __wrap_getentropy(void* buffer, std::size_t length) {
  if (length > 256) {
    errno = EIO;
    return -1;
  }
  auto* bytes = static_cast<unsigned char*>(buffer);
  std::size_t got = 0;
  while (got < length) {
    ssize_t n = __wrap_getrandom(bytes + got, length - got, 0);
    if (n > 0) {
      got += static_cast<std::size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      return -1;
    }
  }
  return 0;
}

std::uint32_t __wrap_arc4random() {
  std::uint32_t value = 0;
  // std::random_device has no way to report a failure here; getentropy only
  // fails without the system call (Linux before 3.17).
  __wrap_getentropy(&value, sizeof(value));
  return value;
}

int __wrap__dl_find_object(void* pc, dl_find_object* result) {
  FindObject search{reinterpret_cast<std::uintptr_t>(pc), result};
  return dl_iterate_phdr(findObject, &search) == 1 ? 0 : -1;
}

}  // extern "C"
