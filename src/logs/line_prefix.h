#pragma once
// What launchers and log collectors put in front of every line of a program's
// output, so table parsers see the program's own text: mpirun's
// `[1,0]<stdout>:`, `kubectl logs --prefix`'s `[pod/name/container] `,
// `kubectl logs --timestamps`' RFC 3339 stamp, and `srun -l`'s `12: `.
// Cheap on lines that carry none of them (a few byte compares).

#include <string_view>

namespace railkit::logs {

std::string_view stripLinePrefix(std::string_view line);

// The index of the first byte that is not ' ' or '\t', or npos. Every line
// of a log reaches the table parsers, and find_first_not_of makes a libc call
// per byte it looks at.
inline size_t firstNonBlank(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] != ' ' && line[i] != '\t') return i;
  return std::string_view::npos;
}

}  // namespace railkit::logs
