// The UCX and MPI loaders against FAKE libraries built by this directory
// (fake_ucp.cc, fake_ucs.cc, fake_mpi.cc): the search order, the exact
// one-line errors (nothing found, a file that is not a library, a missing
// symbol, a refused version) and, for MPI, a one-rank bootstrap through the
// loaded table. Directories only (`loader_path` false) where the message must
// not depend on what the machine has installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "bench/bootstrap.h"
#include "bench/dl_open.h"
#ifdef RAILKIT_HAVE_UCX
#include "bench/ucx/ucx_api.h"
#endif
#ifdef RAILKIT_HAVE_MPI
#include "bench/mpi/mpi_api.h"
#endif

namespace fs = std::filesystem;

namespace {

const fs::path kFakes = RAILKIT_DLOPEN_FAKES;

fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("railkit-dlopen-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(DlOpen, SearchOrderIsDirThenLoaderPathVersionedFirst) {
  using railkit::bench::dl::searchOrder;
  EXPECT_EQ(searchOrder("/opt/hpcx/ucx/lib/", {"libucp.so.0", "libucp.so"}, true),
            (std::vector<std::string>{"/opt/hpcx/ucx/lib/libucp.so.0", "/opt/hpcx/ucx/lib/libucp.so",
                                      "libucp.so.0", "libucp.so"}));
  EXPECT_EQ(searchOrder("/x", {"libmpi.so.40", "libmpi.so"}, false),
            (std::vector<std::string>{"/x/libmpi.so.40", "/x/libmpi.so"}));
  EXPECT_EQ(searchOrder("", {"libmpi.so.40", "libmpi.so"}, true),
            (std::vector<std::string>{"libmpi.so.40", "libmpi.so"}));
}

TEST(DlOpen, AFileThatIsNotALibraryIsShownWithTheLoadersComplaint) {
  fs::path dir = tempDir("notelf");
  std::ofstream(dir / "libfoo.so.1") << "not a library\n";
  auto r =
      railkit::bench::dl::openFirst(dir.string(), {"libfoo.so.1", "libfoo.so"}, false, RTLD_NOW | RTLD_LOCAL,
                                    {"foo backend", "libfoo.so.1", "install foo"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "foo backend: cannot load libfoo.so.1 (searched " +
                                   (dir / "libfoo.so.1").string() + ", " + (dir / "libfoo.so").string() +
                                   "): " + (dir / "libfoo.so.1").string() + ": file too short; install foo");
  fs::remove_all(dir);
}

#ifdef RAILKIT_HAVE_UCX
using railkit::bench::ucx::loadUcx;

const std::string kUcxHint = "; install UCX or point --ucx-lib (RAILKIT_UCX_LIB) at its directory";

TEST(UcxLoader, NothingInTheDirectoryIsOneLineNamingEveryPath) {
  auto lib = loadUcx("/nonexistent/ucx", false);
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, railkit::ErrorCode::kUnavailable);
  EXPECT_EQ(lib.error().message,
            "ucx backend: cannot load libucs.so.0 (searched /nonexistent/ucx/libucs.so.0, "
            "/nonexistent/ucx/libucs.so)" +
                kUcxHint);
}

TEST(UcxLoader, LibucsWithoutLibucpNamesLibucp) {
  fs::path dir = tempDir("ucs-only");
  fs::copy_file(kFakes / "ucx-good" / "libucs.so.0", dir / "libucs.so.0");
  auto lib = loadUcx(dir.string(), false);
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message, "ucx backend: cannot load libucp.so.0 (searched " +
                                     (dir / "libucp.so.0").string() + ", " + (dir / "libucp.so").string() +
                                     ")" + kUcxHint);
  fs::remove_all(dir);
}

TEST(UcxLoader, DirectoryWinsOverTheLoaderPath) {
  // The machine's own UCX (Debian's, on the loader path) must not shadow the one named.
  auto lib = loadUcx((kFakes / "ucx-good").string());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->ucp_path, (kFakes / "ucx-good" / "libucp.so.0").string());
  EXPECT_EQ((*lib)->ucs_path, (kFakes / "ucx-good" / "libucs.so.0").string());
  EXPECT_EQ((*lib)->major, 1u);
  EXPECT_EQ((*lib)->minor, 99u);
  EXPECT_STREQ((*lib)->statusText(UCS_OK), "Success");
}

