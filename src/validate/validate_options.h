#pragma once
// The options `railkit validate` has of its own, declared once like bench's
// (bench/bench_options.h): the CLI registers and checks them from this table
// and docs/validate.md's option table is generated from it together with the
// bench rows validate shares.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bench/bench_options.h"

namespace railkit::validate {

struct ValidateFlags {
  ValidateFlags();  // the table's defaults
  std::string root;
  bool live_net = false;  // --live-net: the network state of this namespace even with --root
  std::optional<int> expect_nics, expect_gpus;
  std::string rails;
  std::string lldpctl;  // phase 1's LLDP read; empty: off
  std::string ops;
  std::string pairs_bytes;
  int pairs_iters = 0;
  double slow_fraction = 0;
  double collectives_budget = 0;
  bool fail_fast = false;
  bool list_rules = false;
};

using ValidateField =
    std::variant<std::string ValidateFlags::*, int ValidateFlags::*, double ValidateFlags::*,
                 std::optional<int> ValidateFlags::*, bool ValidateFlags::*>;

struct ValidateOption : bench::OptionSpec {
  ValidateField field;
};

// validate's own options, in --help and docs order (bench's shared rows follow).
const std::vector<ValidateOption>& validateOptions();

}  // namespace railkit::validate
