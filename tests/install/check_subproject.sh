#!/usr/bin/env bash
# Uses sinew as a meson subproject of a throwaway project (subprojects/sinew a
# symlink to this tree, found by a plain dependency('sinew')), with sinew's
# options left at their defaults, and checks that:
#  - sinew's tests, examples and benchmarks are off: no target of theirs exists;
#  - cmocka is never looked up: every pkg-config call goes through a recording
#    wrapper that also refuses cmocka, and meson's log never names it;
#  - the consumer builds and runs;
#  - -Dsinew:examples=true and -Dsinew:benchmarks=true still turn them on.
# Arguments: sinew's source folder, the consumer's C source.
set -euo pipefail
source_root=$1 consumer=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail() { echo "subproject-consumer: $*"; exit 1; }
mkdir -p "$stage/proj/subprojects"
ln -s "$source_root" "$stage/proj/subprojects/sinew"
cp "$consumer" "$stage/proj/consumer.c"
cat >"$stage/proj/meson.build" <<'MESON'
project('sinew-consumer', 'c', default_options: ['c_std=c11', 'warning_level=3', 'werror=true'])
executable('consumer', 'consumer.c', dependencies: dependency('sinew'))
MESON

# pkg-config as meson sees it: logs each call, answers "not found" for cmocka.
real_pkg_config=$(command -v pkg-config) || { echo "pkg-config not installed: skipped"; exit 77; }
cat >"$stage/pkg-config" <<WRAPPER
#!/bin/sh
echo "\$*" >>"$stage/pkg-config.calls"
case " \$* " in *cmocka*) exit 1 ;; esac
exec "$real_pkg_config" "\$@"
WRAPPER
chmod +x "$stage/pkg-config"
export PKG_CONFIG=$stage/pkg-config

# --force-fallback-for: an installed sinew.pc must not stand in for the subproject.
setup() {
    meson setup "$@" --force-fallback-for=sinew \
        >"$stage/setup.log" 2>&1 || { cat "$stage/setup.log"; fail "meson setup failed ($*)"; }
}
setup "$stage/build" "$stage/proj" -Dsinew:default_library=static
grep -q 'cglm' "$stage/pkg-config.calls" || fail "the pkg-config wrapper was not used (nothing recorded)"
if grep -i cmocka "$stage/pkg-config.calls"; then fail "pkg-config was asked for cmocka"; fi
if grep -i -n cmocka "$stage/build/meson-logs/meson-log.txt"; then fail "meson's log names cmocka"; fi
targets=$(ninja -C "$stage/build" -t targets all)
grep -q 'subprojects/sinew/libsinew\.a' <<<"$targets" || fail "no libsinew target in the subproject"
if grep -E 'subprojects/sinew/(tests|examples)/' <<<"$targets"; then
    fail "the subproject builds its tests, examples or benchmarks"
fi
ninja -C "$stage/build" >"$stage/build.log" 2>&1 || { cat "$stage/build.log"; fail "build failed"; }
"$stage/build/consumer"

# Explicit options still win over the subproject default (configure only).
setup "$stage/build-on" "$stage/proj" -Dsinew:examples=true -Dsinew:benchmarks=true
targets=$(ninja -C "$stage/build-on" -t targets all)
grep -q 'subprojects/sinew/examples/' <<<"$targets" || fail "-Dsinew:examples=true built no example"
grep -q 'subprojects/sinew/tests/bench/' <<<"$targets" || fail "-Dsinew:benchmarks=true built no benchmark"
echo "subproject-consumer: ok"
