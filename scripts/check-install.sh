#!/bin/sh
# `make check-install`: what a user gets from `make install install-sim`.
#
#   sh scripts/check-install.sh STAGE
#
# The Makefile has staged two installs into STAGE (DESTDIR), each with
# install-sim:
#   STAGE/local  the defaults (PREFIX=/usr/local), the layout README.md shows;
#   STAGE/deb    PREFIX=/usr LIBDIR=/usr/lib/<multiarch> (lib64 without one), a Debian package's.
# This script checks the files, the symlinks, the soname and the tools'
# libraries; builds README.md's program with the commands README.md gives
# (extracted from it) and runs it on the installed software NPU, comparing its
# output with the one README.md shows; builds every example with
# -std=c11 -Wall -Wextra -Werror through pkg-config; links libnpu.a as
# docs/porting.md shows; and builds README.md's program with CMake through
# find_package(npu), shared and static.
#
# Environment (from the Makefile): CC, SAN (sanitizer flags the libraries were
# built with; a program linking them needs them too), PKG_CONFIG, CMAKE,
# VERSION, SONAME, SOREAL, LIBDIR_DEB (the Debian-style LIBDIR below /usr: lib/<multiarch>).
# $CC, $SAN and pkg-config's output are word lists: split on purpose.
# shellcheck disable=SC2086,SC2046
set -eu
stage=$1
: "${CC:=cc}" "${SAN:=}" "${PKG_CONFIG:=pkg-config}" "${CMAKE:=cmake}"
: "${VERSION:?}" "${SONAME:?}" "${SOREAL:?}" "${LIBDIR_DEB:?}"
cd "$(dirname "$0")/.."
# Only the documented step may bring the software NPU in.
unset ZE_ENABLE_ALT_DRIVERS
work=$stage/work
mkdir -p "$work"

fail() {
    echo "check-install: FAILED: $*" >&2
    exit 1
}

