#pragma once
// What the lint rules share. Each rule is one file in this directory that
// defines its Rule ({{id, severity, title, explain}, check}) and one line in list.inc.
#include <vector>

#include "k8s/lint/lint.h"
