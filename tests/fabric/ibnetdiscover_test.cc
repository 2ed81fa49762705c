// The ibnetdiscover parser: every line shape ibnetdiscover (and ibsim's net
// files) print, and one clear error, with its line, for input that is not
// such a file.
#include "fabric/ibnetdiscover.h"

#include <gtest/gtest.h>

#include <string>

#include "fabric/rails.h"

namespace railkit::fabric {
namespace {

const char* const kTwoNodes = R"(#
# Topology file: generated on Wed Aug  6 16:11:23 2025
#
vendid=0x2c9
devid=0xd2f2
switchguid=0x2c5eab0300b87b40(2c5eab0300b87b40)
Switch	65 "S-2c5eab0300b87b40"		# "MF0;leaf-r3:MQM9701/U1" enhanced port 0 lid 73 lmc 0
[1]	"H-e09d7303007a4bd8"[1](e09d7303007a4bd8) 		# "node017 mlx5_3" lid 647 4xNDR
[35]	"S-2c5eab0300c26280"[32]		# "MF0;spine-02:MQM9701/U1" lid 236 2xHDR

vendid=0x2c9
caguid=0xe09d7303007a4bd8
Ca	1 "H-e09d7303007a4bd8"		# "node017 mlx5_3"
[1](e09d7303007a4bd8) 	"S-2c5eab0300b87b40"[1]		# lid 647 lmc 0 "MF0;leaf-r3:MQM9701/U1" lid 73 4xNDR
)";

const Node& byId(const Fabric& f, const std::string& id) {
  for (const auto& n : f.nodes)
    if (n.id == id) return n;
  throw std::runtime_error("no node " + id);
}

TEST(Ibnetdiscover, ReadsRecordsPortsPeersAndRates) {
  auto f = parseIbnetdiscover(kTwoNodes, "ib.out");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->nodes.size(), 3u);
  const Node& leaf = byId(*f, "S-2c5eab0300b87b40");
  EXPECT_EQ(leaf.kind, NodeKind::kSwitch);
  EXPECT_EQ(leaf.port_count, 65);
  EXPECT_EQ(leaf.line, 7);
  EXPECT_EQ(leaf.description, "MF0;leaf-r3:MQM9701/U1");
  EXPECT_EQ(switchName(leaf), "leaf-r3");
  ASSERT_EQ(leaf.ports.size(), 2u);
  EXPECT_EQ(leaf.ports[0].port, 1);
  EXPECT_EQ(f->nodes[leaf.ports[0].peer].id, "H-e09d7303007a4bd8");
  EXPECT_EQ(leaf.ports[0].peer_port, 1);
  EXPECT_EQ(linkRate(leaf.ports[0]), "4xNDR");
  EXPECT_EQ(leaf.ports[0].line, 8);
  EXPECT_EQ(linkRate(leaf.ports[1]), "2xHDR");
  const Node& ca = byId(*f, "H-e09d7303007a4bd8");
  EXPECT_EQ(ca.kind, NodeKind::kCa);
  EXPECT_EQ(ca.description, "node017 mlx5_3");
  // The spine has no record here: the leaf's line names it, and the cable
  // is recorded at its end too.
  const Node& spine = byId(*f, "S-2c5eab0300c26280");
  EXPECT_EQ(spine.line, 0);
  EXPECT_EQ(spine.kind, NodeKind::kSwitch);
  EXPECT_EQ(spine.description, "MF0;spine-02:MQM9701/U1");
  ASSERT_EQ(spine.ports.size(), 1u);
  EXPECT_EQ(spine.ports[0].port, 32);
  EXPECT_EQ(spine.ports[0].peer_port, 35);
}

TEST(Ibnetdiscover, ReadsIbsimNetFiles) {
  // ibsim's format: Hca headers, names as ids, no comments, port options.
  auto f = parseIbnetdiscover(
      "width=3\nSwitch\t8 \"leaf1\"\n[1]\t\"node001 mlx5_0\"[1]\n\nHca\t1 \"node001 mlx5_0\"\n"
      "[1]\t\"leaf1\"[1]\tw=1\n",
      "net");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->nodes.size(), 2u);
  EXPECT_EQ(f->nodes[1].kind, NodeKind::kCa);
  EXPECT_EQ(f->nodes[1].description, "node001 mlx5_0");
  EXPECT_EQ(linkRate(f->nodes[1].ports[0]), "");
}

TEST(Ibnetdiscover, WindowsLineEndingsAndGroupingLines) {
  std::string text =
      "Non-Chassis Nodes\r\n\r\nSwitch 8 \"S-1\" # \"sw\" base port 0 lid 1 lmc 0\r\n[1] \"H-2\"[1] "
      "# \"h mlx5_0\" lid 2 4xEDR\r\n";
  auto f = parseIbnetdiscover(text, "x");
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(linkRate(f->nodes[0].ports[0]), "4xEDR");
}

