#!/usr/bin/env bash
# railkit's OCI image without a Docker daemon (issue "Ship", point 5):
# scripts/make-image.sh over the dist tarball writes railkit-VERSION-oci.tar
# twice (the same bytes both times), at most 30 MB; skopeo reads it (the
# annotations version, source, revision; the entrypoint) and copies it with
# every digest checked; a private containerd imports it (ctr image import)
# and runs railkit --version, doctor (the example node and the container's
# own view) and the exporter, scraped from the host (--net-host, the
# exporter on 127.0.0.1).
# The first archive comes from `make image` itself (make dist into a scratch
# DIST_DIR from the test's build tree, then make-image.sh), the second from
# make-image.sh over the dist_package tarball: the same bytes prove the
# target, dist.sh's reproducible tarball and the image at once.
# Usage: image_test.sh DIST_TARBALL BUILD_DIR
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/lib.sh"

ship_init image
ship_tarball "${1:-}"
build_dir=${2:-}
[[ -d $build_dir ]] || fail "usage: image_test.sh DIST_TARBALL BUILD_DIR (no build directory '$build_dir')"
command -v make >/dev/null || skip "make not installed"
command -v skopeo >/dev/null || skip "skopeo not installed (scripts/install-deps.sh installs it)"
command -v curl >/dev/null || skip "curl not installed (scripts/install-deps.sh installs it)"
command -v jq >/dev/null || skip "jq not installed"
VERSION=$(basename "$DIST_TARBALL" | sed -nE 's/^railkit-(.+)-linux-x86_64\.tar\.gz$/\1/p')
[[ -n $VERSION ]] || fail "cannot read the version from the tarball name $(basename "$DIST_TARBALL")"
MAX_BYTES=30000000
EXAMPLE=/usr/local/share/railkit/examples/dgx-h100-8gpu

# make_image DIR: scripts/make-image.sh into DIR.
make_image() {
  local dir=$1
  bash "$SHIP_SOURCE_DIR/scripts/make-image.sh" "$DIST_TARBALL" "$dir" >"$dir.log" 2>&1 ||
    fail "scripts/make-image.sh $DIST_TARBALL $dir: $(cat "$dir.log")"
}
# The README's `make image`, with the build tree the suite already built
# (its railkit is up to date: make only checks it).
make -C "$SHIP_SOURCE_DIR" --no-print-directory image BUILD="$build_dir" DIST_DIR="$WORK/a" >"$WORK/a.log" 2>&1 ||
  fail "make image BUILD=$build_dir DIST_DIR=$WORK/a: $(tail -n 20 "$WORK/a.log")"
cmp -s "$DIST_TARBALL" "$WORK/a/$(basename "$DIST_TARBALL")" ||
  fail "make dist wrote another tarball than scripts/dist.sh did for the same build (dist_package)"
IMAGE=$WORK/a/railkit-$VERSION-oci.tar
[[ -f $IMAGE ]] || fail "make-image.sh wrote no $IMAGE: $(cat "$WORK/a.log")"
note "$(cat "$WORK/a.log")"
make_image "$WORK/b"
cmp -s "$IMAGE" "$WORK/b/railkit-$VERSION-oci.tar" ||
  fail "make-image.sh is not reproducible: two runs over the same tarball wrote different archives ($(sha256sum "$IMAGE" "$WORK/b/railkit-$VERSION-oci.tar" | cut -c1-16 | tr '\n' ' '))"
size=$(stat -c %s "$IMAGE")
((size <= MAX_BYTES)) || fail "image size: expected at most $MAX_BYTES bytes, found $size"
note "image size: $size bytes (goal: at most $MAX_BYTES)"

# --- the layout, as skopeo reads it --------------------------------------------------
tar -tf "$IMAGE" | sort >"$WORK/archive.txt"
{ grep -qx oci-layout "$WORK/archive.txt" && grep -qx index.json "$WORK/archive.txt"; } ||
  fail "the archive lacks oci-layout or index.json: $(head -n 5 "$WORK/archive.txt" | tr '\n' ' ')"
