// schema: the object against its OpenAPI/CRD schema, strictly (unknown
// fields are errors, as with kubectl's default --validate=strict). Without
// schemas the rule notes that it was skipped; a kind without a schema is
// reported as info, not as an error.
#include "k8s/schema.h"

#include "k8s/lint/rules/rules.h"

namespace railkit::k8s::rules {

void checkSchema(const LintInput& input, std::vector<Finding>& out) {
  if (input.schemas == nullptr) {
    Finding note = findingOf(kSchema, Severity::kInfo);
    note.subject = kSchema.id;
    note.message = "schema validation skipped: no --schemas DIR given";
    note.fix = "pass --schemas DIR with Kubernetes OpenAPI v3 documents and CRDs";
    out.push_back(note);
    return;
  }
  // Validation loads documents on demand; the set is logically const here.
  auto& schemas = const_cast<SchemaSet&>(*input.schemas);
  for (const auto& manifest : input.manifests)
    for (const Object& object : manifest->objects) {
      auto errors = schemas.validate(object);
      if (!errors) {
        out.push_back(
            lintFinding(kSchema, Severity::kInfo, object, object.line, "",
                        "no schema for " + object.api_version + " " + object.kind + "; not validated",
                        "add its CRD or OpenAPI document to --schemas DIR"));
        continue;
      }
      for (const SchemaError& error : *errors)
        out.push_back(lintFinding(
            kSchema, object, error.line, error.path, error.message,
            "correct the field as the schema for " + object.api_version + " " + object.kind + " defines it"));
    }
}

extern const Rule kSchema = {
    {"schema", Severity::kError, "object does not match its OpenAPI/CRD schema",
     R"(The object does not match its OpenAPI or CRD schema: the API server rejects it, or drops the
unknown fields and runs something else than written. With --schemas DIR every object is
checked against the Kubernetes OpenAPI documents and CRDs in DIR.)",
     R"(Fix: the field path in the finding names what to correct.)"},
    checkSchema};

}  // namespace railkit::k8s::rules
