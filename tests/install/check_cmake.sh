#!/usr/bin/env bash
# Installs the build into a scratch folder and uses it through the CMake
# package, as a CMake project outside sinew would:
#  - configures, builds and runs tests/install/cmake (C and C++17 consumers,
#    shared and static) with find_package(sinew <major.minor> REQUIRED);
#  - asks the package a table of version and component requests and checks
#    which it accepts (0.x minors are incompatible with each other);
#  - moves the installed tree elsewhere and builds and runs the consumers again
#    (the package computes its paths from its own location);
#  - removes an installed file and checks the package names it.
# Arguments: build folder, tests/install folder, C compiler, C++ compiler,
# project version, b_sanitize value.
set -euo pipefail
build=$1 here=$2 cc=$3 cxx=$4 version=$5 sanitize=$6
command -v cmake >/dev/null || { echo "cmake not installed (scripts/deps.sh installs it): skipped"; exit 77; }
[ -n "$cxx" ] || { echo "no C++ compiler: skipped"; exit 77; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail() { echo "cmake-consumer: $*"; exit 1; }

meson install -C "$build" --destdir "$stage/first" --no-rebuild >"$stage/install.log" 2>&1 ||
    { cat "$stage/install.log"; exit 1; }
config=$(find "$stage/first" -name sinewConfig.cmake | head -n 1)
[ -n "$config" ] || fail "no sinewConfig.cmake installed"
[ -f "$(dirname "$config")/sinewConfigVersion.cmake" ] || fail "no sinewConfigVersion.cmake installed"
# The tree root is the install prefix under the destdir; the package must not
# name the prefix it was configured for.
prefix=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
root=$stage/first$prefix
if grep -n -F "$prefix/" "$(dirname "$config")"/*.cmake; then fail "the package names the absolute prefix $prefix"; fi
config_rel=${config#"$root"/}
has_shared=0 has_static=0
if [ -n "$(find "$root" -name 'libsinew.so*' -print -quit)" ]; then has_shared=1; fi
if [ -n "$(find "$root" -name 'libsinew.a' -print -quit)" ]; then has_static=1; fi

# A sanitized library needs the same runtime in the consumer.
flags=()
if [ "$sanitize" != none ]; then
    flags=(-DCMAKE_C_FLAGS="-fsanitize=$sanitize" -DCMAKE_CXX_FLAGS="-fsanitize=$sanitize"
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize")
fi
series=$(echo "$version" | cut -d. -f1-2)

# Configures and builds the consumer against the tree at $1 (found through
# CMAKE_PREFIX_PATH, as a user would), then runs each program and checks how
# it links libsinew.
build_consumers() {
    local tree=$1 out=$2
    cmake -S "$here/cmake" -B "$out" -DCMAKE_PREFIX_PATH="$tree" -DSINEW_REQUEST="$series" \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
        "${flags[@]}" >"$out.configure.log" 2>&1 || { cat "$out.configure.log"; fail "configure failed"; }
    local found
    found=$(sed -n 's/^sinew_DIR:PATH=//p' "$out/CMakeCache.txt")
    [ "$found" = "$(dirname "$tree/$config_rel")" ] || fail "found sinew in '$found', not in the tree under test $tree"
    cmake --build "$out" >"$out.build.log" 2>&1 || { cat "$out.build.log"; fail "build failed"; }
    local kinds=(shared)
    if [ $has_static = 1 ]; then kinds+=(static); fi
    for kind in "${kinds[@]}"; do
        for lang in c cxx; do
            local program=$out/consumer_${lang}_$kind
            [ -x "$program" ] || fail "consumer_${lang}_$kind was not built"
            env -u LD_LIBRARY_PATH "$program" || fail "consumer_${lang}_$kind failed to run"
            if readelf -d "$program" | grep -q 'NEEDED.*libsinew'; then needs=1; else needs=0; fi
            # sinew::sinew is the static library when only that one is installed.
            if [ "$kind" = shared ] && [ $has_shared = 1 ] && [ $needs = 0 ]; then
                fail "consumer_${lang}_shared does not load libsinew.so"
            fi
            if [ "$kind" = static ] && [ $needs = 1 ]; then fail "consumer_${lang}_static loads libsinew.so"; fi
        done
    done
    return 0
}
build_consumers "$root" "$stage/consumer-first"

# Version and component requests: "<find_package arguments>|<found or not found>".
IFS=. read -r major minor patch <<<"$version"
requests=(
    "$series|found"
    "$version;EXACT|found"
    "$major.$minor.$((patch + 1))|not found"
    "$major.$((minor + 1))|not found"
    "$((major + 1))|not found"
    "$version...<$major.$((minor + 1))|found"
    "$major.$((minor + 1))...$major.$((minor + 2))|not found"
    "$series;COMPONENTS;bogus|not found"
)
if [ "$major" = 0 ]; then
    requests+=("0|found")
    if [ "$minor" -gt 0 ]; then requests+=("0.$((minor - 1))|not found"); fi
fi
for kind in shared static; do
    if [ "$kind" = shared ]; then has=$has_shared; else has=$has_static; fi
    if [ "$has" = 1 ]; then requests+=("$series;COMPONENTS;$kind|found"); else requests+=("$series;COMPONENTS;$kind|not found"); fi
done
probe() {
    local out=$stage/probe
    rm -rf "$out"
    cmake -S "$here/cmake/probe" -B "$out" -Dsinew_DIR="$(dirname "$config")" "$@" >"$out.log" 2>&1 ||
        { cat "$out.log"; fail "probe configure failed ($*)"; }
    sed -n 's/^-- sinew-probe: \(found\|not found\).*/\1/p' "$out.log"
}
for entry in "${requests[@]}"; do
    args=${entry%|*} want=${entry#*|}
    got=$(probe -DSINEW_ARGS="$args")
    [ "$got" = "$want" ] || fail "find_package(sinew ${args//;/ }) for $version: $got, expected $want"
done
# A consumer built for another pointer size must be refused.
got=$(probe -DSINEW_ARGS="$series" -DCMAKE_SIZEOF_VOID_P=$((12 - $(getconf LONG_BIT) / 8)))
[ "$got" = "not found" ] || fail "a consumer of another pointer size accepted the package"

# Relocation: move the whole tree, build and run again from the new place.
mv "$stage/first" "$stage/moved"
[ ! -e "$root" ] || fail "the tree did not move"
build_consumers "$stage/moved$prefix" "$stage/consumer-moved"

# A broken tree is reported with the missing file's name.
config=$stage/moved$prefix/$config_rel
library=$(find "$stage/moved" \( -name 'libsinew.so.*' -o -name 'libsinew.a' \) -type f | head -n 1)
rm -f "$library"
got=$(probe -DSINEW_ARGS="$series")
[ "$got" = "not found" ] || fail "the package was found without $(basename "$library")"
# (CMake wraps the message: lines are joined before matching.)
tr -s ' \n' ' ' <"$stage/probe.log" | grep -q -F "$(basename "$library") is missing" || { cat "$stage/probe.log"; fail "the missing file is not named"; }
echo "cmake-consumer: ok"
