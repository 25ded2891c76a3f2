#!/bin/sh
# Installs the Debian packages npu needs to build and test, if any are missing.
# Uses apt-get as root, sudo otherwise; says what to do when neither works.
set -eu
PKGS="build-essential clang cmake pkg-config libze-dev libze1 libcmocka-dev libxml2-dev"
[ "${1:-}" = "--ci" ] && PKGS="$PKGS valgrind lcov"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "npu: installing Debian packages:$missing"
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "npu: missing packages:$missing" >&2
    echo "npu: run as root, or install them: apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
