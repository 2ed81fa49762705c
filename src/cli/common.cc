#include <array>
#include <cstdio>
#include <cstring>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "cli/command.h"
#include "cli/stdout_errors.h"
#include "core/atomic_file.h"
#include "core/version.h"

namespace railkit::cli {
namespace {

// The serializer's output through a 64 KiB buffer straight to a stream: a
// large document (tens of MB from logs or validate) is never held whole as
// one string, which cost its growth copies and fresh pages.
class BufferedStreamOutput final : public nlohmann::detail::output_adapter_protocol<char> {
 public:
  explicit BufferedStreamOutput(std::ostream& out) : out_(out) {}
  ~BufferedStreamOutput() override { flush(); }
  void write_character(char c) override {
    if (used_ == buffer_.size()) flush();
    buffer_[used_++] = c;
  }
  void write_characters(const char* s, std::size_t n) override {
    if (n > buffer_.size() - used_) {
      flush();
      if (n >= buffer_.size()) {
        out_.write(s, static_cast<std::streamsize>(n));
        return;
      }
    }
    std::memcpy(buffer_.data() + used_, s, n);
    used_ += n;
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(used_));
    used_ = 0;
  }

 private:
  std::ostream& out_;
  std::array<char, 64 * 1024> buffer_{};
  std::size_t used_ = 0;
};

using Serializer = nlohmann::detail::serializer<nlohmann::json>;
constexpr unsigned kIndent = 2;

// One member of the top-level object as dump(2) prints it, without the
// separator: `  "key": value`.
void dumpMember(Serializer& serializer, nlohmann::detail::output_adapter_protocol<char>& out,
                const std::string& key, const nlohmann::json& value) {
  out.write_characters("  ", kIndent);
  serializer.dump(nlohmann::json(key), true, false, kIndent, kIndent);
  out.write_characters(": ", 2);
  serializer.dump(value, true, false, kIndent, kIndent);
}

// Two or more members that hold something (a logs or validate document: the
// inputs' and the job's views, thousands of objects each).
bool worthSecondThread(const nlohmann::json& document) {
  if (!document.is_object()) return false;
  int big = 0;
  for (const auto& member : document)
    if (member.is_structured() && !member.empty()) ++big;
  return big >= 2;
}

// What dump(2, ' ', false, replace) prints, written as it is produced. A big
// document's top-level members are serialised on two threads: this one takes
// them from the front and writes each as it goes, a second one takes them
// from the back into strings, and this one writes those when it gets there
// (the rest of the work is done by then and the other core is idle).
void printJson(std::ostream& out, const nlohmann::json& document) {
  auto sink = std::make_shared<BufferedStreamOutput>(out);
  Serializer serializer(sink, ' ', nlohmann::json::error_handler_t::replace);
  if (!worthSecondThread(document)) {
    serializer.dump(document, true, false, kIndent);
    sink->flush();
    return;
  }
  std::vector<nlohmann::json::const_iterator> members;
  for (auto it = document.cbegin(); it != document.cend(); ++it) members.push_back(it);
  std::vector<std::string> aside(members.size());
  std::mutex claims;
  std::size_t front = 0, back = members.size();  // [0, front) this thread's, [back, n) the other's
  std::future<void> other;
  try {
    other = std::async(std::launch::async, [&] {
      for (;;) {
        std::size_t j;
        {
          std::lock_guard<std::mutex> lock(claims);
          if (back <= front) return;
          j = --back;
        }
        auto into = std::make_shared<nlohmann::detail::output_string_adapter<char>>(aside[j]);
        Serializer own(into, ' ', nlohmann::json::error_handler_t::replace);
        dumpMember(own, *into, members[j].key(), members[j].value());
      }
    });
  } catch (const std::system_error&) {
    serializer.dump(document, true, false, kIndent);  // no thread to be had
    sink->flush();
    return;
  }
  sink->write_characters("{\n", 2);
  std::size_t i = 0;
  for (;; ++i) {
    {
      std::lock_guard<std::mutex> lock(claims);
      if (front >= back) break;
      front = i + 1;
    }
    if (i > 0) sink->write_characters(",\n", 2);
    dumpMember(serializer, *sink, members[i].key(), members[i].value());
  }
  other.get();
  for (; i < members.size(); ++i) {
    if (i > 0) sink->write_characters(",\n", 2);
    sink->write_characters(aside[i].data(), aside[i].size());
  }
  sink->write_characters("\n}", 2);
  sink->flush();
}

}  // namespace

int reportError(const Error& error) {
  if (error.code == ErrorCode::kInternal) {
    std::fprintf(stderr, "railkit: internal error (a railkit bug, please report it): %s\n",
                 error.message.c_str());
    return kExitInternal;
  }
  std::fprintf(stderr, "railkit: %s\n", error.message.c_str());
  switch (error.code) {
    case ErrorCode::kTimeout:
    case ErrorCode::kPeerLost: return kExitIncomplete;
    default: return kExitUsage;
  }
}

void addOutputFlags(CLI::App& command, OutputOptions& options) {
  options.kind = "railkit." + command.get_name() + "/v1";
  command.add_flag("--json", options.json, "Print one JSON document on stdout instead of the human view");
  command.add_option("--json-out", options.json_out, "Also write the JSON document to FILE")
      ->type_name("FILE");
}

Status emitOutput(const OutputOptions& options, const nlohmann::json& document,
                  const std::function<void()>& human) {
  return emitOutput(options, nlohmann::json(document), human);
}

Status emitOutput(const OutputOptions& options, nlohmann::json&& stamped,
                  const std::function<void()>& human) {
  // Strings come from files the user hands us (a snapshot's environ, a
  // manifest, a log); bytes that are not UTF-8 become U+FFFD rather than
  // aborting the dump.
  if (stamped.is_object()) {
    stamped["kind"] = options.kind;
    stamped["railkit_version"] = kRailkitVersion;
  }
  auto text = [&] { return stamped.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); };
  if (!options.json_out.empty()) {
    // A temporary file renamed over the name: a killed run leaves the
    // previous result or the new one, never half a document.
    if (auto st = writeFileAtomic(options.json_out, text() + '\n', "--json-out"); !st) return st;
  }
  if (options.json) {
    printJson(std::cout, stamped);
    std::cout << '\n';
  } else {
    human();
  }
  return stdoutWritten(options.json ? "JSON document" : "report");
}

Status stdoutWritten(const std::string& what) {
  std::cout.flush();
  // Output redirected to a full disk must not end as a success with half a
  // result: the caller turns this into one line and exit status 2.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail()) {
    int err = stdoutWriteErrno();
    return makeError(ErrorCode::kIo, "writing the " + what + " to stdout failed" +
                                         (err != 0 ? std::string(": ") + std::strerror(err) : "") +
                                         "; the output is incomplete");
  }
  return okStatus();
}

}  // namespace railkit::cli
