#include "k8s/schema.h"

#include <gtest/gtest.h>

#include "k8s/cel_rules.h"
#include "lint_helpers.h"
#include "support/test_support.h"

namespace railkit::k8s {
namespace {

const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
              mode: {type: string, enum: [a, b]}
              port: {x-kubernetes-int-or-string: true}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

std::vector<SchemaError> validateText(SchemaSet& set, const std::string& text) {
  auto manifest = loadManifest(text, "w.yaml");
  EXPECT_TRUE(manifest);
  auto errors = set.validate((*manifest)->objects.at(0));
  EXPECT_TRUE(errors.has_value());
  return errors ? *errors : std::vector<SchemaError>{};
}

TEST(K8sSchema, CrdStrictChecks) {
  auto set = SchemaSet::fromTexts({}, {kCrd});
  ASSERT_TRUE(set) << set.error().message;
  std::string head = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n";
  EXPECT_TRUE(validateText(*set, head + "spec: {size: 3, mode: a, port: http, free: {x: 1}}\n").empty());
  auto errors = validateText(*set, head + "spec:\n  size: '3'\n  mode: c\n  extra: 1\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].path, "spec.size");
  EXPECT_EQ(errors[0].line, 5);
  EXPECT_EQ(errors[2].path, "spec.extra");
  EXPECT_NE(errors[2].message.find("unknown field"), std::string::npos);
  auto missing = validateText(*set, head + "spec: {mode: a}\n");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].message.find("size"), std::string::npos);
}

const char* kConstrainedCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            properties:
              name: {type: string, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', minLength: 2, maxLength: 8}
              tier: {type: integer, minimum: 0, maximum: 3}
              items:
                type: array
                minItems: 1
                maxItems: 2
                items: {type: string}
              selector:
                type: object
                properties:
                  a: {type: string}
                  b: {type: string}
                x-kubernetes-validations:
                - message: Only one of a or b
                  rule: '(has(self.exactMatch) ? 1 : 0) + (has(self.regexMatch)
                    ? 1 : 0) + (has(self.labelMatch) ? 1 : 0) <= 1'
                - message: something railkit cannot read
                  rule: self.a.startsWith('x')
                - message: immutable
                  rule: self == oldSelf
)";

// pattern, lengths, item counts and bounds are checked as the API server
// does; the one CEL rule known here is evaluated, the unknown one listed.
TEST(K8sSchema, ValueConstraintsAndCelRules) {
  auto set = SchemaSet::fromTexts({}, {kConstrainedCrd});
  ASSERT_TRUE(set) << set.error().message;
  std::string head = "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n";
  auto manifest =
      loadManifest(head + "spec: {name: ab-1, tier: 3, items: [x], selector: {a: x}}\n", "g.yaml");
  ASSERT_TRUE(manifest);
  std::vector<std::string> unevaluated;
  auto good = set->validate((*manifest)->objects.at(0), &unevaluated);
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->empty()) << (*good)[0].path << ": " << (*good)[0].message;
  ASSERT_EQ(unevaluated.size(), 1u);
  EXPECT_EQ(unevaluated[0], "spec.selector: self.a.startsWith('x')");

  auto errors = validateText(*set, head + "spec: {name: Ab_1, tier: 4, items: [], selector: {}}\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].path, "spec.name");
  EXPECT_NE(errors[0].message.find("does not match the pattern"), std::string::npos) << errors[0].message;
  EXPECT_EQ(errors[1].path, "spec.tier");
  EXPECT_EQ(errors[1].message, "4 is above the maximum 3");
  EXPECT_EQ(errors[2].path, "spec.items");
  EXPECT_EQ(errors[2].message, "has 0 items; at least 1 expected");
  auto lengths = validateText(*set, head + "spec: {name: a, items: [x, y, z]}\n");
  ASSERT_EQ(lengths.size(), 2u);
  EXPECT_EQ(lengths[0].message, "'a' is shorter than 2 characters");
  EXPECT_EQ(lengths[1].message, "has 3 items; at most 2 allowed");
  auto long_name = validateText(*set, head + "spec: {name: abcdefghi}\n");
  ASSERT_EQ(long_name.size(), 1u);
  EXPECT_EQ(long_name[0].message, "is 9 characters long; at most 8 allowed");
}

TEST(K8sCelRules, KnownRulesMeanWhatTheySay) {
  auto eval = [](const std::string& rule, const std::string& yaml) {
    auto stream = parseYaml(yaml, "r.yaml");
    EXPECT_TRUE(stream) << yaml;
    return evaluateCelRule(rule, stream->documents.at(0).root);
  };
  const std::string one = "has(self.exactMatch) || has(self.regexMatch) || has(self.labelMatch)";
  EXPECT_EQ(eval(one, "exactMatch: {name: n}\n"), CelOutcome::kPassed);
  EXPECT_EQ(eval(one, "{}\n"), CelOutcome::kFailed);
  EXPECT_EQ(eval(one, "exactMatch:\n"), CelOutcome::kFailed);  // null: pruned, so not set
  const std::string at_most =
      "(has(self.exactMatch) ? 1 : 0) + (has(self.regexMatch) ? 1 : 0) + (has(self.labelMatch) ? 1 : 0) <= 1";
  EXPECT_EQ(eval(at_most, "regexMatch: {pattern: a}\n"), CelOutcome::kPassed);
  EXPECT_EQ(eval(at_most, "regexMatch: {pattern: a}\nlabelMatch: {}\n"), CelOutcome::kFailed);
  const std::string unique = "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0";
  EXPECT_EQ(eval(unique, "[{nodeLabel: a}, {nodeLabel: b}]\n"), CelOutcome::kPassed);
  EXPECT_EQ(eval(unique, "[{nodeLabel: a}, {nodeLabel: b}, {nodeLabel: a}]\n"), CelOutcome::kFailed);
  const std::string last =
      "size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || self[size(self) - 1].nodeLabel "
      "== "
      "'kubernetes.io/hostname'";
  EXPECT_EQ(eval(last, "[{nodeLabel: a}]\n"), CelOutcome::kPassed);
  EXPECT_EQ(eval(last, "[{nodeLabel: a}, {nodeLabel: kubernetes.io/hostname}]\n"), CelOutcome::kPassed);
  EXPECT_EQ(eval(last, "[{nodeLabel: kubernetes.io/hostname}, {nodeLabel: a}]\n"), CelOutcome::kFailed);
  EXPECT_EQ(eval("self == oldSelf", "[]\n"), CelOutcome::kTransitionRule);
  EXPECT_EQ(eval("self.size() > 0", "[]\n"), CelOutcome::kUnknownRule);
  EXPECT_EQ(normalizeCelRule("  a\n   b\t c "), "a b c");
}

