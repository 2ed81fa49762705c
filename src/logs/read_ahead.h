#pragma once
// A reader thread that fills a few blocks ahead of the consumer, so copying
// from the page cache (and whatever else fill() does) overlaps with the
// consumer's work on the second core. The consumer takes filled blocks in
// order with next() and gives each back with recycle(); the four blocks are
// the only memory, so the pipeline stays flat in file size.

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace railkit::logs {

template <class Block>
class ReadAhead {
 public:
  // What fill() did with a block: whether the consumer gets it, whether to
  // go on, and errno of a failed read (0 if none).
  struct Filled {
    bool hand_over = true;
    bool more = true;
    int error = 0;
  };

  explicit ReadAhead(const std::function<void(Block&)>& init) {
    for (auto& b : blocks_) {
      init(b);
      free_.push_back(&b);
    }
  }
  // Stops the reader thread; the owner declares its ReadAhead last, so the
  // thread is gone before anything fill() uses.
  ~ReadAhead() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  // Starts the reader thread: fill(block) for each free block in turn until
  // it says stop; at_end() then runs on that thread before next() ends.
  void start(std::function<Filled(Block&)> fill, std::function<void()> at_end = {}) {
    thread_ = std::thread([this, fill = std::move(fill), at_end = std::move(at_end)] { run(fill, at_end); });
  }

  // The next filled block, or nullptr at the end (then check error()).
  Block* next() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (full_.empty() && !done_) {
      consumer_waiting_.store(true, std::memory_order_relaxed);
      changed_.wait(lock, [&] { return !full_.empty() || done_; });
      consumer_waiting_.store(false, std::memory_order_relaxed);
    }
    if (full_.empty()) return nullptr;
    Block* b = full_.front();
    full_.pop_front();
    return b;
  }
  void recycle(Block* b) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(b);
    }
    changed_.notify_all();
  }
  // Valid once next() returned nullptr.
  int error() const { return error_; }
  // For fill(): whether the consumer is waiting in next() for a block now.
  // A hint (no lock), read as often as once per line.
  bool consumerWaiting() const { return consumer_waiting_.load(std::memory_order_relaxed); }

 private:
  void run(const std::function<Filled(Block&)>& fill, const std::function<void()>& at_end) {
    for (;;) {
      Block* b = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return !free_.empty() || stop_; });
        if (stop_) break;
        b = free_.back();
        free_.pop_back();
      }
      Filled f = fill(*b);
      std::lock_guard<std::mutex> lock(mutex_);
      if (f.error != 0) error_ = f.error;
      if (f.hand_over) {
        full_.push_back(b);
      } else {
        free_.push_back(b);
      }
      changed_.notify_all();
      if (!f.more) break;
    }
    if (at_end) at_end();
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
    changed_.notify_all();
  }

  // On a cache line of its own: the reader reads it per line, the consumer
  // writes it only around a wait.
  alignas(128) std::atomic<bool> consumer_waiting_{false};
  alignas(128) std::array<Block, 4> blocks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Block*> full_;
  std::vector<Block*> free_;
  bool stop_ = false, done_ = false;
  int error_ = 0;
  std::thread thread_;
};

}  // namespace railkit::logs
