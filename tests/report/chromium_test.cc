// Headless Chromium (Debian's `chromium`) renders reports of real inputs:
// the nccl-tests table of seed 001, a pairs run with a slow node, a validate
// run, and a 1024-node synthetic validate document. Each screenshot must have
// the window's size and not be blank, and the page must make no network
// request and log no console message. Chromium is pointed at a proxy this
// test listens on, so any request the page made would arrive here; a page
// that does load an image (and one that logs an error) checks the checks.
// Set RAILKIT_REPORT_SCREENSHOTS=DIR to keep the screenshots (docs/report/).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "cli/cli_run.h"
#include "png.h"
#include "report_test_util.h"
#include "synthetic.h"

namespace railkit::testing {
namespace {

constexpr int kWidth = 1280, kHeight = 2000;
// A page whose most common colour covers this share of the pixels is blank
// (a short report still draws on more than 1% of a 1280x2000 window).
constexpr double kBlank = 0.99;

// Records the first line of every connection made to it.
class RecordingProxy {
 public:
  RecordingProxy() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd_, 64) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      return;
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RecordingProxy() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  int port() const { return port_; }
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(requests_, {});
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      pollfd cp{c, POLLIN, 0};
      char buf[512] = {};
      ssize_t n = ::poll(&cp, 1, 2000) > 0 ? ::read(c, buf, sizeof buf - 1) : 0;
      ::close(c);
      std::string line(buf, n > 0 ? size_t(n) : 0);
      line = line.substr(0, line.find('\r'));
      std::lock_guard<std::mutex> lock(mutex_);
      requests_.push_back(line);
    }
  }
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<std::string> requests_;
};

// Chromium's own background services (time, component updates, sign-in) use
// the proxy too, whatever the flags; a page's request goes anywhere else.
bool chromiumService(const std::string& request) {
  for (const char* host : {"google.com", "googleapis.com", "gvt1.com", "gstatic.com"})
    if (request.find(std::string(host) + "/") != std::string::npos ||
        request.find(std::string(host) + ":") != std::string::npos)
      return true;
  return false;
}

struct Colours {
  size_t distinct = 0;
  double dominant = 1;  // the share of the pixels the most common colour covers
  uint32_t top = 0;     // that colour, 0xRRGGBB
  int luma() const { return int((top >> 16) * 299 + ((top >> 8) & 0xff) * 587 + (top & 0xff) * 114) / 1000; }
};

Colours colourStats(const Png& png) {
  std::map<uint32_t, size_t> colours;
  for (size_t i = 0; i + 2 < png.pixels.size(); i += png.channels)
    ++colours[(uint32_t(png.pixels[i]) << 16) | (uint32_t(png.pixels[i + 1]) << 8) | png.pixels[i + 2]];
  size_t most = 0;
  uint32_t top = 0;
  for (const auto& [c, n] : colours)
    if (n > most) most = n, top = c;
  return {colours.size(), png.pixels.empty() ? 1.0 : double(most) * png.channels / png.pixels.size(), top};
}

struct Render {
  int status = -1;
  Png png;
  std::vector<std::string> console;   // CONSOLE lines Chromium logged
  std::vector<std::string> requests;  // requests other than Chromium's own
};

