# Sourced by scripts/demo and scripts/test: installs the Debian packages sinew
# needs when any is missing (apt-get, as root or through sudo). The base list
# builds the library and the demo (libpng for its pictures); callers add the
# rest (scripts/test: g++, cmocka, cmake, the Python binding's packages).
sinew_install_deps() {
    local wanted=(meson ninja-build pkg-config gcc libcglm-dev python3 libpng-dev "$@")
    local missing=()
    for p in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "need root or sudo to install: ${missing[*]}" >&2; return 1; }
        sudo=(sudo)
    fi
    echo "installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
