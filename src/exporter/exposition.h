#pragma once
// The Prometheus text exposition format (version 0.0.4), written, never
// parsed: families with # HELP and # TYPE, every sample of a family together,
// label values escaped (backslash, double quote, newline) and made valid
// UTF-8, since they come from files of a --root tree that may hold any bytes.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railkit::exporter {

struct MetricFamily;

using Labels = std::vector<std::pair<std::string, std::string>>;

// "a\"b" for a"b; invalid UTF-8 bytes become U+FFFD.
std::string escapeLabelValue(std::string_view value);

// A number as Prometheus reads it: integers exactly ("50000000000"), other
// values in the shortest form that reads back the same.
std::string formatValue(double value);
std::string formatValue(uint64_t value);

class Exposition {
 public:
  // Starts a family (# HELP and # TYPE from its declaration in families.h);
  // the samples that follow belong to it.
  void family(const MetricFamily& family);
  // One sample of the current family: name{labels} value.
  void sample(const Labels& labels, const std::string& value);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::string name_;
};

}  // namespace railkit::exporter
