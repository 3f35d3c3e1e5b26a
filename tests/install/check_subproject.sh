#!/usr/bin/env bash
# Uses sinew as a meson subproject of a throwaway project, found through
# dependency('sinew') thanks to meson.override_dependency, with sinew's own
# tests, examples and benchmarks switched off.
set -euo pipefail
source_root=$1 consumer=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/proj/subprojects"
ln -s "$source_root" "$stage/proj/subprojects/sinew"
cp "$consumer" "$stage/proj/consumer.c"
cat >"$stage/proj/meson.build" <<'MESON'
project('sinew-consumer', 'c', default_options: ['c_std=c11', 'warning_level=3', 'werror=true'])
subproject('sinew', default_options: ['tests=false', 'examples=false', 'benchmarks=false', 'default_library=static'])
executable('consumer', 'consumer.c', dependencies: dependency('sinew'))
MESON
meson setup "$stage/build" "$stage/proj" >"$stage/setup.log" 2>&1 || { cat "$stage/setup.log"; exit 1; }
ninja -C "$stage/build" >"$stage/build.log" 2>&1 || { cat "$stage/build.log"; exit 1; }
"$stage/build/consumer"
echo "subproject-consumer: ok"
