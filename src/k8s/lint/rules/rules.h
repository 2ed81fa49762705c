#pragma once
// One function per lint rule; all_rules.cc lists them in one table.
#include <vector>

#include "k8s/lint/lint.h"

namespace railkit::k8s::rules {

void checkSchema(const LintInput& input, std::vector<Finding>& out);
void checkYamlDuplicateKey(const LintInput& input, std::vector<Finding>& out);
void checkUnexpandedPlaceholder(const LintInput& input, std::vector<Finding>& out);
void checkCniConfigInvalidJson(const LintInput& input, std::vector<Finding>& out);
void checkPrivilegedContainer(const LintInput& input, std::vector<Finding>& out);
void checkHostNetwork(const LintInput& input, std::vector<Finding>& out);
void checkCapPrefix(const LintInput& input, std::vector<Finding>& out);
void checkIpcLockMissing(const LintInput& input, std::vector<Finding>& out);
void checkShmDefault(const LintInput& input, std::vector<Finding>& out);
void checkExtendedResourceMismatch(const LintInput& input, std::vector<Finding>& out);
void checkSlotsGpuMismatch(const LintInput& input, std::vector<Finding>& out);
void checkNcclEnvNotForwarded(const LintInput& input, std::vector<Finding>& out);
void checkOmpiBtlIfUnset(const LintInput& input, std::vector<Finding>& out);
void checkOmpiCollConflict(const LintInput& input, std::vector<Finding>& out);
void checkOmpiMcaMisused(const LintInput& input, std::vector<Finding>& out);
void checkNcclSocketIfnameMismatch(const LintInput& input, std::vector<Finding>& out);
void checkPssForbidsIpcLock(const LintInput& input, std::vector<Finding>& out);

}  // namespace railkit::k8s::rules