TEST(UcxLoader, UnversionedNamesAreTheFallback) {
  fs::path dir = tempDir("unversioned");
  fs::copy_file(kFakes / "ucx-good" / "libucs.so.0", dir / "libucs.so");
  fs::copy_file(kFakes / "ucx-good" / "libucp.so.0", dir / "libucp.so");
  auto lib = loadUcx(dir.string(), false);
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->ucp_path, (dir / "libucp.so").string());
  EXPECT_EQ((*lib)->ucs_path, (dir / "libucs.so").string());
  fs::remove_all(dir);
}

TEST(UcxLoader, MissingSymbolIsNamed) {
  auto lib = loadUcx((kFakes / "ucx-noprobe").string(), false);
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message, "ucx backend: " + (kFakes / "ucx-noprobe" / "libucp.so.0").string() +
                                     " has no symbol ucp_tag_probe_nb");
}

TEST(UcxLoader, OlderMinorOrOtherMajorIsRefused) {
  const std::string built = std::to_string(UCP_API_MAJOR) + "." + std::to_string(UCP_API_MINOR);
  const std::string wants = "this railkit was built with the UCX " + built + " headers and needs UCX " +
                            built + " or a later " + std::to_string(UCP_API_MAJOR) + ".x" + kUcxHint;
  auto old = loadUcx((kFakes / "ucx-old").string(), false);
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().code, railkit::ErrorCode::kUnavailable);
  EXPECT_EQ(old.error().message,
            "ucx backend: " + (kFakes / "ucx-old" / "libucp.so.0").string() + " is UCX 1.9.0, but " + wants);
  auto major = loadUcx((kFakes / "ucx-major").string(), false);
  ASSERT_FALSE(major);
  EXPECT_EQ(major.error().message, "ucx backend: " + (kFakes / "ucx-major" / "libucp.so.0").string() +
                                       " is UCX 2.0.0, but " + wants);
}

TEST(UcxLoader, VersionRule) {
  using railkit::bench::ucx::checkUcxVersion;
  EXPECT_TRUE(checkUcxVersion("x", UCP_API_MAJOR, UCP_API_MINOR, 0));
  EXPECT_TRUE(checkUcxVersion("x", UCP_API_MAJOR, UCP_API_MINOR + 5, 2));
  EXPECT_FALSE(checkUcxVersion("x", UCP_API_MAJOR + 1, 0, 0));
  if (UCP_API_MINOR > 0) {
    EXPECT_FALSE(checkUcxVersion("x", UCP_API_MAJOR, UCP_API_MINOR - 1, 9));
  }
}
#endif  // RAILKIT_HAVE_UCX

#ifdef RAILKIT_HAVE_MPI
using railkit::bench::mpi::loadMpi;

const std::string kMpiHint =
    "; install Open MPI (or HPC-X) or point --mpi-lib (RAILKIT_MPI_LIB) at its directory";

TEST(MpiLoader, NothingInTheDirectoryIsOneLineNamingEveryPath) {
  auto lib = loadMpi("/nonexistent/mpi/", false);
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, railkit::ErrorCode::kUnavailable);
  EXPECT_EQ(lib.error().message,
            "mpi bootstrap: cannot load libmpi.so.40 (searched /nonexistent/mpi/libmpi.so.40, "
            "/nonexistent/mpi/libmpi.so)" +
                kMpiHint);
}

