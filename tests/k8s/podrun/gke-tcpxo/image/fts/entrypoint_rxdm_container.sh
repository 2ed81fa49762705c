#!/bin/bash
# The pod runner's stand-in for RxDM's entrypoint (tcpgpudmarxd-dev v1.0.20,
# /fts/entrypoint_rxdm_container.sh), placed in the image where the
# gke-tcpxo render runs it. Installed without the execute bit, as the image
# ships it: only the render's `chmod 755` makes it run. It checks what
# v1.0.20 needs (../shared/seeds/004: --num_hops=2 --num_nics N, and none of
# v1.0.21's --uid= / --alsologtostderr, which stop the daemon), that N is the
# number of GPU NICs the pod really has (every interface but lo and eth0,
# the pod network) and that the host's /sys and /proc/sys are mounted where
# RxDM reads them; then stays up, as the daemon does, until it is stopped.
set -u
say() { echo "rxdm stand-in: $*"; }
hops="" nics=""
while (($#)); do
  case $1 in
    --num_hops=*) hops=${1#*=} ;;
    --num_nics=*) nics=${1#*=} ;;
    --num_nics) nics=${2:-} && shift ;;
    *) say "ERROR: unknown command line flag '$1'" && exit 2 ;;
  esac
  shift
done
[[ $hops == 2 ]] || { say "ERROR: --num_hops is '$hops', want 2"; exit 2; }
have=$(ls /sys/class/net | grep -cv -e '^lo$' -e '^eth0$')
[[ $nics == "$have" ]] || { say "ERROR: --num_nics is '$nics', the pod has $have GPU NICs"; exit 2; }
for dir in /hostsysfs /hostprocsysfs; do
  [[ -d $dir ]] || { say "ERROR: $dir is not mounted"; exit 2; }
done
trap 'say "SIGTERM: stopping"; exit 0' TERM
say "up: --num_hops=$hops --num_nics $nics"
while :; do
  sleep 1 &
  wait $!
done