TEST(K8sSchema, OpenApiRefsResolve) {
  const char* doc = R"({"components":{"schemas":{
    "T": {"type":"object","x-kubernetes-group-version-kind":[{"group":"","version":"v1","kind":"Thing"}],
          "properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
                        "spec":{"allOf":[{"$ref":"#/components/schemas/S"}],"default":{}}}},
    "S": {"type":"object","properties":{"n":{"type":"integer"}}}}}})";
  auto set = SchemaSet::fromTexts({{"v1", doc}}, {});
  ASSERT_TRUE(set);
  auto errors = validateText(*set, "apiVersion: v1\nkind: Thing\nspec: {n: 1, m: 2}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "spec.m");
}

TEST(K8sSchema, SharedSchemasValidateCoreAndCrdKinds) {
  RAILKIT_REQUIRE_SHARED();
  auto set = SchemaSet::load((railkit::testing::sharedDir() / "schemas").string());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_GE(set->crdCount(), 20u);
  auto good = validateText(*set, R"(apiVersion: v1
kind: Pod
metadata: {name: p, labels: {a: b}}
spec:
  containers:
  - name: c
    image: i
    resources: {limits: {nvidia.com/gpu: 1, memory: 1Gi}}
    securityContext: {capabilities: {add: [IPC_LOCK]}}
)");
  EXPECT_TRUE(good.empty()) << good[0].path << ": " << good[0].message;
  auto bad = validateText(*set,
                          "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                          "  - name: c\n    image: i\n    securityContex: {}\n");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].path, "spec.containers[0].securityContex");
  EXPECT_EQ(bad[0].line, 8);
}

// railkit's own CRD schemas (schemas/, no ../shared needed): nv-ipam's
// IPPool needs its subnet and block size, the SR-IOV operator's pool config
// takes rdmaMode shared or exclusive and maxUnavailable as a number or a
// percentage.
TEST(K8sSchema, RailkitCrdsIpPoolAndSriovPoolConfig) {
  auto set = SchemaSet::load((railkit::testing::sourceDir() / "schemas").string());
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->crdCount(), 2u);
  std::string pool =
      "apiVersion: nv-ipam.nvidia.com/v1alpha1\nkind: IPPool\nmetadata: {name: p, namespace: n}\n";
  auto good =
      validateText(*set, pool +
                             "spec: {subnet: 192.168.0.0/16, perNodeBlockSize: 100, gateway: 192.168.0.1,\n"
                             "  exclusions: [{startIP: 192.168.0.10, endIP: 192.168.0.20}],\n"
                             "  nodeSelector: {nodeSelectorTerms: [{matchExpressions: [{key: a, operator: "
                             "In, values: [b]}]}]}}\n");
  EXPECT_TRUE(good.empty()) << good[0].path << ": " << good[0].message;
  auto no_subnet = validateText(*set, pool + "spec: {perNodeBlockSize: 100}\n");
  ASSERT_EQ(no_subnet.size(), 1u);
  EXPECT_NE(no_subnet[0].message.find("subnet"), std::string::npos);
  auto no_block = validateText(*set, pool + "spec: {subnet: 10.0.0.0/8}\n");
  ASSERT_EQ(no_block.size(), 1u);
  EXPECT_NE(no_block[0].message.find("perNodeBlockSize"), std::string::npos);
  auto typo = validateText(*set, pool + "spec: {subnet: 10.0.0.0/8, perNodeBlockSize: '8', blockSize: 8}\n");
  ASSERT_EQ(typo.size(), 2u);
  EXPECT_EQ(typo[0].path, "spec.perNodeBlockSize");
  EXPECT_EQ(typo[1].path, "spec.blockSize");

  std::string config =
      "apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkPoolConfig\n"
      "metadata: {name: c, namespace: n}\n";
  for (const char* spec : {"{rdmaMode: exclusive, maxUnavailable: 1, nodeSelector: {matchLabels: {a: b}}}",
                           "{rdmaMode: shared, maxUnavailable: 20%, ovsHardwareOffloadConfig: {name: x}}"}) {
    auto ok = validateText(*set, config + "spec: " + spec + "\n");
    EXPECT_TRUE(ok.empty()) << spec << ": " << ok[0].path << ": " << ok[0].message;
  }
  auto bad = validateText(*set, config + "spec: {rdmaMode: exclusiv}\n");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].path, "spec.rdmaMode");
}

TEST(K8sSchema, UnknownKindIsInfo) {
  auto set = SchemaSet::fromTexts({}, {kCrd});
  ASSERT_TRUE(set);
  auto findings = testing::lintText("apiVersion: other.io/v1\nkind: Gadget\nmetadata: {name: g}\n", &*set);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "schema");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
}

}  // namespace
}  // namespace railkit::k8s
