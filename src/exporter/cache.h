#pragma once
// MetricsCache: the /metrics text, refreshed in the background.
//
// A scrape must never wait on sysfs (a hung driver can make a read block) nor
// make the exporter read more often than asked. So one refresher thread reads
// the node every `interval`, runs the doctor rules at most every
// `doctor_interval` (on the newest reading), renders the whole text and swaps
// it in under a mutex; a scrape only copies the last text. The first reading
// is done in start(), before anyone can scrape.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/file_root.h"
#include "core/finding.h"
#include "core/result.h"
#include "exporter/pods.h"

namespace railkit::exporter {

struct NodeReading;  // exporter/metrics.h

struct CacheOptions {
  std::chrono::milliseconds interval{15000};
  std::chrono::milliseconds doctor_interval{60000};
  // --pods: per-pod RDMA counters (exporter/pods.h). `pods.budget` is set
  // to `interval` by start().
  bool pods = false;
  PodsOptions pods_options;
  // Hears one line for each thing worth telling the operator once (no RDMA
  // for --pods, the first namespace that could not be read); may be empty.
  std::function<void(const std::string&)> notice;
  // Hears the outcome of each background reading, after its text (if any)
  // is in place; may be empty. Tests wait on it instead of sleeping.
  std::function<void(const Status&)> after_reading;
};

class MetricsCache {
 public:
  // Reads once, then starts the refresher. Fails when that first reading
  // fails (an unusable root).
  static Result<std::unique_ptr<MetricsCache>> start(FileRoot root, CacheOptions options);
  ~MetricsCache();  // stops the refresher and waits for it
  MetricsCache(const MetricsCache&) = delete;
  MetricsCache& operator=(const MetricsCache&) = delete;

  // The newest rendered text; never blocks on a reading.
  std::string text() const;
  // The same text, shared rather than copied: the HTTP server holds it while
  // a response is written (possibly slowly), and a new reading swaps in a new
  // string instead of changing this one, so a scrape costs a reference count.
  std::shared_ptr<const std::string> sharedText() const;

 private:
  MetricsCache(FileRoot root, CacheOptions options) : root_(std::move(root)), options_(std::move(options)) {}
  // One reading; on failure the previous text stays.
  Status refresh();
  void loop();
  // --pods: reads the pods into `reading` and tells what is worth telling.
  void readPodsInto(NodeReading& reading);

  const FileRoot root_;
  const CacheOptions options_;
  // Touched only by refresh() (start(), then the refresher thread).
  std::vector<Finding> findings_;
  std::optional<std::chrono::steady_clock::time_point> last_doctor_;
  uint64_t read_errors_total_ = 0;
  uint64_t pod_netns_errors_total_ = 0;
  bool told_pods_unsupported_ = false;
  bool told_pod_error_ = false;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;                                                                // guarded by mutex_
  std::shared_ptr<const std::string> text_ = std::make_shared<const std::string>();  // guarded by mutex_
  std::thread thread_;
};

}  // namespace railkit::exporter