revision=$(git -C "$SHIP_SOURCE_DIR" rev-parse HEAD 2>/dev/null || echo unknown)
skopeo inspect --raw "oci-archive:$IMAGE" >"$WORK/manifest.json" 2>"$WORK/skopeo.err" ||
  fail "skopeo inspect --raw oci-archive:$IMAGE: $(cat "$WORK/skopeo.err")"
for key in version source revision; do
  value=$(jq -r --arg k "org.opencontainers.image.$key" '.annotations[$k] // empty' "$WORK/manifest.json")
  [[ -n $value ]] || fail "manifest: no org.opencontainers.image.$key annotation: $(jq -c .annotations "$WORK/manifest.json")"
done
[[ $(jq -r '.annotations["org.opencontainers.image.version"]' "$WORK/manifest.json") == "$VERSION" ]] ||
  fail "manifest: org.opencontainers.image.version is not $VERSION: $(jq -c .annotations "$WORK/manifest.json")"
got_rev=$(jq -r '.annotations["org.opencontainers.image.revision"]' "$WORK/manifest.json")
[[ $got_rev == "$revision" || $got_rev == "$revision-dirty" ]] ||
  fail "manifest: org.opencontainers.image.revision is '$got_rev', expected $revision (the tree's git rev)"
skopeo inspect --config "oci-archive:$IMAGE" >"$WORK/config.json" 2>"$WORK/skopeo.err" ||
  fail "skopeo inspect --config: $(cat "$WORK/skopeo.err")"
[[ $(jq -c .config.Entrypoint "$WORK/config.json") == '["/usr/local/bin/railkit"]' ]] ||
  fail "config: expected Entrypoint [\"/usr/local/bin/railkit\"], found $(jq -c .config.Entrypoint "$WORK/config.json")"
skopeo inspect "oci-archive:$IMAGE" >"$WORK/inspect.json" 2>"$WORK/skopeo.err" || fail "skopeo inspect: $(cat "$WORK/skopeo.err")"
[[ $(jq -r '"\(.Os)/\(.Architecture) \(.Labels["org.opencontainers.image.version"])"' "$WORK/inspect.json") == "linux/amd64 $VERSION" ]] ||
  fail "skopeo inspect: expected linux/amd64 and the version label $VERSION, found $(jq -c '{Os, Architecture, Labels}' "$WORK/inspect.json")"
# A copy checks every blob against its digest (what a push to a registry does).
skopeo copy -q "oci-archive:$IMAGE" "oci:$WORK/copy:$VERSION" >/dev/null 2>"$WORK/skopeo.err" ||
  fail "skopeo copy oci-archive:$IMAGE oci:...: $(cat "$WORK/skopeo.err")"
layer=$(jq -r '.layers[0].digest | sub("sha256:"; "")' "$WORK/manifest.json")
tar -xOf "$IMAGE" "blobs/sha256/$layer" | tar -tzf - >"$WORK/layer.txt"
for f in ./usr/local/bin/railkit ./etc/ssl/certs/ca-certificates.crt ./usr/lib/x86_64-linux-gnu/libc.so.6 ./lib64; do
  grep -qxF "$f" "$WORK/layer.txt" || fail "the image layer has no $f"
done

# --- imported into containerd and run -----------------------------------------------
ship_start_containerd
ship_ctr image import --base-name railkit.test/railkit "$IMAGE" >"$WORK/import.log" 2>&1 ||
  fail "ctr image import $IMAGE: $(cat "$WORK/import.log")"
REF=railkit.test/railkit:$VERSION
SHIP_IMAGES+=("$REF")
ship_ctr image ls -q | grep -qxF "$REF" || fail "ctr image import: expected an image $REF, found: $(ship_ctr image ls -q | tr '\n' ' ')"

