#include "exporter/cache.h"

#include "doctor/rule.h"
#include "exporter/metrics.h"

namespace railkit::exporter {

Result<std::unique_ptr<MetricsCache>> MetricsCache::start(FileRoot root, CacheOptions options) {
  options.pods_options.budget = options.interval;
  std::unique_ptr<MetricsCache> cache(new MetricsCache(std::move(root), std::move(options)));
  if (auto st = cache->refresh(); !st) return tl::unexpected(st.error());
  cache->thread_ = std::thread([c = cache.get()] { c->loop(); });
  return cache;
}

MetricsCache::~MetricsCache() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string MetricsCache::text() const {
  return *sharedText();
}

std::shared_ptr<const std::string> MetricsCache::sharedText() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return text_;
}

Status MetricsCache::refresh() {
  auto begin = std::chrono::steady_clock::now();
  auto reading = readNode(root_);
  if (!reading) return tl::unexpected(reading.error());
  read_errors_total_ += reading->read_errors;
  if (options_.pods) readPodsInto(*reading);
  if (!last_doctor_ || begin - *last_doctor_ >= options_.doctor_interval) {
    findings_ = doctor::runRules(doctor::DoctorInput{reading->inventory});
    last_doctor_ = begin;
  }
  ExporterStats stats;
  stats.read_errors_total = read_errors_total_;
  stats.pod_netns_errors_total = pod_netns_errors_total_;
  stats.scrape_duration_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  auto text = std::make_shared<const std::string>(renderMetrics(*reading, findings_, stats));
  std::lock_guard<std::mutex> lock(mutex_);
  text_ = std::move(text);
  return okStatus();
}

void MetricsCache::readPodsInto(NodeReading& reading) {
  PodsOptions pods = options_.pods_options;
  pods.netns_shared = reading.inventory.rdma_netns_shared;
  reading.pods = readPods(root_, pods);
  pod_netns_errors_total_ += reading.pods->errors;
  auto tell = [&](bool& told, const std::string& line) {
    if (told || line.empty()) return;
    told = true;
    if (options_.notice) options_.notice(line);
  };
  // Once each: the state rarely changes, and the metrics carry it anyway
  // (railkit_exporter_pods_supported, railkit_exporter_pod_netns_errors_total).
  if (!reading.pods->unsupported.empty())
    tell(told_pods_unsupported_,
         "--pods: no per-pod RDMA counters: " + reading.pods->unsupported + "; serving everything else");
  tell(told_pod_error_, reading.pods->first_error.empty()
                            ? ""
                            : "--pods: " + reading.pods->first_error +
                                  " (counted in railkit_exporter_pod_netns_errors_total; "
                                  "only the first is told)");
}

void MetricsCache::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (wake_.wait_for(lock, options_.interval, [this] { return stop_; })) break;
    lock.unlock();
    // A root that vanished keeps the last text: Prometheus then sees the
    // values stop moving rather than the target disappear.
    Status outcome = refresh();
    if (options_.after_reading) options_.after_reading(outcome);
    lock.lock();
  }
}

}  // namespace railkit::exporter
