// railkit fabric [FILE] [--json] [--list-rules]: the fabric as the switches
// see it. Reads ibnetdiscover's output (or runs ibnetdiscover), checks its cabling, rails and links, and
// prints the rails-by-leaves picture beside the findings.
#include <fmt/core.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/rule_list.h"
#include "core/atomic_file.h"
#include "fabric/check.h"
#include "fabric/hca_map.h"
#include "fabric/iblinkinfo.h"
#include "fabric/ibnetdiscover.h"
#include "fabric/lldp.h"
#include "fabric/perfquery.h"
#include "fabric/report.h"
#include "fabric/scheduler_topology.h"
#include "fabric/sminfo.h"
#include "k8s/render/emit.h"
#include "sys/run_command.h"

namespace railkit::cli {
namespace {

struct FabricOptions {
  std::string ibnetdiscover;
  std::vector<std::string> sminfo;
  std::vector<std::string> perfquery;
  std::string hca_map;
  std::string iblinkinfo;
  std::string topology_out;
  std::vector<std::string> lldp;      // HOST=FILE or NODE.json, one per node
  std::vector<std::string> data_ifs;  // --data-if: the rails' interfaces, in order
  bool list_rules = false;
  OutputOptions output;
};

// No file given: run ibnetdiscover here, where it is installed.
Result<fabric::Fabric> discover(const Environment& env) {
  sys::CommandOptions options;
  options.env = &env;
  auto text = sys::runCommand({"ibnetdiscover"}, options);
  if (!text && text.error().code == ErrorCode::kNotFound)
    return makeError(
        ErrorCode::kUsage,
        "fabric: no ibnetdiscover output given, and ibnetdiscover (infiniband-diags) is not "
        "installed here: give its output as FILE (ibnetdiscover > fabric.txt), or - for standard input");
  if (!text) return tl::unexpected(text.error().withContext("fabric"));
  return fabric::parseIbnetdiscover(*text, "ibnetdiscover");
}

// The file names --topology-out writes, one per scheduler's form.
constexpr const char* kNodeLabelsFile = "node-labels.json";
constexpr const char* kLabelScriptFile = "label-nodes.sh";
constexpr const char* kHyperNodesFile = "volcano-hypernodes.yaml";
constexpr const char* kKueueFile = "kueue-topology.yaml";
constexpr const char* kSlurmFile = "topology.conf";

// A file name from the command line inside a YAML '#' comment: one line.
std::string commentLine(const std::string& text) {
  std::string out;
  for (unsigned char c : text) out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
  return out;
}

// --topology-out DIR: the fabric's tiers as each scheduler reads them; the
// paths written, in the order above.
Result<std::vector<std::string>> writeTopology(const fabric::Fabric& parsed, const fabric::FabricTiers& tiers,
                                               const std::string& dir) {
  if (tiers.tiers.empty())
    return makeError(ErrorCode::kInvalidInput,
                     "fabric --topology-out: no host HCA named '<host> <device>' is cabled to a switch, so "
                     "there is no node to place (name them with --hca-map)");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return makeError(ErrorCode::kIo,
                     "fabric --topology-out " + dir + ": cannot create the directory: " + ec.message());
  auto topology = fabric::schedulerTopology(parsed, tiers);
  std::string source = commentLine(parsed.source);
  std::string hypernodes =
      "# Volcano HyperNodes (topology.volcano.sh/v1alpha1), written by railkit fabric from " + source +
      ":\n# tier 1 the blocks with their nodes, each tier above the HyperNodes below it.\n";
  for (const auto& object : topology.hypernodes) hypernodes += "---\n" + k8s::render::emitYaml(object);
  std::string kueue = "# Kueue Topology, written by railkit fabric from " + source +
                      ": its levels are the labels label-nodes.sh sets.\n---\n" +
                      k8s::render::emitYaml(topology.kueue_topology);
  const std::pair<const char*, std::string> files[] = {
      {kNodeLabelsFile,
       topology.node_labels.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"},
      {kLabelScriptFile, topology.label_script},
      {kHyperNodesFile, hypernodes},
      {kKueueFile, kueue},
      {kSlurmFile, topology.slurm_topology},
  };
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    std::string path = (std::filesystem::path(dir) / name).string();
    if (auto st = writeFileAtomic(path, text, "fabric --topology-out"); !st)
      return tl::unexpected(st.error());
    written.push_back(path);
  }
  ::chmod(written[1].c_str(), 0755);
  return written;
}

int runFabric(const FabricOptions& opts, CommandContext& context) {
  if (opts.list_rules) return listRuleTable("fabric", fabric::allFabricChecks(), opts.output);
  if (opts.perfquery.size() > 2)
    return reportError(
        Error{ErrorCode::kUsage, fmt::format("fabric: --perfquery given {} times; it takes one read, "
                                             "or an earlier and a later one",
                                             opts.perfquery.size())});
  if (!opts.lldp.empty() && !opts.ibnetdiscover.empty())
    return reportError(Error{ErrorCode::kUsage,
                             "fabric: give either ibnetdiscover's output (InfiniBand) or --lldp captures "
                             "(Ethernet), not both"});
  std::vector<std::string> rail_names;
  Result<fabric::Fabric> parsed = tl::unexpected(Error{});
  if (!opts.lldp.empty()) {
    std::vector<fabric::LldpCapture> captures;
    for (const auto& spec : opts.lldp) {
      auto capture = fabric::readLldpFile(spec);
      if (!capture) return reportError(capture.error());
      captures.push_back(std::move(*capture));
    }
    rail_names = opts.data_ifs.empty() ? fabric::lldpInterfaces(captures) : opts.data_ifs;
    parsed =
        fabric::lldpFabric(captures, opts.data_ifs,
                           fmt::format("lldp ({} node{})", captures.size(), captures.size() == 1 ? "" : "s"));
  } else {
    parsed = opts.ibnetdiscover.empty() ? discover(context.env)
                                        : fabric::readIbnetdiscoverFile(opts.ibnetdiscover);
  }
  if (!parsed) return reportError(parsed.error());
  std::vector<fabric::SmCapture> sm;
  for (const auto& path : opts.sminfo) {
    auto capture = fabric::readSminfoFile(path);
    if (!capture) return reportError(capture.error());
    sm.push_back(std::move(*capture));
  }
  std::vector<fabric::CounterCapture> counters;
  for (const auto& path : opts.perfquery) {
    auto capture = fabric::readPerfqueryFile(path);
    if (!capture) return reportError(capture.error());
    counters.push_back(std::move(*capture));
  }
  std::optional<fabric::HcaMap> map;
  if (!opts.hca_map.empty()) {
    auto read = fabric::readHcaMapFile(opts.hca_map);
    if (!read) return reportError(read.error());
    map = std::move(*read);
  }
  std::optional<fabric::LinkInfoCapture> links;
  if (!opts.iblinkinfo.empty()) {
    auto read = fabric::readIblinkinfoFile(opts.iblinkinfo);
    if (!read) return reportError(read.error());
    links = std::move(*read);
  }
  auto report = fabric::analyseFabric(*parsed, sm, counters, map ? &*map : nullptr, links ? &*links : nullptr,
                                      rail_names.empty() ? nullptr : &rail_names);
  nlohmann::json doc = fabric::fabricDocument(report);
  std::vector<std::string> written;
  if (!opts.topology_out.empty()) {
    auto files = writeTopology(*parsed, report.tiers, opts.topology_out);
    if (!files) return reportError(files.error());
    written = std::move(*files);
    doc["topology_files"] = written;
  }
  // Node descriptions are any bytes the hosts wrote; JSON must stay UTF-8.
  doc = nlohmann::json::parse(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  auto st = emitOutput(opts.output, std::move(doc), [&] {
    fmt::print("{}", fabric::renderFabricText(report));
    if (!written.empty()) fmt::print("\nWritten for the schedulers: {}\n", fmt::join(written, " "));
  });
  if (!st) return reportError(st.error());
  int status = report.errors > 0 ? kExitFindings : kExitOk;
  context.keepUntilExit(std::move(parsed));
  return status;
}

}  // namespace

void registerFabric(CLI::App& app, CommandContext& context) {
  auto* command = app.add_subcommand(
      "fabric", "Check the InfiniBand fabric as the switches see it: rails, cabling, links (ibnetdiscover)");
  auto opts = std::make_shared<FabricOptions>();
  command
      ->add_option("ibnetdiscover", opts->ibnetdiscover,
                   "ibnetdiscover's output (ibnetdiscover > FILE), or - for standard input; without it, "
                   "railkit runs ibnetdiscover here")
      ->type_name("FILE");
  command
      ->add_option("--sminfo", opts->sminfo,
                   "What sminfo printed (sminfo > FILE 2>&1); repeat it for nodes in different parts of the "
                   "fabric: checks that one subnet manager is master")
      ->type_name("FILE")
      // One file per --sminfo: a file after it stays the positional argument.
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command
      ->add_option(
          "--perfquery", opts->perfquery,
          "What perfquery printed for the fabric's ports (blocks of '# Port counters: Lid L port P'); "
          "give it twice, earlier read first, to report counters that rose between the reads")
      ->type_name("FILE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command
      ->add_option("--hca-map", opts->hca_map,
                   "Names for HCAs whose node description is not '<host> <device>': one 'HCA-ID HOST DEVICE' "
                   "line each (the id as ibnetdiscover prints it, or its GUID)")
      ->type_name("FILE");
  command
      ->add_option(
          "--iblinkinfo", opts->iblinkinfo,
          "What iblinkinfo printed: every switch port with its state, to find ports Down where the same "
          "port of their peers is Active")
      ->type_name("FILE");
  command
      ->add_option(
          "--lldp", opts->lldp,
          "An Ethernet (RoCE) fabric instead: what 'lldpctl -f json' printed on each node, one file per "
          "node, named after it (node017.json) or given as HOST=FILE; repeat it for every node")
      ->type_name("FILE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command
      ->add_option(
          "--data-if", opts->data_ifs,
          "With --lldp: the nodes' data interfaces in rail order (validate's --data-if), comma-separated; "
          "other interfaces are left out. Default: every interface heard on, in natural order")
      ->type_name("IF,...")
      ->delimiter(',');
  command
      ->add_option(
          "--topology-out", opts->topology_out,
          "Write the fabric's tiers for the schedulers into DIR: node-labels.json and label-nodes.sh "
          "(topograph's label keys), volcano-hypernodes.yaml, kueue-topology.yaml, topology.conf (Slurm)")
      ->type_name("DIR");
  command->add_flag("--list-rules", opts->list_rules, "List every fabric check (id, severity, title)");
  addOutputFlags(*command, opts->output);
  command->callback(
      [&context, opts] { context.action = [opts, &context] { return runFabric(*opts, context); }; });
}

}  // namespace railkit::cli
