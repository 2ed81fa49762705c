#!/usr/bin/env bash
# Fails on a /sys, /proc or /dev literal outside src/sys/paths.h (root injection) in the layers
# that read the machine. doctor only sees the Inventory, logs only reads the files it is handed
# (its literals are text NCCL prints, matched or quoted), report renders the JSON it is handed and
# k8s writes paths for pods on other machines, so their literals are never a file this process
# opens. Which layer may include which is enforced by the build (src/CMakeLists.txt), not here.
set -euo pipefail
src=${1:?usage: check_machine_paths.sh SRC_DIR}
bad=0
readers=()
for layer in core sys model bench podenv exporter validate cli; do [ -d "$src/$layer" ] && readers+=("$src/$layer"); done
while IFS= read -r hit; do
  echo "layering: machine path literal outside src/sys/paths.h: $hit"
  bad=1
done < <(grep -rnE '"/(sys|proc|dev)(/|")' "${readers[@]}" --include=*.cc --include=*.h \
           | grep -v '^'"$src"'/sys/paths.h:' \
           | awk -F: '{ code = $0; sub(/^[^:]*:[^:]*:/, "", code); sub(/\/\/.*/, "", code);
                        if (code ~ /"\/(sys|proc|dev)(\/|")/) print }' || true)
[ $bad -eq 0 ] && echo "layering: no machine path literal outside src/sys/paths.h"
exit $bad
