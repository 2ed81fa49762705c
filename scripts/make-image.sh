#!/usr/bin/env bash
# Writes railkit's OCI image, without a Docker daemon and without pulling from
# any registry: OUT_DIR/railkit-VERSION-oci.tar, an OCI image-layout archive
# (oci-layout, index.json, blobs/sha256/...) holding one image for
# linux/amd64:
#   - one gzip layer: the root file system of scripts/build-rootfs.sh
#     --ca-certificates over the dist tarball (glibc and the CA bundle from
#     this machine's Debian packages libc6 and ca-certificates, railkit under
#     /usr/local), as a tar with sorted names, owners 0:0 and every mtime at
#     the commit time of the tree (SOURCE_DATE_EPOCH where set), so the same
#     tarball on the same machine gives the same bytes;
#   - the config: Entrypoint ["/usr/local/bin/railkit"], Cmd ["--help"];
#   - the annotations org.opencontainers.image.version (VERSION of the
#     tarball's name), .source, .revision (git rev of this tree, "-dirty"
#     when it has uncommitted changes), .created, .title, on the
#     manifest (and as labels in the config, which `skopeo inspect` shows),
#     and org.opencontainers.image.ref.name = VERSION in index.json.
# Written by hand with GNU tar, gzip, sha256sum and python3 (for the JSON):
# every byte of the layout is visible here and nothing beyond Debian's base
# tools is needed (umoci would add a dependency and its own mtimes/history).
#
# Usage: make-image.sh [--rootfs DIR] DIST_TARBALL OUT_DIR   (as root: the rootfs keeps root's files)
#   --rootfs DIR: use DIR, a root file system build-rootfs.sh --ca-certificates
#                 already made from DIST_TARBALL, instead of making one (tests)
# Env:   RAILKIT_IMAGE_SOURCE: the .source annotation (default: the git remote
#        origin's URL, else "unknown"); SOURCE_DATE_EPOCH: the mtimes and .created
set -euo pipefail

die() {
  echo "make-image: $*" >&2
  exit 1
}
rootfs=""
if [[ ${1:-} == --rootfs ]]; then
  rootfs=${2:-}
  shift 2 || true
fi
[[ $# == 2 ]] || {
  echo "usage: $0 [--rootfs DIR] DIST_TARBALL OUT_DIR" >&2
  exit 2
}
tarball=$1
out_dir=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

[[ -f $tarball ]] || die "no dist tarball at $tarball (make dist writes it)"
[[ $(id -u) == 0 ]] || die "run as root: the root file system's files must belong to root"
for tool in tar gzip sha256sum python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed"
done
version=$(basename "$tarball" | sed -nE 's/^railkit-(.+)-linux-x86_64\.tar\.gz$/\1/p')
[[ -n $version ]] || die "$tarball: expected a name railkit-VERSION-linux-x86_64.tar.gz"

revision=unknown
epoch=${SOURCE_DATE_EPOCH:-}
if git -C "$repo" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  revision=$(git -C "$repo" rev-parse HEAD)
  [[ -z $(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null) ]] || revision="$revision-dirty"
  [[ -n $epoch ]] || epoch=$(git -C "$repo" log -1 --format=%ct HEAD)
fi
epoch=${epoch:-0}
source_url=${RAILKIT_IMAGE_SOURCE:-$(git -C "$repo" remote get-url origin 2>/dev/null || echo unknown)}

mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
work=$(mktemp -d "$out_dir/.make-image.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -z $rootfs ]]; then
  rootfs=$work/rootfs
  bash "$here/build-rootfs.sh" --ca-certificates "$tarball" "$rootfs" >"$work/build-rootfs.log" ||
    die "build-rootfs.sh failed: $(cat "$work/build-rootfs.log")"
fi
[[ -x $rootfs/usr/local/bin/railkit && -s $rootfs/etc/ssl/certs/ca-certificates.crt ]] ||
  die "$rootfs: no /usr/local/bin/railkit or CA bundle (expected build-rootfs.sh --ca-certificates output)"

# The layer: the whole root, "./"-relative names sorted, numeric owners 0,
# one mtime, no atime/ctime headers.
tar -C "$rootfs" --sort=name --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
  -cf "$work/layer.tar" .
mkdir -p "$work/layout/blobs/sha256"
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n -9 <"$work/layer.tar" >"$work/layer.tar.gz"
rm -f "$work/layer.tar"
layer_digest=$(sha256sum "$work/layer.tar.gz" | cut -d' ' -f1)
mv "$work/layer.tar.gz" "$work/layout/blobs/sha256/$layer_digest"

# Config, manifest, index: python3 writes the JSON (compact, sorted keys)
# and names each blob by its digest.
manifest_digest=$(python3 - "$work/layout" "$version" "$revision" "$source_url" "$epoch" "$diff_id" "$layer_digest" <<'EOF'
import datetime, hashlib, json, os, sys

layout, version, revision, source, epoch, diff_id, layer_digest = sys.argv[1:]
created = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
blobs = os.path.join(layout, "blobs", "sha256")

def blob(obj):
    data = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
    digest = hashlib.sha256(data).hexdigest()
    with open(os.path.join(blobs, digest), "wb") as f:
        f.write(data)
    return "sha256:" + digest, len(data)

annotations = {
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.source": source,
    "org.opencontainers.image.revision": revision,
    "org.opencontainers.image.created": created,
    "org.opencontainers.image.title": "railkit",
    "org.opencontainers.image.description":
        "railkit: RDMA/NCCL/MPI checks for GPU clusters on Kubernetes (glibc and CA certificates from Debian 12)",
}
config = {
    "created": created,
    "architecture": "amd64",
    "os": "linux",
    "config": {
        "Entrypoint": ["/usr/local/bin/railkit"],
        "Cmd": ["--help"],
        "Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"],
        "WorkingDir": "/",
        "Labels": annotations,
    },
    "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff_id]},
    "history": [{"created": created,
                 "created_by": "scripts/make-image.sh: scripts/build-rootfs.sh --ca-certificates "
                               f"railkit-{version}-linux-x86_64.tar.gz"}],
}
config_digest, config_size = blob(config)
layer_size = os.path.getsize(os.path.join(blobs, layer_digest))
manifest = {
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
               "digest": config_digest, "size": config_size},
    "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                "digest": "sha256:" + layer_digest, "size": layer_size}],
    "annotations": annotations,
}
manifest_digest, manifest_size = blob(manifest)
index = {
    "schemaVersion": 2,
    "mediaType": "application/vnd.oci.image.index.v1+json",
    "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
                   "digest": manifest_digest, "size": manifest_size,
                   "platform": {"architecture": "amd64", "os": "linux"},
                   "annotations": {"org.opencontainers.image.ref.name": version}}],
}
with open(os.path.join(layout, "index.json"), "w") as f:
    json.dump(index, f, sort_keys=True, separators=(",", ":"))
with open(os.path.join(layout, "oci-layout"), "w") as f:
    json.dump({"imageLayoutVersion": "1.0.0"}, f)
print(manifest_digest)
EOF
) || die "writing the OCI JSON failed"

image=$out_dir/railkit-$version-oci.tar
tar -C "$work/layout" --sort=name --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  --mtime="@$epoch" --owner=0 --group=0 --numeric-owner \
  -cf "$work/image.tar" oci-layout index.json blobs
mv "$work/image.tar" "$image"
size=$(stat -c %s "$image")
echo "make-image: $image: $size bytes ($(awk -v s="$size" 'BEGIN {printf "%.1f MiB", s / 1048576}')), manifest $manifest_digest, revision $revision"
