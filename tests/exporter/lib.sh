# Shared by the exporter's end-to-end scripts and benchmarks/exporter_load.sh:
# the exporter prints the address it bound (--listen 127.0.0.1:0 lets the
# kernel pick the port) on its first line of output.

# wait_for_exporter LOG PID TENTHS: prints the base URL (http://127.0.0.1:PORT)
# once LOG has the "serving" line. Returns 1 when PID exits first, 2 when
# TENTHS tenths of a second pass without it (a sanitizer build on a loaded
# machine starts slowly: callers give 10-30 s).
wait_for_exporter() {
  local log=$1 pid=$2 tenths=$3 url="" i
  for ((i = 0; i < tenths; i++)); do
    url=$(sed -nE 's|^railkit exporter: serving (http://127\.0\.0\.1:[0-9]+)/metrics.*|\1|p' "$log" 2>/dev/null)
    if [[ -n "$url" ]]; then
      printf '%s\n' "$url"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 2
}
