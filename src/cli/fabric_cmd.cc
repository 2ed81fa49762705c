// railkit fabric [FILE] [--json] [--list-rules]: the fabric as the switches
// see it. Reads ibnetdiscover's output (or runs ibnetdiscover), checks its cabling, rails and links, and
// prints the rails-by-leaves picture beside the findings.
#include <fmt/core.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/rule_list.h"
#include "fabric/check.h"
#include "fabric/hca_map.h"
#include "fabric/iblinkinfo.h"
#include "fabric/ibnetdiscover.h"
#include "fabric/perfquery.h"
#include "fabric/report.h"
#include "fabric/sminfo.h"
#include "sys/run_command.h"

namespace railkit::cli {
namespace {

struct FabricOptions {
  std::string ibnetdiscover;
  std::vector<std::string> sminfo;
  std::vector<std::string> perfquery;
  std::string hca_map;
  std::string iblinkinfo;
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

int runFabric(const FabricOptions& opts, CommandContext& context) {
  if (opts.list_rules) return listRuleTable("fabric", fabric::allFabricChecks(), opts.output);
  if (opts.perfquery.size() > 2)
    return reportError(
        Error{ErrorCode::kUsage, fmt::format("fabric: --perfquery given {} times; it takes one read, "
                                             "or an earlier and a later one",
                                             opts.perfquery.size())});
  auto parsed =
      opts.ibnetdiscover.empty() ? discover(context.env) : fabric::readIbnetdiscoverFile(opts.ibnetdiscover);
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
  auto report =
      fabric::analyseFabric(*parsed, sm, counters, map ? &*map : nullptr, links ? &*links : nullptr);
  nlohmann::json doc = fabric::fabricDocument(report);
  // Node descriptions are any bytes the hosts wrote; JSON must stay UTF-8.
  doc = nlohmann::json::parse(doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  auto st =
      emitOutput(opts.output, std::move(doc), [&] { fmt::print("{}", fabric::renderFabricText(report)); });
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
  command->add_flag("--list-rules", opts->list_rules, "List every fabric check (id, severity, title)");
  addOutputFlags(*command, opts->output);
  command->callback(
      [&context, opts] { context.action = [opts, &context] { return runFabric(*opts, context); }; });
}

}  // namespace railkit::cli