TEST(MpiLoader, DirectoryWinsAndHandlesAreTheLibrarysObjects) {
  auto lib = loadMpi((kFakes / "mpi-good").string());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->path, (kFakes / "mpi-good" / "libmpi.so.40").string());
  EXPECT_EQ((*lib)->version,
            "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022");
  // MPI_COMM_WORLD & co. are the addresses of the library's own objects.
  void* h = dlopen((kFakes / "mpi-good" / "libmpi.so.40").c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(static_cast<void*>((*lib)->handles.comm_world), dlsym(h, "ompi_mpi_comm_world"));
  EXPECT_EQ(static_cast<void*>((*lib)->handles.int_type), dlsym(h, "ompi_mpi_int"));
  EXPECT_EQ(static_cast<void*>((*lib)->handles.char_type), dlsym(h, "ompi_mpi_char"));
  EXPECT_EQ(static_cast<void*>((*lib)->handles.errors_return), dlsym(h, "ompi_mpi_errors_return"));
  // Open MPI's plugins need libmpi's symbols in the global scope.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"), dlsym(h, "ompi_mpi_comm_world"));
  dlclose(h);  // drops the NOLOAD reference only
}

TEST(MpiLoader, MissingSymbolIsNamed) {
  auto lib = loadMpi((kFakes / "mpi-nobarrier").string(), false);
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message, "mpi bootstrap: " + (kFakes / "mpi-nobarrier" / "libmpi.so.40").string() +
                                     " has no symbol MPI_Barrier");
}

TEST(MpiLoader, AnotherMpiOrAnOlderOpenMpiIsRefused) {
  auto mpich = loadMpi((kFakes / "mpi-mpich").string(), false);
  ASSERT_FALSE(mpich);
  EXPECT_EQ(mpich.error().message,
            "mpi bootstrap: " + (kFakes / "mpi-mpich" / "libmpi.so.40").string() +
                " is not Open MPI 3.x to 5.x (it says 'MPICH Version:\t4.0.2'); railkit "
                "uses Open MPI's ABI (libmpi.so.40, as in HPC-X)" +
                kMpiHint);
  auto old = loadMpi((kFakes / "mpi-old").string(), false);
  ASSERT_FALSE(old);
  EXPECT_NE(
      old.error().message.find("is not Open MPI 3.x to 5.x (it says 'Open MPI v2.1.1, package: Open MPI "
                               "builder Distribution, ident: 2.1.1')"),
      std::string::npos)
      << old.error().message;
}

TEST(MpiLoader, VersionRule) {
  using railkit::bench::mpi::checkMpiLibraryVersion;
  EXPECT_TRUE(checkMpiLibraryVersion("x", "Open MPI v3.1.6, package: Open MPI"));
  EXPECT_TRUE(checkMpiLibraryVersion("x", "Open MPI v4.1.5rc2, package: Open MPI root@hpcx Distribution"));
  EXPECT_TRUE(checkMpiLibraryVersion("x", "Open MPI v5.0.3, package: Open MPI"));
  EXPECT_FALSE(checkMpiLibraryVersion("x", "Open MPI v6.0.0"));
  EXPECT_FALSE(checkMpiLibraryVersion("x", "Open MPI v"));
  EXPECT_FALSE(checkMpiLibraryVersion("x", "Intel(R) MPI Library 2021.10 for Linux* OS"));
  EXPECT_FALSE(checkMpiLibraryVersion("x", ""));
  EXPECT_NE(checkMpiLibraryVersion("/l", "").error().message.find("(it says 'nothing')"), std::string::npos);
}

TEST(MpiLoader, OneRankBootstrapGoesThroughTheLoadedLibrary) {
  railkit::bench::BootstrapOptions options;
  options.mpi_lib_dir = (kFakes / "mpi-good").string();
  auto boot = railkit::bench::makeMpiBootstrap(options);
  ASSERT_TRUE(boot) << boot.error().message;
  EXPECT_STREQ((*boot)->kind(), "mpi");
  EXPECT_EQ((*boot)->rank(), 0);
  EXPECT_EQ((*boot)->size(), 1);
  auto all = (*boot)->allgather("card of rank 0");
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(*all, std::vector<std::string>{"card of rank 0"});
  auto gathered = (*boot)->gather("pid 1");
  ASSERT_TRUE(gathered) << gathered.error().message;
  EXPECT_EQ(*gathered, std::vector<std::string>{"pid 1"});
  EXPECT_TRUE((*boot)->barrier());
}
#endif  // RAILKIT_HAVE_MPI

}  // namespace
