#!/usr/bin/env bash
# make_tar_seeds.sh DIR: writes small tar archives (plain; model_tar_fuzz
# gzips non-gzip input) into DIR as seeds: a normal sysfs-like tree, a link
# out followed by an entry through it, a name written twice, a hard link,
# special files, and one gzip-compressed archive.
set -euo pipefail
out=${1:?usage: make_tar_seeds.sh DIR}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t=$work/tree
mkdir -p "$t/sys/devices/pci0000:00/0000:00:01.0/net/eth0" "$t/sys/class/net" "$t/proc/self" "$t/dev/infiniband"
echo 9000 > "$t/sys/devices/pci0000:00/0000:00:01.0/net/eth0/mtu"
ln -s ../../devices/pci0000:00/0000:00:01.0/net/eth0 "$t/sys/class/net/eth0"
printf 'Name:\trailkit\n' > "$t/proc/self/status"
: > "$t/dev/infiniband/uverbs0"
tar -cf "$out/tree.tar" -C "$t" .
tar -czf "$out/tree.tar.gz" -C "$t" .
# A link out, then an entry through it (appended as a second member).
mkdir -p "$work/a" "$work/b/esc"
ln -s /tmp "$work/a/esc"
echo pwned > "$work/b/esc/f"
tar -cf "$out/escape.tar" -C "$work/a" esc
tar -rf "$out/escape.tar" -C "$work/b" esc/f
# The same name twice: a link, then a file.
mkdir -p "$work/c"
ln -s /etc/hostname "$work/c/x"
tar -cf "$out/twice.tar" -C "$work/c" x
rm "$work/c/x"; echo y > "$work/c/x"
tar -rf "$out/twice.tar" -C "$work/c" x
# A hard link and a FIFO.
mkdir -p "$work/d"
echo 1 > "$work/d/f"
ln "$work/d/f" "$work/d/g"
mkfifo "$work/d/p"
tar -cf "$out/special.tar" -C "$work/d" f g p