class ReportChromium : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (runShell("command -v chromium").status != 0) missing_ = true;
  }
  void SetUp() override {
    if (missing_)
      GTEST_SKIP()
          << "chromium not installed (Debian package `chromium`; scripts/install-deps.sh installs it): "
             "page rendering not checked";
    ASSERT_GT(proxy_.port(), 0);
    dir_ = freshTestDir("railkit-report-chromium");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Chromium on `html`: a screenshot (`out` .png) or, with --print-to-pdf in
  // `mode`, a PDF; `mode` may also ask for the dark colour scheme.
  Render render(const std::filesystem::path& html, const std::string& name, const std::string& mode = "") {
    Render r;
    auto png = dir_ / (name + ".png");
    std::string output =
        mode.find("--print-to-pdf") != std::string::npos ? "" : "--screenshot=" + png.string();
    std::string command = fmt::format(
        "exec chromium {6} --headless --no-sandbox --disable-gpu --no-first-run --disable-sync "
        "--disable-background-networking --disable-component-update --user-data-dir={0}/profile "
        "--enable-logging=stderr --v=0 --proxy-server=http://127.0.0.1:{1} --proxy-bypass-list='<-loopback>' "
        "--window-size={2},{3} {4} file://{5}",
        dir_.string(), proxy_.port(), kWidth, kHeight, output, std::filesystem::absolute(html).string(),
        mode);
    auto chromium = runShell(command, 120);
    r.status = chromium.status;
    std::istringstream err(chromium.err);
    for (std::string line; std::getline(err, line);)
      if (line.find(":CONSOLE") != std::string::npos) r.console.push_back(line);
    if (!output.empty()) {
      std::ifstream in(png, std::ios::binary);
      r.png = decodePng({std::istreambuf_iterator<char>(in), {}});
    }
    // Chromium has exited: whatever the page asked for has reached the proxy.
    for (auto& req : proxy_.take())
      if (!chromiumService(req)) r.requests.push_back(req);
    if (const char* keep = std::getenv("RAILKIT_REPORT_SCREENSHOTS"); keep && !output.empty())
      std::filesystem::copy_file(png, std::filesystem::path(keep) / (name + ".png"),
                                 std::filesystem::copy_options::overwrite_existing);
    return r;
  }

  // railkit report INPUTS -o page.html, then Chromium, then the checks. The
  // inputs are copied beside the page so the page names them briefly.
  void checkReport(const std::vector<std::filesystem::path>& inputs, const std::string& name) {
    auto html = dir_ / (name + ".html");
    std::string names;
    for (const auto& in : inputs) {
      if (in.parent_path() != dir_)
        std::filesystem::copy_file(in, dir_ / in.filename(),
                                   std::filesystem::copy_options::overwrite_existing);
      names += " '" + in.filename().string() + "'";
    }
    ProcessResult run = runShell(fmt::format("cd '{}' && exec {} report{} -o {} --title 'railkit report: {}'",
                                             dir_.string(), railkitBinary(), names, html.string(), name));
    ASSERT_EQ(run.status, 0) << run.err;
    Render r = render(html, name);
    ASSERT_EQ(r.status, 0);
    ASSERT_TRUE(r.png.error.empty()) << r.png.error;
    EXPECT_EQ(r.png.width, uint32_t(kWidth));
    EXPECT_EQ(r.png.height, uint32_t(kHeight));
    // Not blank: many colours, and no single colour covering nearly all of it.
    Colours c = colourStats(r.png);
    EXPECT_GT(c.distinct, 32u);
    EXPECT_LT(c.dominant, kBlank);
    EXPECT_TRUE(r.requests.empty()) << r.requests.front();
    EXPECT_TRUE(r.console.empty()) << r.console.front();
  }

  static bool missing_;
  RecordingProxy proxy_;
  std::filesystem::path dir_;
};
bool ReportChromium::missing_ = false;

TEST_F(ReportChromium, TheChecksSeeARequestAConsoleErrorAndABlankPage) {
  auto page = dir_ / "loads.html";
  std::ofstream(page) << "<!DOCTYPE html><html><body><img src=\"http://railkit-report-test.invalid/x.png\">"
                         "<script>console.error('boom')</script></body></html>";
  Render r = render(page, "loads");
  ASSERT_EQ(r.status, 0);
  ASSERT_FALSE(r.requests.empty());
  // Any of them: Chromium may ask for something of its own first (seen once
  // in the sanitizer pass), and the check refuses every request anyway.
  EXPECT_TRUE(std::any_of(r.requests.begin(), r.requests.end(), [](const std::string& q) {
    return q.find("railkit-report-test.invalid") != std::string::npos;
  })) << r.requests.front();
  ASSERT_FALSE(r.console.empty());
  EXPECT_NE(r.console.front().find("boom"), std::string::npos);
  ASSERT_TRUE(r.png.error.empty()) << r.png.error;
  EXPECT_GE(colourStats(r.png).dominant,
            kBlank);  // blank but for a broken-image icon: what the check refuses
}

