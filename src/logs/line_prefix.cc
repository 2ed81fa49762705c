#include "logs/line_prefix.h"

namespace railkit::logs {
namespace {

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// "[1,0]<stdout>:" / "[1,0]<stderr>:"
bool stripMpirun(std::string_view& line) {
  if (line.size() < 6 || line[0] != '[' || !isDigit(line[1])) return false;
  // Bounded byte loops: a search call per line cost more than the prefix.
  size_t close = 2;
  while (close <= 24 && close + 5 <= line.size() && !(line[close] == ']' && line.substr(close, 5) == "]<std"))
    ++close;
  if (close > 24 || close + 5 > line.size()) return false;
  size_t colon = close + 5;
  while (colon <= close + 10 && colon + 2 <= line.size() && !(line[colon] == '>' && line[colon + 1] == ':'))
    ++colon;
  if (colon > close + 10 || colon + 2 > line.size()) return false;
  line.remove_prefix(colon + 2);
  return true;
}

// "[pod/nccl-worker-0/main] "
bool stripKubectlPrefix(std::string_view& line) {
  if (line.size() < 6 || line.compare(0, 5, "[pod/") != 0) return false;
  auto close = line.find("] ");
  if (close == std::string_view::npos || close > 300) return false;
  line.remove_prefix(close + 2);
  return true;
}

// "2024-05-01T12:00:00.123456789Z " or with a +hh:mm offset.
bool stripTimestamp(std::string_view& line) {
  if (line.size() < 21 || !isDigit(line[0]) || line[4] != '-' || line[7] != '-' || line[10] != 'T' ||
      line[13] != ':')
    return false;
  auto space = line.find(' ', 19);
  if (space == std::string_view::npos || space > 40) return false;
  line.remove_prefix(space + 1);
  return true;
}

// "12: " from srun -l.
bool stripSrun(std::string_view& line) {
  size_t i = 0;
  while (i < line.size() && i < 7 && isDigit(line[i])) ++i;
  if (i == 0 || i + 1 >= line.size() || line[i] != ':' || line[i + 1] != ' ') return false;
  line.remove_prefix(i + 2);
  return true;
}

}  // namespace

std::string_view stripLinePrefix(std::string_view line) {
  for (int round = 0; round < 4; ++round) {
    if (line.empty()) return line;
    char c = line[0];
    bool stripped = false;
    if (c == '[')
      stripped = stripMpirun(line) || stripKubectlPrefix(line);
    else if (isDigit(c))
      stripped = stripTimestamp(line) || stripSrun(line);
    if (!stripped) return line;
  }
  return line;
}

}  // namespace railkit::logs
