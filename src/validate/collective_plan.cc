// Phase 4's sizes from the slowest link (see collective_plan.h).
#include "validate/collective_plan.h"

#include <algorithm>
#include <cmath>

namespace railkit::validate {

double estimateSizeSeconds(const SweepRequest& r, std::uint64_t size, int iters, int warmup,
                           double link_gbps) {
  double bytes_per_run = 0;
  for (CollectiveOp op : r.ops) bytes_per_run += static_cast<double>(size) * busFactor(op, r.ranks);
  // Out of place and in place, each warm-up + timed + (checked) runs.
  double runs = 2.0 * (warmup + iters + (r.check ? 1 : 0));
  return runs * bytes_per_run * 8 / (link_gbps * 1e9);
}

CollectivePlan planCollectives(const SweepRequest& r, double link_gbps, double budget_seconds) {
  CollectivePlan plan{r.sizes, r.iters, r.warmup, 0, false};
  if (!(link_gbps > 0) || !std::isfinite(link_gbps) || r.sizes.empty() || r.ranks < 2) return plan;
  plan.sizes.clear();
  for (std::uint64_t size : r.sizes) {
    double t = estimateSizeSeconds(r, size, r.iters, r.warmup, link_gbps);
    if (plan.estimated_seconds + t > budget_seconds) break;
    plan.sizes.push_back(size);
    plan.estimated_seconds += t;
  }
  plan.capped = plan.sizes.size() < r.sizes.size();
  if (!plan.sizes.empty()) return plan;
  // Not even the smallest size fits: it alone, without warm-up, with as many
  // iterations as fit (at least one, so the link is still measured).
  std::uint64_t smallest = r.sizes.front();
  double per_run = estimateSizeSeconds(r, smallest, 1, 0, link_gbps) / (r.check ? 4 : 2);
  double fit = std::floor(budget_seconds / (2 * per_run)) - (r.check ? 1 : 0);
  plan.sizes = {smallest};
  plan.warmup = 0;
  plan.iters = static_cast<int>(std::clamp(fit, 1.0, static_cast<double>(r.iters)));
  plan.estimated_seconds = estimateSizeSeconds(r, smallest, plan.iters, 0, link_gbps);
  plan.capped = true;
  return plan;
}

std::string sizeText(std::uint64_t bytes) {
  constexpr std::uint64_t kMi = 1ull << 20, kKi = 1ull << 10;
  if (bytes >= kMi && bytes % kMi == 0) return std::to_string(bytes / kMi) + "M";
  if (bytes >= kKi && bytes % kKi == 0) return std::to_string(bytes / kKi) + "K";
  return std::to_string(bytes) + " bytes";
}

}  // namespace railkit::validate
