#include "k8s/schema.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdint>
#include <filesystem>

#include "core/input_file.h"
#include "k8s/schema_validator.h"

namespace railkit::k8s {
namespace fs = std::filesystem;

namespace {

// The largest real document (core v1 OpenAPI of Kubernetes 1.35) is 2 MB,
// the largest CRD file under 1 MB; 16 MiB leaves room for growth and for
// CRD bundles while refusing /dev/zero or a stray dump.
constexpr std::size_t kMaxSchemaBytes = std::size_t{16} << 20;

Result<std::string> readText(const fs::path& path) {
  return readInputFile(path.string(), {"schema", kMaxSchemaBytes, false});
}

// A file of the schema directory that load() would read (an OpenAPI document
// read later, on demand, or a CRD YAML read now) must be a regular file of a
// sane size: a FIFO or device there would otherwise block lint or fill memory.
Status checkSchemaFile(const fs::path& path) {
  std::string where = "schema " + path.string();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return makeError(ErrorCode::kNotFound, where + ": no such file");
  if (!S_ISREG(st.st_mode))
    return makeError(ErrorCode::kInvalidInput,
                     where + ": expected a regular file, found " + describeFileType(st.st_mode));
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxSchemaBytes)
    return makeError(ErrorCode::kInvalidInput, where + ": " + std::to_string(st.st_size) +
                                                   " bytes, larger than the " +
                                                   formatByteLimit(kMaxSchemaBytes) + " limit, not read");
  return okStatus();
}

// "api__v1_openapi.json" -> "v1"; "apis__apps__v1_openapi.json" -> "apps/v1".
std::optional<std::string> groupVersionOfFile(const std::string& name) {
  const std::string suffix = "_openapi.json";
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::string stem = name.substr(0, name.size() - suffix.size());
  if (auto pos = stem.find("api__v1"); pos != std::string::npos && pos + 7 == stem.size()) return "v1";
  auto pos = stem.find("apis__");
  if (pos == std::string::npos) return std::nullopt;
  std::string rest = stem.substr(pos + 6);
  auto sep = rest.rfind("__");
  if (sep == std::string::npos) return std::nullopt;
  return rest.substr(0, sep) + "/" + rest.substr(sep + 2);
}

}  // namespace

nlohmann::json yamlToJson(const YamlNode& node, int depth) {
  if (depth > 200) return nullptr;
  switch (node.type) {
    case YamlNode::Type::kNull: return nullptr;
    case YamlNode::Type::kMap: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& [key, value] : node.entries) out[key] = yamlToJson(value, depth + 1);
      return out;
    }
    case YamlNode::Type::kSeq: {
      nlohmann::json out = nlohmann::json::array();
      for (const YamlNode& item : node.items) out.push_back(yamlToJson(item, depth + 1));
      return out;
    }
    case YamlNode::Type::kScalar: break;
  }
  if (node.quoted) return node.value;
  const std::string& v = node.value;
  if (v == "true" || v == "True" || v == "TRUE") return true;
  if (v == "false" || v == "False" || v == "FALSE") return false;
  // from_chars reports a bad or out-of-range number as a value, not an
  // exception; the whole text must be the number ("1e3x" stays a string).
  const char* first = v.data() + (v.size() > 1 && v[0] == '+' && v[1] != '-' && v[1] != '+' ? 1 : 0);
  const char* last = v.data() + v.size();
  if (!v.empty() && v.find_first_not_of("-+0123456789") == std::string::npos && v.size() < 19) {
    long long integer = 0;
    auto [end, ec] = std::from_chars(first, last, integer);
    if (ec == std::errc() && end == last) return integer;
  }
  if (!v.empty() && v.find_first_not_of("-+0123456789.eE") == std::string::npos &&
      v.find_first_of("0123456789") != std::string::npos) {
    double real = 0;
    auto [end, ec] = std::from_chars(first, last, real);
    if (ec == std::errc() && end == last) return real;
  }
  return v;
}

Status SchemaSet::addCrd(const YamlNode& crd) {
  const YamlNode* spec = crd.get("spec");
  if (spec == nullptr || crd.get("kind") == nullptr || crd.get("kind")->text() != "CustomResourceDefinition")
    return okStatus();
  std::string group = spec->get("group") ? spec->get("group")->text() : "";
  std::string kind = spec->at({"names", "kind"}) ? spec->at({"names", "kind"})->text() : "";
  const YamlNode* versions = spec->get("versions");
  if (versions == nullptr || !versions->isSeq()) return okStatus();
  for (const YamlNode& version : versions->items) {
    const YamlNode* schema = version.at({"schema", "openAPIV3Schema"});
    const YamlNode* name = version.get("name");
    if (schema == nullptr || name == nullptr) continue;
    std::string key = group + "/" + name->text() + "/" + kind;
    if (crds_.count(key) == 0) crds_[key] = std::make_shared<nlohmann::json>(yamlToJson(*schema));
  }
  return okStatus();
}