# ---- 1. the files of both layouts --------------------------------------------
check_layout() { # prefix libdir (both inside the stage)
    for f in include/npu.h bin/npu-info bin/npu-run bin/npu-compile; do
        [ -e "$1/$f" ] || fail "$1/$f was not installed"
    done
    for f in libnpu.a "$SOREAL" pkgconfig/npu.pc cmake/npu/npu-config.cmake \
             cmake/npu/npu-config-version.cmake libze_npu_sim.so; do
        [ -f "$2/$f" ] || fail "$2/$f was not installed"
    done
    [ "$(readlink "$2/$SONAME")" = "$SOREAL" ] || fail "$2/$SONAME is not a symlink to $SOREAL"
    [ "$(readlink "$2/libnpu.so")" = "$SONAME" ] || fail "$2/libnpu.so is not a symlink to $SONAME"
    so=$(readelf -d "$2/$SOREAL" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
    [ "$so" = "$SONAME" ] || fail "$2/$SOREAL has soname '$so', expected $SONAME"
    for t in "$1"/bin/*; do
        if readelf -d "$t" | grep -q 'NEEDED.*libxml2'; then fail "$t needs libxml2"; fi
    done
}
check_layout "$stage/local/usr/local" "$stage/local/usr/local/lib"
check_layout "$stage/deb/usr" "$stage/deb/usr/$LIBDIR_DEB"
# shellcheck disable=SC2016
grep -q '^libdir=${prefix}/lib$' "$stage/local/usr/local/lib/pkgconfig/npu.pc" ||
    fail "npu.pc of the default install: libdir is not \${prefix}/lib"
grep -q "^libdir=\${prefix}/$LIBDIR_DEB\$" "$stage/deb/usr/$LIBDIR_DEB/pkgconfig/npu.pc" ||
    fail "npu.pc of the Debian-style install: libdir is not \${prefix}/$LIBDIR_DEB"

# pkg-config sees the staged default install as if it were in /usr/local.
PKG_CONFIG_SYSROOT_DIR=$stage/local
PKG_CONFIG_PATH=$stage/local/usr/local/lib/pkgconfig
export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
v=$($PKG_CONFIG --modversion npu) || fail "pkg-config does not find npu.pc"
[ "$v" = "$VERSION" ] || fail "npu.pc says version $v, npu.h $VERSION"
$PKG_CONFIG --print-requires-private npu | grep -q '^level-zero' ||
    fail "npu.pc does not list level-zero in Requires.private"

# ---- 2. README.md's program, built and run as README.md shows ----------------
# README.md marks three fenced blocks with HTML comments: the program
# (<!-- readme-program -->), the commands that build and run it
# (<!-- readme-commands -->) and what they print (<!-- readme-output -->).
block() { # marker: the fenced block after <!-- marker -->
    awk -v m="<!-- $1 -->" '
        $0 == m { want = 1; next }
        want && /^```/ { if (inside) exit; inside = 1; next }
        inside { print }' README.md
}
block readme-program > "$work/app.c"
block readme-commands > "$work/commands.sh"
block readme-output > "$work/expected.txt"
for f in app.c commands.sh expected.txt; do
    [ -s "$work/$f" ] || fail "README.md: no block after its marker for $f"
done
# The commands name /usr/local (the default PREFIX) and cc: here they are the
# staged tree and $CC (with the sanitizer flags the libraries carry).
sed -e "s|/usr/local|$stage/local/usr/local|g" -e "s|^cc |$CC $SAN |" "$work/commands.sh" > "$work/commands.staged.sh"
(cd "$work" && LD_LIBRARY_PATH=$stage/local/usr/local/lib sh -e commands.staged.sh > output.txt 2> errors.txt) ||
    { cat "$work/errors.txt" >&2; fail "README.md's commands failed (they are in $work/commands.staged.sh)"; }
cmp -s "$work/output.txt" "$work/expected.txt" ||
    { diff "$work/expected.txt" "$work/output.txt" >&2 || true; fail "README.md's program printed something else than README.md shows"; }
# ... and it is warning-free, as users' builds are strict too.
$CC $SAN -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$work/app-strict" "$work/app.c" \
    $($PKG_CONFIG --cflags --libs npu) || fail "README.md's program has warnings"
echo "check-install: README.md's program, built and run as README.md shows, prints $(cat "$work/output.txt")"

# ---- 3. every example, standalone, as docs/porting.md says --------------------
mkdir -p "$work/examples"
pids=""
for e in examples/*.c; do
    n=$(basename "$e" .c)
    $CC $SAN -std=c11 -Wall -Wextra -Werror -o "$work/examples/$n" "$e" \
        $($PKG_CONFIG --cflags --libs npu) -lpthread -lm 2> "$work/examples/$n.log" &
    pids="$pids $!:$n"
done
for p in $pids; do
    wait "${p%%:*}" || { cat "$work/examples/${p#*:}.log" >&2; fail "examples/${p#*:}.c does not build with -std=c11 -Wall -Wextra -Werror"; }
done
echo "check-install: every example builds with -std=c11 -Wall -Wextra -Werror against the installed npu"

# libnpu.a: the library by path, Level Zero through pkg-config (docs/porting.md).
$CC $SAN -std=c11 -o "$work/app-static" "$work/app.c" $($PKG_CONFIG --cflags npu) \
    "$stage/local/usr/local/lib/libnpu.a" $($PKG_CONFIG --libs level-zero) || fail "linking libnpu.a"
if readelf -d "$work/app-static" | grep -q 'NEEDED.*libnpu'; then fail "app-static needs libnpu.so"; fi
out=$(ZE_ENABLE_ALT_DRIVERS=$stage/local/usr/local/lib/libze_npu_sim.so "$work/app-static") ||
    fail "the program linked with libnpu.a failed"
[ "$out" = "$(cat "$work/expected.txt")" ] || fail "the program linked with libnpu.a printed '$out'"
echo "check-install: pkg-config (shared and static) and the software NPU from make install-sim work"

# ---- 4. CMake: find_package(npu), in the Debian-style layout -----------------
command -v "$CMAKE" >/dev/null 2>&1 ||
    fail "$CMAKE not found; install it (scripts/deps.sh, Debian: apt-get install cmake)"
mkdir -p "$work/cmake"
cp "$work/app.c" "$work/cmake/app.c"
cat > "$work/cmake/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.13)
project(npu_check_install C)
find_package(npu 1.0 QUIET)
if(npu_FOUND)
  message(FATAL_ERROR "find_package(npu 1.0) accepted npu \${npu_VERSION}")
endif()
find_package(npu $VERSION REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE npu::npu)
add_executable(app_static app.c)
target_link_libraries(app_static PRIVATE npu::npu_static)
EOF
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
"$CMAKE" -S "$work/cmake" -B "$work/cmake/build" -DCMAKE_PREFIX_PATH="$stage/deb/usr" \
    -DCMAKE_C_COMPILER="$(command -v "${CC%% *}")" -DCMAKE_C_FLAGS="${CC#"${CC%% *}"} $SAN" \
    -DCMAKE_EXE_LINKER_FLAGS="$SAN" > "$work/cmake/configure.log" 2>&1 ||
    { cat "$work/cmake/configure.log" >&2; fail "cmake could not configure a project using find_package(npu)"; }
grep -q "$stage/deb/usr/$LIBDIR_DEB/cmake/npu" "$work/cmake/build/CMakeCache.txt" ||
    fail "cmake found npu elsewhere than in the staged install"
"$CMAKE" --build "$work/cmake/build" > "$work/cmake/build.log" 2>&1 ||
    { cat "$work/cmake/build.log" >&2; fail "cmake could not build against npu::npu / npu::npu_static"; }
for a in app app_static; do
    out=$(ZE_ENABLE_ALT_DRIVERS=$stage/deb/usr/$LIBDIR_DEB/libze_npu_sim.so "$work/cmake/build/$a") ||
        fail "the CMake-built $a failed"
    [ "$out" = "$(cat "$work/expected.txt")" ] || fail "the CMake-built $a printed '$out'"
done
echo "check-install: find_package(npu $VERSION) gives npu::npu and npu::npu_static (and refuses npu 1.0)"