TEST_F(ReportChromium, NcclTestsTableOfSeed001) {
  RAILKIT_REQUIRE_SHARED();
  std::string seed;
  for (const auto& e : std::filesystem::directory_iterator(sharedDir() / "seeds"))
    if (e.path().filename().string().rfind("001", 0) == 0) seed = e.path().string();
  ASSERT_FALSE(seed.empty());
  checkReport({seed}, "nccl-tests-seed-001");
}

TEST_F(ReportChromium, PairsRunWithASlowNode) {
  auto pairs = readJson(reportFixture("bench-pairs-local4.json"));
  for (auto& l : pairs["pairs"]["links"])
    if (l["a"] == 2 || l["b"] == 2) {
      l["bw_gbps"] = l["bw_gbps"].get<double>() * 0.3;
      l["slow"] = true;
    }
  pairs["pairs"]["suspect_nodes"] = {
      {{"rank", 2}, {"host", "vm"}, {"address", "127.0.0.1"}, {"slow_links", 3}, {"links", 3}}};
  auto path = dir_ / "pairs-slow-node.json";
  std::ofstream(path) << pairs.dump();
  checkReport({path}, "pairs-slow-node");
}

// The validate run of tests/validate/validate_netns_test.sh broken, with a
// bench all_reduce overlaid on its collectives.
TEST_F(ReportChromium, ValidateRunOfTheNetnsTests) {
  checkReport({reportFixture("validate-netns-broken.json"), reportFixture("bench-all-reduce-local2.json")},
              "validate");
}

// The browser's dark scheme turns the page dark; printing gives a PDF of
// several pages (the charts and tables, not an empty sheet).
TEST_F(ReportChromium, FollowsDarkModeAndPrints) {
  auto html = dir_ / "page.html";
  ProcessResult run =
      runRailkit("report " + reportFixture("validate-netns-broken.json") + " -o " + html.string());
  ASSERT_EQ(run.status, 0) << run.err;
  Render light = render(html, "light");
  Render dark = render(html, "dark", "--force-dark-mode --blink-settings=preferredColorScheme=0");
  ASSERT_TRUE(light.png.error.empty() && dark.png.error.empty());
  EXPECT_GT(colourStats(light.png).luma(), 200);
  EXPECT_LT(colourStats(dark.png).luma(), 60);
  EXPECT_TRUE(dark.console.empty()) << dark.console.front();
  auto pdf = dir_ / "page.pdf";
  Render printed = render(html, "print", "--print-to-pdf=" + pdf.string() + " --no-pdf-header-footer");
  ASSERT_EQ(printed.status, 0);
  std::ifstream in(pdf, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(in), {}};
  ASSERT_EQ(bytes.rfind("%PDF-", 0), 0u) << pdf;
  EXPECT_GE(countOf(bytes, "/Type /Page\n") + countOf(bytes, "/Type /Page\r") +
                countOf(bytes, "/Type /Page/") + countOf(bytes, "/Type /Page>>") +
                countOf(bytes, "/Type /Page "),
            2u);
  EXPECT_GT(bytes.size(), 20000u);
}

TEST_F(ReportChromium, SyntheticValidateOf1024Nodes) {
  // Under the sanitizer build railkit parses 28 MB of JSON many times slower
  // than the 60 s the runner allows; 256 nodes take the same path there
  // (bars, not the matrix), and the normal build renders the 1024.
  int nodes = std::getenv("RAILKIT_SANITIZER_BUILD") ? 256 : 1024;
  auto path = dir_ / "validate-1024.json";
  std::ofstream(path) << syntheticValidate(nodes, 217).dump();
  checkReport({path}, "validate-1024-nodes");
}

}  // namespace
}  // namespace railkit::testing