Status SchemaSet::addDirectory(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return makeError(ErrorCode::kNotFound, "schema directory " + dir + " not found");
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (!it->is_directory(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::string name = path.filename().string();
    std::string ext = path.extension().string();
    auto gv = groupVersionOfFile(name);
    if (!gv && ext != ".yaml" && ext != ".yml") continue;  // README, SOURCES.md, ...
    if (auto st = checkSchemaFile(path); !st) return st;
    if (gv) {
      openapi_.emplace(*gv, Document{path.string(), nullptr});
      continue;
    }
    auto text = readText(path);
    if (!text) return tl::unexpected(text.error());
    auto stream = parseYaml(*text, path.string());
    if (!stream) return tl::unexpected(stream.error());
    for (const YamlDocument& doc : stream->documents) (void)addCrd(doc.root);
  }
  return okStatus();
}

Result<SchemaSet> SchemaSet::load(const std::string& dir) {
  return load(std::vector<std::string>{dir});
}

Result<SchemaSet> SchemaSet::load(const std::vector<std::string>& dirs) {
  SchemaSet set;
  for (const std::string& dir : dirs)
    if (auto st = set.addDirectory(dir); !st) return tl::unexpected(st.error());
  return set;
}

Result<SchemaSet> SchemaSet::fromTexts(const std::map<std::string, std::string>& openapi_by_gv,
                                       const std::vector<std::string>& crd_texts) {
  SchemaSet set;
  for (const auto& [gv, text] : openapi_by_gv) {
    auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded())
      return makeError(ErrorCode::kInvalidInput, "OpenAPI document for " + gv + " is not JSON");
    set.openapi_[gv] = Document{"", std::make_shared<nlohmann::json>(std::move(json))};
  }
  for (const std::string& text : crd_texts) {
    auto stream = parseYaml(text, "<crd>");
    if (!stream) return tl::unexpected(stream.error());
    for (const YamlDocument& doc : stream->documents) (void)set.addCrd(doc.root);
  }
  return set;
}

const nlohmann::json* SchemaSet::openapiDocument(const std::string& group_version) {
  auto it = openapi_.find(group_version);
  if (it == openapi_.end()) return nullptr;
  if (!it->second.json) {
    auto text = readText(it->second.file);
    auto json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (json.is_discarded() || !json.is_object()) json = nlohmann::json::object();
    it->second.json = std::make_shared<nlohmann::json>(std::move(json));
  }
  return it->second.json.get();
}

std::optional<std::vector<SchemaError>> SchemaSet::validate(const Object& object,
                                                            std::vector<std::string>* unevaluated_rules) {
  if (object.api_version.empty() || object.kind.empty()) return std::nullopt;
  std::string gv = object.api_version;
  auto crd = crds_.find((gv.find('/') == std::string::npos ? "/" + gv : gv) + "/" + object.kind);
  if (crd != crds_.end()) {
    SchemaValidator validator(*crd->second);
    auto errors = validator.validateObject(*object.root, /*skip_metadata=*/true);
    if (unevaluated_rules != nullptr) *unevaluated_rules = validator.unevaluatedRules();
    return errors;
  }
  const nlohmann::json* doc = openapiDocument(gv);
  if (doc == nullptr) return std::nullopt;
  const auto schemas = doc->find("components");
  if (schemas == doc->end() || !schemas->is_object() || !schemas->contains("schemas")) return std::nullopt;
  std::string group = gv.find('/') == std::string::npos ? "" : gv.substr(0, gv.find('/'));
  std::string version = gv.substr(gv.find('/') == std::string::npos ? 0 : gv.find('/') + 1);
  for (const auto& [name, schema] : (*schemas)["schemas"].items()) {
    auto gvks = schema.find("x-kubernetes-group-version-kind");
    if (gvks == schema.end() || !gvks->is_array()) continue;
    for (const auto& gvk : *gvks)
      if (gvk.value("group", "") == group && gvk.value("version", "") == version &&
          gvk.value("kind", "") == object.kind) {
        SchemaValidator validator(schema, doc);
        auto errors = validator.validateObject(*object.root, /*skip_metadata=*/false);
        if (unevaluated_rules != nullptr) *unevaluated_rules = validator.unevaluatedRules();
        return errors;
      }
  }
  return std::nullopt;
}

}  // namespace railkit::k8s
