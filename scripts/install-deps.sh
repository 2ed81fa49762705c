#!/usr/bin/env bash
# Installs the Debian packages railkit needs to build and test. Idempotent:
# when every package is already present it does nothing (and needs no network).
set -euo pipefail

packages=(
  # toolchain
  cmake g++ make pkg-config clang libclang-rt-14-dev
  # the sanitizer build links with lld (a third of ld.bfd's time)
  lld
  # libraries (headers) from Debian
  libcli11-dev nlohmann-json3-dev libfmt-dev libexpected-dev
  libgtest-dev libgmock-dev libpugixml-dev libarchive-dev libyaml-dev
  libucx-dev ucx-utils libopenmpi-dev openmpi-bin
  libssl-dev
  # tests: the sources follow .clang-format
  clang-format
  # tests: every --json document against its JSON Schema (docs/schemas)
  libvalijson-dev
  # tests: the exporter end to end (curl scrapes, promtool checks the format;
  # node_exporter's infiniband collector read beside it, python3 compares them)
  curl prometheus prometheus-node-exporter python3
  # tests: network namespaces, process tools
  iproute2 procps
  # tests: railkit fabric against a simulated InfiniBand fabric (ibsim) swept by
  # the real OpenSM and printed by the real ibnetdiscover; lldpd for RoCE fabrics
  ibsim-utils opensm infiniband-diags lldpd
  # tests: the topology.conf railkit fabric writes, read by a real slurmctld (with munge)
  slurmctld slurm-client munge
  # tests: the pod runner starts a real sshd in each MPI worker pod
  openssh-server openssh-client
  # tests: node-prep's base spec script against the real `ctr oci spec`
  containerd
  # tests/ship: the dist tarball and the OCI image run under a private containerd
  # and runc (jq and python3-yaml read specs and rendered pods; skopeo reads the
  # image make-image.sh writes from libc6 and ca-certificates)
  runc skopeo jq python3-yaml ca-certificates
  # tests/ship: the tarball's binary in a Debian 11 root (glibc 2.31) made by debootstrap
  debootstrap
  # tests: `report` pages rendered by headless Chromium (its screenshots read with zlib)
  chromium zlib1g-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root or install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}"
