#include "bench/p2p.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace railkit::bench {
namespace {

using SteadyClock = std::chrono::steady_clock;
const char* kRule =
    "---------------------------------------------------------------------------------------\n";

}  // namespace

std::string formatBwRow(std::uint64_t bytes, std::uint64_t iters, double peak, double avg, double mpps) {
  return fmt::format(" {:<7}    {:<7}          {:<7.2f}            {:<7.2f}            {:<7.6f}\n", bytes,
                     iters, peak, avg, mpps);
}

Result<nlohmann::json> runP2p(Transport& t, const P2pOptions& o, std::ostream* text) {
  if (t.size() < 2) return makeError(ErrorCode::kUsage, "p2p needs at least 2 ranks");
  nlohmann::json rows = nlohmann::json::array();
  if (t.rank() > 1) return t.barrier().map([&] { return nlohmann::json{}; });
  int peer = 1 - t.rank();
  std::vector<char> buf(std::max<std::uint64_t>(o.max_bytes, 2), 1);
  char ack = 0;
  if (text)
    *text << kRule << " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n";
  for (std::uint64_t size = 2; size <= o.max_bytes; size *= 2) {
    int iters =
        static_cast<int>(std::max<std::uint64_t>(5, std::min<std::uint64_t>(o.iters, (256ull << 20) / size)));
    auto start = SteadyClock::now();
    std::vector<RequestId> ids;
    for (int i = 0; i < iters; ++i) {
      auto id = t.rank() == 0 ? t.postSend(peer, buf.data(), size) : t.postRecv(peer, buf.data(), size);
      if (!id) return tl::unexpected(id.error());
      ids.push_back(*id);
    }
    if (auto s = t.waitAll(ids); !s) return tl::unexpected(s.error());
    // The receiver's ack closes the interval: bytes counted were delivered.
    auto s = t.rank() == 0 ? sendRecv(t, peer, nullptr, 0, peer, &ack, 1)
                           : sendRecv(t, peer, &ack, 1, peer, nullptr, 0);
    if (!s) return tl::unexpected(s.error());
    double secs = std::chrono::duration<double>(SteadyClock::now() - start).count();
    double gbps = static_cast<double>(size) * iters * 8 / secs / 1e9;
    double mpps = iters / secs / 1e6;
    if (text) *text << formatBwRow(size, static_cast<std::uint64_t>(iters), gbps, gbps, mpps) << std::flush;
    rows.push_back({{"bytes", size}, {"iterations", iters}, {"bw_avg_gbps", gbps}, {"msg_rate_mpps", mpps}});
  }
  if (text) *text << kRule;
  std::vector<double> lat;
  char ping[2] = {0, 0};
  for (int i = 0; i < o.lat_iters; ++i) {
    auto start = SteadyClock::now();
    Status s = t.rank() == 0 ? sendRecv(t, peer, ping, 2, peer, ping, 2) : Status{};
    if (t.rank() == 1) {
      s = sendRecv(t, peer, nullptr, 0, peer, ping, 2);
      if (s) s = sendRecv(t, peer, ping, 2, peer, nullptr, 0);
    }
    if (!s) return tl::unexpected(s.error());
    lat.push_back(std::chrono::duration<double, std::micro>(SteadyClock::now() - start).count() / 2);
  }
  std::sort(lat.begin(), lat.end());
  double sum = 0, sq = 0;
  for (double v : lat) sum += v;
  double avg = sum / static_cast<double>(lat.size());
  for (double v : lat) sq += (v - avg) * (v - avg);
  auto pct = [&](double p) {
    return lat[std::min(lat.size() - 1, static_cast<std::size_t>(p * static_cast<double>(lat.size())))];
  };
  double stdev = std::sqrt(sq / static_cast<double>(lat.size()));
  if (text) {
    *text << " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
             "t_stdev[usec]   99% "
             "percentile[usec]   99.9% percentile[usec]\n"
          << fmt::format(
                 " {:<7} {:<7}       {:<7.2f}        {:<7.2f}     {:<7.2f}            {:<7.2f}        "
                 "{:<7.2f}  "
                 "       {:<7.2f}                {:<7.2f}\n",
                 2, lat.size(), lat.front(), lat.back(), pct(0.5), avg, stdev, pct(0.99), pct(0.999))
          << kRule << std::flush;
  }
  if (auto s = t.barrier(); !s) return tl::unexpected(s.error());
  return nlohmann::json{{"bandwidth", rows},
                        {"latency_us",
                         {{"min", lat.front()},
                          {"max", lat.back()},
                          {"typical", pct(0.5)},
                          {"avg", avg},
                          {"stdev", stdev},
                          {"p99", pct(0.99)},
                          {"p999", pct(0.999)}}}};
}

}  // namespace railkit::bench