// Each bad input: the error names the file and line and says what is wrong.
struct Bad {
  const char* name;
  std::string text;
  std::string error;
};

class IbnetdiscoverBad : public ::testing::TestWithParam<Bad> {};

TEST_P(IbnetdiscoverBad, OneClearError) {
  auto f = parseIbnetdiscover(GetParam().text, "in.txt");
  ASSERT_FALSE(f) << GetParam().name;
  EXPECT_EQ(f.error().code, ErrorCode::kInvalidInput);
  EXPECT_EQ(f.error().message, GetParam().error);
  EXPECT_EQ(f.error().message.find('\n'), std::string::npos);
}

const std::string kSwitch = "Switch\t8 \"S-1\"\t# \"leaf\" enhanced port 0 lid 1 lmc 0\n";

INSTANTIATE_TEST_SUITE_P(
    Inputs, IbnetdiscoverBad,
    ::testing::Values(
        Bad{"empty", "",
            "in.txt: no Switch, Ca or Rt record: not ibnetdiscover output (empty, or cut before its "
            "first record?)"},
        Bad{"comments only", "#\n# Topology file\n#\n",
            "in.txt: no Switch, Ca or Rt record: not ibnetdiscover output (empty, or cut before its first "
            "record?)"},
        Bad{"binary",
            kSwitch + std::string("\x7f"
                                  "ELF\x02\x01\x01\0\0",
                                  9),
            "in.txt:2: byte 0x02 at column 5: binary data, not ibnetdiscover output"},
        Bad{"truncated port line", kSwitch + "[3]\t\"H-00",
            "in.txt:2: expected '[port] \"peer\"[port]'; found '[3]\t\"H-00' (a truncated file?)"},
        Bad{"truncated peer port", kSwitch + "[3]\t\"H-0002\"[",
            "in.txt:2: expected '[port] \"peer\"[port]'; found '[3]\t\"H-0002\"[' (a truncated file?)"},
        Bad{"prose", "Hello, this is a log\n",
            "in.txt:1: expected a node record (Switch, Ca or Rt), a port line ([port] \"peer\"[port]) or "
            "key=value; "
            "found 'Hello, this is a log'"},
        Bad{"port outside a record", "[1]\t\"S-1\"[2]\n",
            "in.txt:1: a port line outside a node record (no Switch/Ca/Rt line above it): '[1]\t\"S-1\"[2]'"},
        Bad{"header without id", "Switch 8\n",
            "in.txt:1: expected 'Switch PORTS \"ID\"' with 1 to 255 ports; found "
            "'Switch 8'"},
        Bad{"port beyond the count", kSwitch + "[9]\t\"H-1\"[1]\n",
            "in.txt:2: port 9 of \"S-1\", which has 8 ports"},
        Bad{"port listed twice", kSwitch + "[2]\t\"H-1\"[1]\n[2]\t\"H-2\"[1]\n",
            "in.txt:3: port 2 of \"S-1\" is listed twice (first at line 2)"},
        Bad{"node twice", kSwitch + "\n" + kSwitch,
            "in.txt:3: node \"S-1\" is described a second time (first at line 1)"},
        Bad{"cabled to itself", kSwitch + "[2]\t\"S-1\"[2]\n",
            "in.txt:2: port 2 of \"S-1\" is cabled to itself"},
        Bad{"two ends disagree",
            kSwitch + "[2]\t\"H-1\"[1]\n\nCa\t1 \"H-1\"\t# \"n mlx5_0\"\n[1]\t\"S-1\"[3]\n",
            "in.txt:2: this line cables \"S-1\"[2] to \"H-1\"[1], but line 5 cables \"H-1\"[1] to "
            "\"S-1\"[3]"},
        Bad{"two cables into one port", kSwitch + "[1]\t\"S-3\"[1]\n\nSwitch\t2 \"S-2\"\n[1]\t\"S-3\"[1]\n",
            "in.txt:5: this line cables \"S-2\"[1] to \"S-3\"[1], but line 2 cables \"S-1\"[1] to "
            "\"S-3\"[1]"},
        Bad{"peer port beyond its count", kSwitch + "[1]\t\"H-1\"[4]\n\nCa\t2 \"H-1\"\n",
            "in.txt:2: \"S-1\"[1] is cabled to port 4 of \"H-1\", which has 2 ports (line 4)"},
        Bad{"a huge line", kSwitch + std::string(5000, 'a'),
            "in.txt:2: a line of 5000 bytes; ibnetdiscover's lines are short (is this a topology file?)"}),
    [](const ::testing::TestParamInfo<Bad>& info) {
      std::string name = info.param.name;
      for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

}  // namespace
}  // namespace railkit::fabric
