// railkit fabric end to end: the exit status for each kind of input, one
// clear line for what is not ibnetdiscover output, standard input, the JSON
// document, --list-rules and explain.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_run.h"
#include "fabric_text.h"

namespace railkit::fabric {
namespace {

using railkit::testing::cliScratch;
using railkit::testing::makeFifo;
using railkit::testing::ProcessResult;
using railkit::testing::RailFabricText;
using railkit::testing::runRailkit;
using railkit::testing::writeScratchFile;

const std::string kFixtures = std::string(RAILKIT_SOURCE_DIR) + "/tests/fixtures/fabric/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expectOneLineError(const ProcessResult& r, const std::string& text) {
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.errLines(), 1) << r.err;
  EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(FabricCli, HealthyFabricExitsZero) {
  std::string path = writeScratchFile("healthy.txt", RailFabricText(16, 8, 4).text());
  ProcessResult r = runRailkit("fabric " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("12 switches (8 leaves, 4 above them), 16 hosts with 128 HCA ports on 8 rails"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("no problems found"), std::string::npos);
}

TEST(FabricCli, RealCaptureWithASwappedPairExitsOne) {
  ProcessResult r = runRailkit("fabric --json " + kFixtures + "topograph-su8-leaves.out");
  EXPECT_EQ(r.status, 1) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["kind"], "railkit.fabric/v1");
  EXPECT_EQ(doc["summary"]["errors"], 2);
  EXPECT_EQ(doc["findings"][0]["id"], "rail-miscabled");
  EXPECT_EQ(doc["rails"][0]["device"], "HCA-5");
}

TEST(FabricCli, HcaMapNamesUnnamedHcas) {
  ProcessResult r = runRailkit("fabric --json " + kFixtures + "topograph-su8-leaves.out --hca-map " +
                               kFixtures + "topograph-su8-leaves.hca-map");
  EXPECT_EQ(r.status, 1) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["fabric"]["hosts"], 17);
  EXPECT_EQ(doc["fabric"]["unnamed_hcas"], 0);
  std::string bad = writeScratchFile("bad.hca-map", "H-1 node1\n");
  expectOneLineError(runRailkit("fabric " + kFixtures + "topograph-su8-leaves.out --hca-map " + bad),
                     "bad.hca-map:1: expected 'HCA HOST DEVICE'");
}

