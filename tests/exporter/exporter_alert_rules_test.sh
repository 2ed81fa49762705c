#!/usr/bin/env bash
# The alerting rules of `railkit render exporter --rule-file`: promtool
# check rules loads them (and counts them), and promtool test rules runs
# alert_rules_test.yaml on them: the link alerts (link_downed,
# link_error_recovery, symbol_error rising) and the transmit discard rate
# fire on the series they are about and stay quiet on steady counters and a
# short burst. The other alerts are unit-tested in render_exporter_test.sh.
# Skips (77) without promtool (package prometheus, scripts/install-deps.sh).
# Usage: exporter_alert_rules_test.sh RAILKIT
set -u
RK=$1
TESTS="$(dirname "$0")/alert_rules_test.yaml"
WORK=""
fail() { echo "FAIL: $*" >&2; exit 1; }
trap '[[ -n "$WORK" ]] && rm -rf "$WORK"' EXIT
command -v promtool >/dev/null || { echo "SKIP: promtool not installed (scripts/install-deps.sh)" >&2; exit 77; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rk-alert-rules.XXXXXX") || fail "mktemp"

"$RK" render exporter --rule-file >"$WORK/rules.yaml" || fail "render exporter --rule-file"
promtool check rules "$WORK/rules.yaml" >"$WORK/check.txt" 2>&1 || { cat "$WORK/check.txt" >&2; fail "promtool check rules"; }
grep -qx '  SUCCESS: 9 rules found' "$WORK/check.txt" || { cat "$WORK/check.txt" >&2; fail "expected 9 rules"; }
for alert in RailkitRdmaLinkDownedIncreasing RailkitRdmaLinkErrorRecoveryIncreasing \
  RailkitRdmaSymbolErrorsIncreasing RailkitRdmaTransmitDiscards; do
  grep -q "alert: \"$alert\"\$" "$WORK/rules.yaml" || fail "the rule file has no $alert"
done
cp "$TESTS" "$WORK/rules_test.yaml" || fail "copy $TESTS"
(cd "$WORK" && promtool test rules rules_test.yaml) >"$WORK/test.txt" 2>&1 || {
  cat "$WORK/test.txt" >&2
  fail "promtool test rules $TESTS"
}
echo "alert rules: promtool check rules and test rules pass"
