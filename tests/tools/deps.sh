#!/usr/bin/env bash
# The test suite's dependencies (`make test` runs this before configuring):
#
#   tests/tools/deps.sh              check them; install what is missing
#   tests/tools/deps.sh --packages   print the Debian packages, on one line
#
# What the suite needs beyond the build's C compiler, cmake and make:
#   pkg-config + cmocka   the unit tests (Debian: pkg-config, libcmocka-dev)
#   FileCheck             the codegen tests (Debian: llvm-14-tools, else the
#                         newest llvm-N-tools the package lists know)
#   python3 with venv     the live check against the reference compiler
#                         (Debian: python3-venv); without it that one test is
#                         skipped, so it is installed but not insisted on
# Run as root on Debian or Ubuntu, it says what it installs and runs apt-get.
# Otherwise it prints the exact command and exits 1 when a required one is
# missing (only a note when just the venv is). Exit 0: the suite can build.
set -euo pipefail

if [ "${1:-}" = --packages ]; then
    echo "pkg-config libcmocka-dev llvm-14-tools python3 python3-venv"
    exit 0
fi

has_filecheck() {
    command -v FileCheck-14 >/dev/null 2>&1 || command -v FileCheck >/dev/null 2>&1 ||
        compgen -G '/usr/lib/llvm-*/bin/FileCheck' >/dev/null
}

# The llvm-N-tools that apt can install: 14 where it exists, else the newest.
filecheck_package() {
    if apt-cache show llvm-14-tools >/dev/null 2>&1; then
        echo llvm-14-tools
        return
    fi
    local newest
    newest=$(apt-cache pkgnames llvm- 2>/dev/null | grep -xE 'llvm-[0-9]+-tools' |
        sort -t- -k2,2nr | head -n 1 || true)
    echo "${newest:-llvm-14-tools}"
}

# Fills `required` and `wanted` with "what|package" for each missing dependency.
required=() wanted=()
check() {
    required=() wanted=()
    command -v pkg-config >/dev/null 2>&1 || required+=("pkg-config|pkg-config")
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists cmocka ||
        required+=("cmocka|libcmocka-dev")
    has_filecheck || required+=("FileCheck|llvm-14-tools")
    command -v python3 >/dev/null 2>&1 && python3 -c 'import venv, ensurepip' 2>/dev/null ||
        wanted+=("python3 with venv (the live reference check)|python3 python3-venv")
}

# The packages of the given "what|package" entries, with FileCheck's resolved.
packages_of() {
    local e pkg out=()
    for e in "$@"; do
        pkg=${e#*|}
        [ "$pkg" = llvm-14-tools ] && pkg=$(filecheck_package)
        out+=("$pkg")
    done
    echo "${out[*]}"
}

check
[ ${#required[@]} -eq 0 ] && [ ${#wanted[@]} -eq 0 ] && exit 0
missing=("${required[@]}" "${wanted[@]}")
names=$(printf '%s, ' "${missing[@]%%|*}")
echo "make test: the test suite needs ${names%, }"

if ! command -v apt-get >/dev/null 2>&1; then
    [ ${#required[@]} -eq 0 ] && { echo "  (continuing: that test will be skipped)"; exit 0; }
    echo "  install them with the system's package manager, then run make test again" >&2
    exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
    install="apt-get install -y --no-install-recommends $(packages_of "${missing[@]}")"
    if command -v sudo >/dev/null 2>&1; then
        cmd="sudo apt-get update && sudo $install"
    else
        cmd="apt-get update && $install   (as root)"
    fi
    if [ ${#required[@]} -eq 0 ]; then
        echo "  continuing without it (reference.live will be skipped); to run it too:"
        echo "    $cmd"
        exit 0
    fi
    echo "  not root, so nothing is installed; run this, then make test again:" >&2
    echo "    $cmd" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
pkgs=$(packages_of "${missing[@]}")
echo "make test: installing $pkgs"
# shellcheck disable=SC2086 # one word per package
apt-get install -y -q --no-install-recommends $pkgs
check
if [ ${#required[@]} -ne 0 ]; then
    echo "make test: still missing after apt-get: $(printf '%s ' "${required[@]%%|*}")" >&2
    exit 1
fi
