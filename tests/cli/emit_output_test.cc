// --json on stdout (src/cli/common.cc): a big document's top-level members
// are serialised on two threads; what comes out is what dump(2) prints,
// byte for byte, whatever the members, their number and their keys hold.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "core/version.h"

namespace railkit::cli {
namespace {

std::string printed(nlohmann::json document) {
  OutputOptions options;
  options.json = true;
  options.kind = "railkit.test/v1";
  ::testing::internal::CaptureStdout();
  Status st = emitOutput(options, std::move(document), [] {});
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_TRUE(st) << st.error().message;
  return out;
}

std::string expected(nlohmann::json document) {
  document["kind"] = "railkit.test/v1";
  document["railkit_version"] = kRailkitVersion;
  return document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Compared by hand: gtest's diff of two strings this long takes gigabytes.
void expectAsDump(const nlohmann::json& document) {
  std::string got = printed(document), want = expected(document);
  if (got == want) return;
  size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  size_t from = at < 80 ? 0 : at - 80;
  ADD_FAILURE() << "printed " << got.size() << " bytes, dump(2) " << want.size()
                << "; first difference at byte " << at << "\nprinted: ..." << got.substr(from, 160)
                << "\ndump(2): ..." << want.substr(from, 160);
}

nlohmann::json ranks(int n, const std::string& host) {
  nlohmann::json out = nlohmann::json::array();
  for (int r = 0; r < n; ++r)
    out.push_back(
        {{"rank", r}, {"host", host + std::to_string(r / 8)}, {"busbw", 0.5 * r}, {"nics", {"mlx5_0"}}});
  return out;
}

TEST(CliEmitOutput, MembersOnTwoThreadsPrintAsDump) {
  // Two big members among small ones (a logs document's shape).
  expectAsDump({{"findings", nlohmann::json::array()},
                {"inputs", ranks(5000, "node-")},
                {"job", {{"per_rank", ranks(4000, "gpu-")}, {"ranks", 4000}}},
                {"summary", {{"errors", 0}}}});
  // Only two members, both structured; then many structured members.
  expectAsDump({{"a", {1, 2, 3}}, {"b", {{"c", nullptr}}}});
  nlohmann::json many = nlohmann::json::object();
  for (int i = 0; i < 40; ++i) many["m" + std::to_string(i)] = ranks(i % 7, "h");
  expectAsDump(many);
}

TEST(CliEmitOutput, KeysAndTextThatNeedEscapingOrReplacing) {
  nlohmann::json doc = {
      {"quote\"and\\backslash", {1}}, {"tab\tand\nnewline", {{"x", "\x01\x1f"}}}, {"caf\xc3\xa9", {"ok"}}};
  doc["bad \xff utf-8 key"] = {"value with \xfe bad bytes", "and \xc3 a cut one"};
  expectAsDump(doc);
  std::string out = printed(doc);
  EXPECT_NE(out.find("\xef\xbf\xbd"), std::string::npos);  // U+FFFD for the invalid bytes
}

TEST(CliEmitOutput, SmallDocumentsAndOtherShapes) {
  expectAsDump(nlohmann::json::object());
  expectAsDump({{"only", ranks(3, "n")}});
  expectAsDump({{"empty_array", nlohmann::json::array()}, {"empty_object", nlohmann::json::object()}});
  // Not an object: printed as it is, without the stamp.
  nlohmann::json array = ranks(2, "a");
  EXPECT_EQ(printed(array), array.dump(2) + "\n");
}

}  // namespace
}  // namespace railkit::cli
