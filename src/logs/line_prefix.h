#pragma once
// What launchers and log collectors put in front of every line of a program's
// output, so table parsers see the program's own text: mpirun's
// `[1,0]<stdout>:`, `kubectl logs --prefix`'s `[pod/name/container] `,
// `kubectl logs --timestamps`' RFC 3339 stamp, and `srun -l`'s `12: `.
// Cheap on lines that carry none of them (a few byte compares).

#include <string_view>

namespace railkit::logs {

std::string_view stripLinePrefix(std::string_view line);

}  // namespace railkit::logs
