// The real UCX and Open MPI of this machine (Debian's libucx0 and
// libopenmpi3) through the loaders: every symbol resolves, the versions are
// accepted, and the loader path names the files it found. In a process of
// its own: a FAKE loaded earlier under the same soname would answer instead
// (bench_dlopen_tests). Skipped where the library is not installed.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <iostream>

#ifdef RAILKIT_HAVE_UCX
#include "bench/ucx/ucx_api.h"
#endif
#ifdef RAILKIT_HAVE_MPI
#include "bench/mpi/mpi_api.h"
#endif

namespace {

bool installed(const char* soname) {
  void* h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
  return h != nullptr;
}

#ifdef RAILKIT_HAVE_UCX
TEST(RealUcx, LoaderPathResolvesEverySymbolAndAnInitWorks) {
  if (!installed("libucp.so.0")) GTEST_SKIP() << "libucp.so.0 is not installed";
  auto lib = railkit::bench::ucx::loadUcx("");
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->ucp_path.front(), '/') << (*lib)->ucp_path;
  EXPECT_NE((*lib)->ucp_path.find("libucp.so.0"), std::string::npos) << (*lib)->ucp_path;
  EXPECT_EQ((*lib)->major, unsigned{UCP_API_MAJOR});
  EXPECT_GE((*lib)->minor, unsigned{UCP_API_MINOR});
  std::cout << "UCX " << (*lib)->major << "." << (*lib)->minor << "." << (*lib)->release << " at "
            << (*lib)->ucp_path << " and " << (*lib)->ucs_path << "\n";
  // The table drives the library: a context up and down, as the backend opens it.
  const auto& ucp = (*lib)->ucp;
  ucp_config_t* config = nullptr;
  ASSERT_EQ(ucp.config_read(nullptr, nullptr, &config), UCS_OK);
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_TAG;
  ucp_context_h context = nullptr;
  ucs_status_t st = (*lib)->init(&params, config, &context);
  ucp.config_release(config);
  ASSERT_EQ(st, UCS_OK) << (*lib)->statusText(st);
  ucp.cleanup(context);
  EXPECT_STREQ((*lib)->statusText(UCS_ERR_NO_MEMORY), "Out of memory");
}

TEST(RealUcx, TheSystemDirectoryAsUcxLib) {
  if (!installed("libucp.so.0")) GTEST_SKIP() << "libucp.so.0 is not installed";
  auto found = railkit::bench::ucx::loadUcx("");
  ASSERT_TRUE(found) << found.error().message;
  std::string dir = (*found)->ucp_path.substr(0, (*found)->ucp_path.rfind('/'));
  auto lib = railkit::bench::ucx::loadUcx(dir, false);
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->ucp_path, dir + "/libucp.so.0");
}
#endif

#ifdef RAILKIT_HAVE_MPI
TEST(RealMpi, LoaderPathResolvesEverySymbolAndHandle) {
  if (!installed("libmpi.so.40")) GTEST_SKIP() << "libmpi.so.40 is not installed";
  auto lib = railkit::bench::mpi::loadMpi("");
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->path.front(), '/') << (*lib)->path;
  EXPECT_EQ((*lib)->version.rfind("Open MPI v", 0), 0u) << (*lib)->version;
  EXPECT_NE((*lib)->handles.comm_world, nullptr);
  EXPECT_NE((*lib)->handles.int_type, nullptr);
  EXPECT_NE((*lib)->handles.char_type, nullptr);
  EXPECT_NE((*lib)->handles.errors_return, nullptr);
  std::cout << (*lib)->version << " at " << (*lib)->path << "\n";
  // Callable before MPI_Init (as MPI allows): the table is the library's.
  int flag = 1;
  EXPECT_EQ((*lib)->mpi.initialized(&flag), MPI_SUCCESS);
  EXPECT_EQ(flag, 0);
  std::string dir = (*lib)->path.substr(0, (*lib)->path.rfind('/'));
  auto again = railkit::bench::mpi::loadMpi(dir, false);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->path, dir + "/libmpi.so.40");
}
#endif

}  // namespace
