#!/usr/bin/env bash
# Installs the build into a scratch folder, then compiles, links and runs a
# consumer against the installed header, libraries and pkg-config file, once
# against the shared library and once against the static one.
set -euo pipefail
build=$1 consumer=$2 cc=$3
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

meson install -C "$build" --destdir "$stage/root" --no-rebuild >"$stage/install.log" 2>&1 ||
    { cat "$stage/install.log"; exit 1; }
pc=$(find "$stage/root" -name sinew.pc | head -n 1)
[ -n "$pc" ] || { echo "no sinew.pc installed"; exit 1; }
for f in sinew.h sinew/core.h; do
    find "$stage/root" -path "*/include/$f" | grep -q . || { echo "header $f not installed"; exit 1; }
done
find "$stage/root" -name 'libsinew.a' | grep -q . || { echo "static library not installed"; exit 1; }
find "$stage/root" -name 'libsinew.so*' | grep -q . || { echo "shared library not installed"; exit 1; }

export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR="$stage/root"
pkg-config --cflags --libs sinew >/dev/null || { echo "pkg-config cannot read sinew.pc"; exit 1; }
if grep -q cglm "$pc"; then echo "cglm leaks into sinew.pc"; exit 1; fi
# sinew has no public home page yet: a URL line, if one comes, must be a real address.
if grep -E -i '^URL:.*(example\.|\.invalid|\.test([/:]|$)|localhost)' "$pc"; then echo "sinew.pc names a placeholder URL"; exit 1; fi

# A sanitized build needs the same runtime in the consumer.
sanitize=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json,sys; print(next((o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"), "none"))')
extra=()
[ "$sanitize" != none ] && extra=(-fsanitize="$sanitize")

# pkg-config already prefixes variables with the sysroot.
libdir=$(pkg-config --variable=libdir sinew)
"$cc" "${extra[@]}" -std=c11 -Wall -Wextra -Werror "$consumer" $(pkg-config --cflags --libs sinew) \
    -o "$stage/consumer_shared"
LD_LIBRARY_PATH="$libdir" "$stage/consumer_shared"
"$cc" "${extra[@]}" -std=c11 -Wall -Wextra -Werror "$consumer" $(pkg-config --cflags sinew) \
    "$libdir/libsinew.a" $(pkg-config --libs-only-l --static sinew | sed 's/-lsinew//') \
    -o "$stage/consumer_static"
"$stage/consumer_static"
echo "install-consumer: ok"
