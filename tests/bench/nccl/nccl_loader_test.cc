// Loading NCCL and the CUDA runtime with dlopen, without a GPU: the search
// order, the exact one-line error when nothing is found, and symbol
// resolution against FAKE libraries built by this test directory
// (fake_nccl.cc / fake_cudart.cc; they implement the C ABI on host memory).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "bench/nccl/nccl_api.h"

namespace fs = std::filesystem;
using railkit::bench::nccl::candidatePaths;
using railkit::bench::nccl::loadNccl;
using railkit::bench::nccl::ncclVersionText;

namespace {

const fs::path kFakes = RAILKIT_FAKE_NCCL_DIR;

bool realNcclOnLoaderPath() {
  void* h = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) h = dlopen("libnccl.so.2", RTLD_LAZY);
  return h != nullptr;
}

fs::path tempDir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("railkit-nccl-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(NcclLoader, CandidateOrderIsDirThenWheelLayoutThenLoader) {
  auto paths = candidatePaths("/opt/x/", "libnccl.so.2", {"nvidia/nccl/lib", "nvidia/cu13/lib"});
  ASSERT_EQ(paths.size(), 4u);
  EXPECT_EQ(paths[0], "/opt/x/libnccl.so.2");
  EXPECT_EQ(paths[1], "/opt/x/nvidia/nccl/lib/libnccl.so.2");
  EXPECT_EQ(paths[2], "/opt/x/nvidia/cu13/lib/libnccl.so.2");
  EXPECT_EQ(paths[3], "libnccl.so.2");  // bare name: the loader's own search
  auto bare = candidatePaths("", "libcudart.so.12", {"nvidia/cuda_runtime/lib"});
  EXPECT_EQ(bare, std::vector<std::string>{"libcudart.so.12"});
}

TEST(NcclLoader, MissingLibraryIsOneLineNamingEverythingSearched) {
  // Only under the directory, so the message is exact whatever the machine has installed.
  auto lib = loadNccl("/nonexistent/nccl", false);
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().code, railkit::ErrorCode::kUnavailable);
  EXPECT_EQ(
      lib.error().message,
      "nccl backend: cannot load libnccl.so.2 (searched /nonexistent/nccl/libnccl.so.2, "
      "/nonexistent/nccl/nvidia/nccl/lib/libnccl.so.2, /nonexistent/nccl/nvidia/cu13/lib/libnccl.so.2); "
      "install NCCL and the CUDA runtime or point --nccl-lib at their directory (a pip site-packages "
      "directory works)");
  EXPECT_EQ(lib.error().message.find('\n'), std::string::npos);
  if (realNcclOnLoaderPath()) return;
  auto full = loadNccl("/nonexistent/nccl");
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().message.find("/nonexistent/nccl/nvidia/cu13/lib/libnccl.so.2, the loader path);"),
            std::string::npos)
      << full.error().message;
}

TEST(NcclLoader, NcclPresentButCudaRuntimeMissingNamesTheRuntime) {
  fs::path dir = tempDir("nocuda");
  fs::copy_file(kFakes / "good" / "libnccl.so.2", dir / "libnccl.so.2");
  auto lib = loadNccl(dir.string(), false);
  ASSERT_FALSE(lib);
  // Every soname at one place before the next place.
  EXPECT_NE(lib.error().message.find("cannot load the CUDA runtime (libcudart.so.13/.12/.11.0) (searched " +
                                     (dir / "libcudart.so.13").string() + ", " +
                                     (dir / "nvidia/cuda_runtime/lib/libcudart.so.13").string() + ", "),
            std::string::npos)
      << lib.error().message;
  EXPECT_NE(lib.error().message.find((dir / "nvidia/cuda_runtime/lib/libcudart.so.12").string()),
            std::string::npos);
  EXPECT_NE(lib.error().message.find((dir / "libcudart.so.11.0").string()), std::string::npos);
  fs::remove_all(dir);
}

