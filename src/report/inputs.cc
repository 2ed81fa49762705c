#include "report/inputs.h"

#include <fmt/format.h>

#include "core/input_file.h"
#include "core/version.h"
#include "logs/report.h"

namespace railkit::report {
namespace {

constexpr const char* kReportedKinds[] = {
    "railkit.validate/v1", "railkit.bench/v1", "railkit.doctor/v1",
    "railkit.inspect/v1",  "railkit.logs/v1",  "railkit.lint/v1",
};

bool looksLikeJson(const std::string& text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
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
    return makeError(ErrorCode::kInvalidInput,
                     source + ": JSON without a \"kind\": not a railkit document (railkit 0.1 or later writes one)");
  std::string k = kind->get<std::string>();
  if (!kindIsReported(k))
    return makeError(ErrorCode::kInvalidInput,
                     fmt::format("{}: kind {:?} is not one report draws (validate, bench, doctor, inspect, logs, lint)",
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
    auto content = readInputFile(path, options);
    if (!content) {
      loaded.errors.push_back(content.error());
      continue;
    }
    std::string name = path == "-" ? "<stdin>" : path;
    if (looksLikeJson(*content)) {
      auto json = nlohmann::json::parse(*content, nullptr, false);
      if (json.is_discarded()) {
        loaded.errors.push_back(Error{ErrorCode::kInvalidInput, name + ": starts like JSON but does not parse"});
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
    auto input = logs::analyzeText(name, *content);
    if (input.kind == logs::InputKind::kUnknown) {
      std::string why = input.notes.empty() ? "" : " (" + input.notes.front() + ")";
      loaded.errors.push_back(Error{ErrorCode::kInvalidInput,
                                    name + ": neither a railkit JSON document nor nccl-tests, perftest or NCCL log text" + why});
      continue;
    }
    text_sources += (text_sources.empty() ? "" : ", ") + name;
    texts.push_back(std::move(input));
  }
  if (!texts.empty()) {
    nlohmann::json doc = logs::reportToJson(logs::combineInputs(std::move(texts)));
    doc["kind"] = "railkit.logs/v1";
    doc["railkit_version"] = kRailkitVersion;
    loaded.documents.push_back(Document{text_sources, "railkit.logs/v1", std::move(doc)});
  }
  return loaded;
}

}  // namespace railkit::report