# img_run NAME [ctr flags] -- [CMD...]: runs the image (this ctr replaces
# the whole command line with CMD; without CMD, Entrypoint and Cmd run).
img_run() {
  local name=$1 id flags=()
  shift
  while [[ $1 != -- ]]; do
    flags+=("$1")
    shift
  done
  shift
  id=$(ship_id "$name")
  SHIP_CONTAINERS+=("$id")
  RC=0
  ship_ctr run --rm "${flags[@]}" "$REF" "$id" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || RC=$?
}
img_run entrypoint --
{ [[ $RC == 0 ]] && grep -q -- '--version' "$WORK/entrypoint.out"; } ||
  fail "the image run with no command (Entrypoint /usr/local/bin/railkit, Cmd --help): expected railkit's help (exit 0), found exit $RC: $(head -c 300 "$WORK/entrypoint.out") $(head -c 300 "$WORK/entrypoint.err")"
RK=/usr/local/bin/railkit
img_run version -- "$RK" --version
[[ $RC == 0 && $(cat "$WORK/version.out") == "railkit $VERSION (git "*")" ]] ||
  fail "railkit --version in the image: expected 'railkit $VERSION (git REVISION)' (exit 0), found '$(head -c 200 "$WORK/version.out")' (exit $RC) $(head -c 300 "$WORK/version.err")"
img_run doctor-example -- "$RK" doctor --root "$EXAMPLE" --json
ids=$(jq -r '[.findings[].id] | sort | join(" ")' "$WORK/doctor-example.out" 2>/dev/null || true)
want_ids="gpudirect-module-missing memlock-limit nccl-ib-hca-invalid rdma-port-down shm-too-small"
[[ $RC == 1 && $ids == "$want_ids" ]] ||
  fail "doctor --root $EXAMPLE in the image: expected exit 1 and findings '$want_ids', found exit $RC and '$ids' $(head -c 300 "$WORK/doctor-example.err")"
img_run doctor -- "$RK" doctor --json
[[ $RC == 0 || $RC == 1 ]] || fail "railkit doctor in the image: exit $RC, expected 0 or 1: $(head -c 300 "$WORK/doctor.err")"
[[ $(jq -r .root "$WORK/doctor.out") == / ]] || fail "railkit doctor in the image: expected root /, found $(head -c 300 "$WORK/doctor.out")"
# The container's own /dev/shm is ctr's 64 MiB tmpfs; with no RDMA device
# in view, doctor says so (and judges nothing device-bound).
if json_ok "$WORK/doctor.out" '[.findings[].id] | index("rdma-no-devices")'; then
  note "doctor in the image (this machine, no RDMA device): rdma-no-devices"
else
  note "doctor in the image: $(jq -r '[.findings[].id] | join(" ")' "$WORK/doctor.out")"
fi

id=$(ship_id exporter)
SHIP_CONTAINERS+=("$id")
ship_ctr run --rm --net-host "$REF" "$id" "$RK" exporter --root "$EXAMPLE" --listen 127.0.0.1:0 --interval 1 \
  >"$WORK/exporter.log" 2>&1 &
EXPORTER=$!
SHIP_BG_PIDS+=("$EXPORTER")
line=$(ship_wait_line "$WORK/exporter.log" '^railkit exporter: serving http://127\.0\.0\.1:[0-9]+/metrics' 200 "$EXPORTER") ||
  fail "exporter in the image: no 'serving http://127.0.0.1:PORT/metrics' line within 20 s: $(head -c 400 "$WORK/exporter.log")"
url=$(sed -nE 's|^railkit exporter: serving (http://127\.0\.0\.1:[0-9]+)/metrics.*|\1|p' <<<"$line")
curl -fsS --max-time 5 "$url/metrics" >"$WORK/metrics.txt" || fail "curl $url/metrics from the host failed"
for want in 'railkit_rdma_port_up{device="mlx5_5",port="1"} 0' 'railkit_rdma_port_up{device="mlx5_0",port="1"} 1' \
  'railkit_doctor_findings{severity="error"} 1'; do
  grep -qxF -- "$want" "$WORK/metrics.txt" || fail "exporter in the image, scraped from the host: missing line '$want'"
done
ship_stop_exporter "$id" "$EXPORTER" "exporter in the image"
note "image railkit-$VERSION-oci.tar ($size bytes): reproducible, skopeo reads and copies it, imported: --version, doctor, exporter from the host: ok"
