#pragma once
// A one-shot event a test thread waits for instead of sleeping: set() once
// the thing has happened, waitFor() with a deadline well past what it takes,
// so the test fails (rather than hangs) when it never happens.
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace railkit::testing {

class Event {
 public:
  void set() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      set_ = true;
    }
    cv_.notify_all();
  }
  // True once set() was called, false when `deadline` passes first.
  bool waitFor(std::chrono::milliseconds deadline) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, deadline, [this] { return set_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;
};

}  // namespace railkit::testing