TEST(FabricCli, ReadsStandardInput) {
  ProcessResult r = runRailkit("fabric - < " + kFixtures + "topograph-port-down.out");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("railkit fabric: stdin"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[fabric-no-switch]"), std::string::npos) << r.out;
}

TEST(FabricCli, TruncatedCaptureIsOneLineAndExitTwo) {
  std::string text = slurp(kFixtures + "topograph-su8-leaves.out");
  auto cut = text.find("[4]\t\"H-e09d730300857988\"");
  ASSERT_NE(cut, std::string::npos);
  std::string path = writeScratchFile("truncated.txt", text.substr(0, cut + 14));
  expectOneLineError(runRailkit("fabric " + path),
                     "truncated.txt:13: expected '[port] \"peer\"[port]'; found");
}

TEST(FabricCli, BinaryAndNonFilesAreRefused) {
  std::string binary = writeScratchFile("binary.txt", std::string("\x7f"
                                                                  "ELF\x02\x01\x01\0\0\0",
                                                                  10));
  expectOneLineError(runRailkit("fabric " + binary), "binary.txt:1: byte 0x02 at column 5: binary data");
  expectOneLineError(runRailkit("fabric /dev/zero"), "/dev/zero");
  expectOneLineError(runRailkit("fabric " + cliScratch().string()), "directory");
  expectOneLineError(runRailkit("fabric " + makeFifo(cliScratch() / "fifo")), "FIFO");
  expectOneLineError(runRailkit("fabric /nonexistent/fabric.txt"), "/nonexistent/fabric.txt");
}

// Without a file, railkit runs ibnetdiscover from the PATH.
TEST(FabricCli, RunsIbnetdiscoverWhereItIsInstalled) {
  namespace fs = std::filesystem;
  fs::path bin = cliScratch() / "bin";
  fs::create_directories(bin);
  auto script = [&](const std::string& body) {
    std::string path = writeScratchFile(bin / "ibnetdiscover", "#!/bin/sh\n" + body);
    fs::permissions(path, fs::perms::owner_all);
  };
  auto fabric = [&](const std::string& path_env) {
    return railkit::testing::runShell("PATH=" + path_env + " exec " + railkit::testing::railkitBinary() +
                                      " fabric --json");
  };
  script("exec cat " + kFixtures + "topograph-su8-leaves.out\n");
  // The scripts use the machine's tools (cat); railkit finds ibnetdiscover first.
  const std::string with_bin = bin.string() + ":$PATH";
  ProcessResult ran = fabric(with_bin);
  EXPECT_EQ(ran.status, 1) << ran.err;
  auto doc = nlohmann::json::parse(ran.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << ran.out;
  EXPECT_EQ(doc["source"], "ibnetdiscover");
  EXPECT_EQ(doc["findings"][0]["id"], "rail-miscabled");
  script("echo 'ibwarn: [1] mad_rpc: _do_madrpc failed' >&2\necho \"can't open MAD port\" >&2\nexit 255\n");
  expectOneLineError(fabric(with_bin), "fabric: ibnetdiscover exited 255: can't open MAD port");
  expectOneLineError(
      fabric((cliScratch() / "empty").string()),
      "fabric: no ibnetdiscover output given, and ibnetdiscover (infiniband-diags) is not installed "
      "here");
}

TEST(FabricCli, SelfContradictingFileIsRefused) {
  std::string path = writeScratchFile("contradiction.txt",
                                      "Switch\t8 \"S-1\"\n[2]\t\"H-1\"[1]\n\nCa\t1 \"H-1\"\n"
                                      "[1]\t\"S-1\"[3]\n");
  expectOneLineError(
      runRailkit("fabric " + path),
      "contradiction.txt:2: this line cables \"S-1\"[2] to \"H-1\"[1], but line 5 cables \"H-1\"[1] "
      "to \"S-1\"[3]");
}

TEST(FabricCli, LldpCapturesOfEveryNode) {
  const std::string lldp = kFixtures + "lldp/";
  ProcessResult r =
      runRailkit("fabric --json --lldp node001=" + lldp +
                 "lldpd-1.0.16-two-leaves.json --lldp node002=" + lldp + "lldpd-1.0.16-two-leaves.json0");
  EXPECT_EQ(r.status, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["source"], "lldp (2 nodes)");
  EXPECT_EQ(doc["fabric"]["leaves"], 2);
  EXPECT_EQ(doc["fabric"]["hosts"], 2);
  EXPECT_EQ(doc["rails"][1]["device"], "eth1");
  EXPECT_EQ(doc["rails"][1]["leaves"][0]["leaf"], "leaf-r1");
  ProcessResult text = runRailkit("fabric --lldp node001=" + lldp + "lldpd-1.0.16-two-leaves.json");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("rail 1  eth1  leaf-r1 x1"), std::string::npos) << text.out;
  std::string bad = writeScratchFile("node009.json", "{\"lldp\": {\"interface\": \"eth0\"}}");
  expectOneLineError(runRailkit("fabric --lldp " + bad),
                     "node009.json: lldp.interface: expected an object or a list, found a string");
  expectOneLineError(runRailkit("fabric " + kFixtures + "topograph-su8-leaves.out --lldp " + bad),
                     "give either ibnetdiscover's output (InfiniBand) or --lldp captures");
}

TEST(FabricCli, TopologyOutWritesEachSchedulersFile) {
  std::string dir = (cliScratch() / "fabric-topology").string();
  std::filesystem::remove_all(dir);
  std::string path = writeScratchFile("topology.txt", RailFabricText(8, 4, 2).text());
  ProcessResult r = runRailkit("fabric --topology-out " + dir + " " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Tiers for the schedulers (--topology-out DIR writes them):\n"
                       "  block      1 group: leaf-r0 (4 switches, 8 hosts)\n"
                       "  spine      1 group: spine-1 (2 switches, 8 hosts)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Written for the schedulers: " + dir + "/node-labels.json"), std::string::npos)
      << r.out;
  for (const char* file : {"node-labels.json", "label-nodes.sh", "volcano-hypernodes.yaml",
                           "kueue-topology.yaml", "topology.conf"})
    EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/" + file)) << file;
  EXPECT_NE(slurp(dir + "/topology.conf").find("SwitchName=leaf-r0 Nodes=node[001-008]\n"),
            std::string::npos);
  EXPECT_NE(slurp(dir + "/topology.conf").find("SwitchName=spine-1 Switches=leaf-r0\n"), std::string::npos);
  auto labels = nlohmann::json::parse(slurp(dir + "/node-labels.json"), nullptr, false);
  ASSERT_FALSE(labels.is_discarded());
  EXPECT_EQ(labels["nodes"]["node008"]["network.topology.nvidia.com/spine"], "spine-1");
  // A directory that cannot be made: one line, exit 2.
  expectOneLineError(runRailkit("fabric --topology-out " + path + "/sub " + path),
                     "fabric --topology-out " + path + "/sub: cannot create the directory");
}