TEST(NcclLoader, NcclLibDirWinsOverTheLoaderPath) {
  // The fakes carry libcudart.so.12; a system libcudart.so.13 on the loader
  // path must not shadow the directory the user named.
  auto lib = loadNccl((kFakes / "good").string());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->cuda_path, (kFakes / "good" / "libcudart.so.12").string());
}

TEST(NcclLoader, LoaderPathAloneRealLibrariesResolveEverySymbol) {
  auto lib = loadNccl("");
  if (!realNcclOnLoaderPath()) {
    ASSERT_FALSE(lib);
    EXPECT_NE(lib.error().message.find("(searched the loader path)"), std::string::npos)
        << lib.error().message;
    return;
  }
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_GT((*lib)->version, 0);
  std::cout << "real " << ncclVersionText((*lib)->version) << " at " << (*lib)->nccl_path
            << ", CUDA runtime at " << (*lib)->cuda_path << "\n";
}

TEST(NcclLoader, FakeLibrariesResolveFromNcclLibDir) {
  auto lib = loadNccl((kFakes / "good").string());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->nccl_path, (kFakes / "good" / "libnccl.so.2").string());
  EXPECT_EQ((*lib)->cuda_path, (kFakes / "good" / "libcudart.so.12").string());
  EXPECT_EQ((*lib)->version, 22105);
  EXPECT_EQ(ncclVersionText((*lib)->version), "NCCL 2.21.5");
  // The table is usable: the fake's device count and a "device" round trip.
  int devices = 0;
  ASSERT_EQ((*lib)->cuda.getDeviceCount(&devices), 0);
  EXPECT_GE(devices, 1);
  void* d = nullptr;
  ASSERT_EQ((*lib)->cuda.malloc(&d, 16), 0);
  char in[16] = "railkit", out[16] = {};
  EXPECT_EQ((*lib)->cuda.memcpy(d, in, 16, railkit::bench::nccl::kCudaHostToDevice), 0);
  EXPECT_EQ((*lib)->cuda.memcpy(out, d, 16, railkit::bench::nccl::kCudaDeviceToHost), 0);
  EXPECT_STREQ(out, "railkit");
  (*lib)->cuda.free(d);
}

TEST(NcclLoader, PipWheelLayoutUnderNcclLibDir) {
  fs::path site = tempDir("wheel");
  fs::create_directories(site / "nvidia/nccl/lib");
  fs::create_directories(site / "nvidia/cuda_runtime/lib");
  fs::copy_file(kFakes / "good" / "libnccl.so.2", site / "nvidia/nccl/lib/libnccl.so.2");
  fs::copy_file(kFakes / "good" / "libcudart.so.12", site / "nvidia/cuda_runtime/lib/libcudart.so.12");
  auto lib = loadNccl(site.string());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->nccl_path, (site / "nvidia/nccl/lib/libnccl.so.2").string());
  EXPECT_EQ((*lib)->cuda_path, (site / "nvidia/cuda_runtime/lib/libcudart.so.12").string());
  // A library directly in DIR wins over the wheel layout below it.
  fs::copy_file(kFakes / "good" / "libnccl.so.2", site / "libnccl.so.2");
  auto flat = loadNccl(site.string());
  ASSERT_TRUE(flat) << flat.error().message;
  EXPECT_EQ((*flat)->nccl_path, (site / "libnccl.so.2").string());
  fs::remove_all(site);
}

TEST(NcclLoader, MissingSymbolIsNamed) {
  auto lib = loadNccl((kFakes / "nosend").string());
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message,
            "nccl backend: " + (kFakes / "nosend" / "libnccl.so.2").string() + " has no symbol ncclSend");
}

TEST(NcclLoader, VersionEncodings) {
  EXPECT_EQ(ncclVersionText(2708), "NCCL 2.7.8");    // before 2.9: MAJOR*1000+MINOR*100+PATCH
  EXPECT_EQ(ncclVersionText(22304), "NCCL 2.23.4");  // since 2.9: MAJOR*10000+MINOR*100+PATCH
  EXPECT_EQ(ncclVersionText(0), "NCCL (version unknown)");
}

}  // namespace
