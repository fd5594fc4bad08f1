#!/usr/bin/env bash
# Runs "$@" in a private mount namespace (unshare -m, as root) where no compiler, make,
# cmake, python3, libjpeg headers or libjpeg library can be found: each is covered by
# /dev/null (files) or an empty tmpfs (folders). What a user without a toolchain has.
# Usage: unshare -m bash test/install/without-toolchain.sh CMD ARGS...
set -euo pipefail
mount --make-rprivate /
hide_file() { [ -e "$1" ] && mount --bind /dev/null "$1" 2>/dev/null || true; }
for tool in cc c++ gcc g++ clang clang++ make gmake cmake python python3 node-gyp nasm; do
  while read -r p; do
    [ -n "$p" ] || continue
    hide_file "$p"
    hide_file "$(readlink -f "$p")"
  done < <(which -a "$tool" 2>/dev/null || true)
done
for f in /usr/bin/python3* /usr/bin/x86_64-linux-gnu-g* /usr/bin/*-gcc-* /usr/lib/x86_64-linux-gnu/libjpeg.* /usr/lib/x86_64-linux-gnu/libturbojpeg.*; do
  hide_file "$f"
done
for d in /usr/include /usr/lib/gcc /usr/libexec/gcc /root/.pyenv /usr/local/include; do
  [ -d "$d" ] && mount -t tmpfs tmpfs "$d"
done
# Proof that the hiding worked, for the test to check.
if command -v g++ >/dev/null && g++ --version >/dev/null 2>&1; then echo "g++ still works" >&2; exit 90; fi
if [ -e /usr/include/jpeglib.h ]; then echo "jpeglib.h still visible" >&2; exit 90; fi
exec "$@"
