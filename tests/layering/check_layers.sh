#!/usr/bin/env bash
# Fails when a lower layer includes a higher one. Layers, lowest first:
#   core -> sys -> model -> {doctor, logs, bench, k8s, podenv} -> {exporter, validate, report} -> cli
# A domain may include core, sys, model and itself, never another domain;
# exporter serves doctor's findings, so it may include doctor too.
# validate runs doctor's rules and bench's pairs and collectives, so it may include both.
# report reads JSON documents, not machines: core, and logs for the text readers.
set -euo pipefail
src=${1:?usage: check_layers.sh SRC_DIR}
allowed() {
  case $1 in
    core) echo "core" ;;
    sys) echo "core sys" ;;
    model) echo "core sys model" ;;
    doctor|logs|bench|k8s|podenv) echo "core sys model $1" ;;
    exporter) echo "core sys model doctor exporter" ;;
    validate) echo "core sys model doctor bench validate" ;;
    report) echo "core logs report" ;;
    cli) echo "core sys model doctor logs bench k8s podenv exporter validate report cli" ;;
  esac
}
bad=0
for layer in core sys model doctor logs bench k8s podenv exporter validate report cli; do
  [ -d "$src/$layer" ] || continue
  ok=$(allowed "$layer")
  while IFS=: read -r file _ line; do
    inc=$(sed -E 's/^#include "([a-z0-9_]+)\/.*/\1/' <<<"$line")
    if ! grep -qw -- "$inc" <<<"$ok"; then
      echo "layering: ${file#$src/} ($layer) includes \"$inc/...\": $layer may include only: $ok"
      bad=1
    fi
  done < <(grep -rnE '^#include "(core|sys|model|doctor|logs|bench|k8s|podenv|exporter|validate|report|cli)/' "$src/$layer" || true)
done
# No /sys, /proc or /dev literal outside sys/paths.h (root injection) in the layers that read
# the machine. doctor only sees the Inventory, logs only reads the files it is handed (its
# literals are text NCCL prints, matched or quoted) and k8s writes paths for pods on other
# machines, so their literals are never a file this process opens.
readers=()
for layer in core sys model bench podenv exporter validate report cli; do [ -d "$src/$layer" ] && readers+=("$src/$layer"); done
while IFS= read -r hit; do
  echo "layering: machine path literal outside src/sys/paths.h: $hit"
  bad=1
done < <(grep -rnE '"/(sys|proc|dev)(/|")' "${readers[@]}" --include=*.cc --include=*.h \
           | grep -v '^'"$src"'/sys/paths.h:' \
           | awk -F: '{ code = $0; sub(/^[^:]*:[^:]*:/, "", code); sub(/\/\/.*/, "", code);
                        if (code ~ /"\/(sys|proc|dev)(\/|")/) print }' || true)
[ $bad -eq 0 ] && echo "layering: ok"
exit $bad
