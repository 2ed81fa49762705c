#include "report/inputs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <string_view>

#include "core/input_file.h"
#include "core/version.h"
#include "logs/report.h"

namespace railkit::report {
namespace {

constexpr const char* kReportedKinds[] = {
    "railkit.validate/v1", "railkit.bench/v1", "railkit.doctor/v1", "railkit.inspect/v1",
    "railkit.logs/v1",     "railkit.lint/v1",  "railkit.fabric/v1",
};

// Every railkit document is one JSON object. A leading '[' is a log line:
// mpirun's "[1,9]<stdout>:" prefix, or "[host:pid]".
bool looksLikeJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

// The first bytes of a named file, to choose between the JSON reader (whole
// document in memory) and the logs reader (streams: NCCL logs reach GBs).
Result<std::string> head(const std::string& path, const InputFileOptions& options) {
  auto fd = openInputFile(path, options);
  if (!fd) return tl::unexpected(fd.error());
  std::string out(4096, '\0');
  ssize_t n = ::read(*fd, out.data(), out.size());
  ::close(*fd);
  if (n < 0) return makeError(ErrorCode::kIo, path + ": cannot be read");
  out.resize(static_cast<size_t>(n));
  return out;
}

void addText(logs::InputReport input, LoadedInputs& loaded, std::vector<logs::InputReport>& texts,
             std::string& sources) {
  if (input.kind == logs::InputKind::kUnknown) {
    std::string why = input.notes.empty() ? "" : " (" + input.notes.front() + ")";
    loaded.errors.push_back(Error{
        ErrorCode::kInvalidInput,
        input.file + ": neither a railkit JSON document nor nccl-tests, perftest or NCCL log text" + why});
    return;
  }
  sources += (sources.empty() ? "" : ", ") + input.file;
  texts.push_back(std::move(input));
}

}  // namespace

bool kindIsReported(const std::string& kind) {
  for (const char* k : kReportedKinds)
    if (kind == k) return true;
  return false;
}

Result<Document> documentFromJson(const std::string& source, nlohmann::json json) {
  if (!json.is_object())
    return makeError(ErrorCode::kInvalidInput, source + ": JSON but not a railkit document (not an object)");
  auto kind = json.find("kind");
  if (kind == json.end() || !kind->is_string())
    return makeError(
        ErrorCode::kInvalidInput,
        source + ": JSON without a \"kind\": not a railkit document (railkit 0.1 or later writes one)");
  std::string k = kind->get<std::string>();
  if (!kindIsReported(k))
    return makeError(
        ErrorCode::kInvalidInput,
        fmt::format(
            "{}: kind {:?} is not one report draws (validate, bench, doctor, inspect, logs, lint, fabric)",
            source, k));
  return Document{source, k, std::move(json)};
}

LoadedInputs loadInputs(const std::vector<std::string>& paths) {
  LoadedInputs loaded;
  std::vector<logs::InputReport> texts;
  std::string text_sources;
  InputFileOptions options;
  options.what = "report input";
  options.max_bytes = std::size_t{1} << 30;  // a 1024-node validate document with every pair is ~50 MB
  options.allow_stdin = true;
  for (const auto& path : paths) {
    std::string name = path == "-" ? "<stdin>" : path;
    if (path != "-") {
      auto start = head(path, options);
      if (!start) {
        loaded.errors.push_back(start.error());
        continue;
      }
      if (!looksLikeJson(*start) && !start->empty()) {
        auto input = logs::analyzeFile(path);
        if (!input) {
          loaded.errors.push_back(input.error());
          continue;
        }
        addText(std::move(*input), loaded, texts, text_sources);
        continue;
      }
    }
    auto content = readInputFile(path, options);
    if (!content) {
      loaded.errors.push_back(content.error());
      continue;
    }
    if (looksLikeJson(*content)) {
      auto json = nlohmann::json::parse(*content, nullptr, false);
      if (json.is_discarded()) {
        loaded.errors.push_back(
            Error{ErrorCode::kInvalidInput, name + ": starts like JSON but does not parse"});
        continue;
      }
      auto doc = documentFromJson(name, std::move(json));
      if (!doc) {
        loaded.errors.push_back(doc.error());
        continue;
      }
      loaded.documents.push_back(std::move(*doc));
      continue;
    }
    addText(logs::analyzeText(name, *content), loaded, texts, text_sources);
  }
  if (!texts.empty()) {
    auto report = logs::combineInputs(std::move(texts), logs::InputDocuments::kNow);
    nlohmann::json doc = logs::takeReportJson(report);
    doc["kind"] = "railkit.logs/v1";
    doc["railkit_version"] = kRailkitVersion;
    loaded.documents.push_back(Document{text_sources, "railkit.logs/v1", std::move(doc)});
  }
  return loaded;
}

}  // namespace railkit::report
