#pragma once
// The git commit the binary was built from ("unknown" outside a checkout;
// "-dirty" when tracked files differed from it), for --version. Its
// definition is generated at build time (cmake/revision.cmake), into the
// executable only, so a new commit relinks railkit and no test.

namespace railkit::cli {

const char* gitRevision();

}  // namespace railkit::cli