// The report draws the fabric: the rails-by-leaves matrix with the moved
// cable's cell marked, the tiers, and the finding counted in the verdict.
TEST(FabricCli, ReportDrawsTheRailsByLeaves) {
  RailFabricText text(16, 8, 4);
  text.move(4, 3, 5, 21);  // node005's rail-3 cable on leaf-r5
  std::string fabric_txt = writeScratchFile("report-fabric.txt", text.text());
  std::string doc = (cliScratch() / "report-fabric.json").string();
  std::string html = (cliScratch() / "report-fabric.html").string();
  ProcessResult r = runRailkit("fabric --json-out " + doc + " " + fabric_txt);
  EXPECT_EQ(r.status, 1) << r.err;
  ProcessResult page = runRailkit("report " + doc + " -o " + html);
  ASSERT_EQ(page.status, 0) << page.err;
  std::string out = slurp(html);
  auto at = out.find("<section id=\"fabric\">");
  ASSERT_NE(at, std::string::npos) << out.substr(0, 2000);
  std::string fabric = out.substr(at, out.find("</section>", at) - at);
  EXPECT_NE(fabric.find("<table class=\"fabric\">"), std::string::npos) << fabric;
  // One stray cell: rail 3's one HCA on leaf-r5.
  std::size_t strays = 0;
  for (auto p = fabric.find("class=\"stray\""); p != std::string::npos;
       p = fabric.find("class=\"stray\"", p + 1))
    ++strays;
  EXPECT_EQ(strays, 1u) << fabric;
  EXPECT_NE(fabric.find("<td class=\"stray\" title=\"a cable on another rail's leaf\">1 &#9888;</td>"),
            std::string::npos)
      << fabric;
  EXPECT_NE(fabric.find("rail-miscabled"), std::string::npos);
  EXPECT_NE(fabric.find("block: 1 group(s): leaf-r0"), std::string::npos) << fabric;
  EXPECT_NE(out.find("class=\"verdict fail\""), std::string::npos);
}

TEST(FabricCli, HelpListRulesAndExplain) {
  ProcessResult help = runRailkit("fabric --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("ibnetdiscover > fabric.txt && railkit fabric fabric.txt"), std::string::npos)
      << help.out;
  ProcessResult list = runRailkit("fabric --list-rules --json");
  EXPECT_EQ(list.status, 0);
  auto doc = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["command"], "fabric");
  EXPECT_EQ(doc["rules"].size(), 10u);
  // explain knows every id fabric lists, naming fabric among its reporters.
  for (const auto& rule : doc["rules"]) {
    std::string id = rule["id"];
    ProcessResult r = runRailkit("explain " + id + " --json");
    ASSERT_EQ(r.status, 0) << id << ": " << r.err;
    auto why = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(why.is_discarded()) << id;
    bool named = false;
    for (const auto& by : why["reported_by"]) named |= by["command"] == "fabric";
    EXPECT_TRUE(named) << id << ": " << r.out;
  }
  ProcessResult explain = runRailkit("explain fabric-link-degraded");
  EXPECT_EQ(explain.status, 0) << explain.err;
  EXPECT_NE(explain.out.find("Reported by `railkit fabric`"), std::string::npos) << explain.out;
}

}  // namespace
}  // namespace railkit::fabric
