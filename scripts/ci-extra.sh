#!/bin/sh
# CI, after `make check`: the whole suite again under ASan+UBSan and under
# valgrind, then every fuzz target (tests/fuzz/fuzz_*.c) for FUZZ_SECONDS from
# its committed seeds. Each step prints how long it took; the first failure
# stops the script with its status.
#
#   sh scripts/ci-extra.sh                 (JOBS=2 FUZZ_SECONDS=60 by default)
#   FUZZ_SECONDS=10 sh scripts/ci-extra.sh
#
# Budget on 2 cores: the whole CI (deps, make check, this) under ~25 minutes.
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}

step() {
    name=$1
    shift
    echo "=== ci-extra: $name"
    start=$(date +%s)
    "$@"
    echo "=== ci-extra: $name passed in $(($(date +%s) - start)) s"
}

all_start=$(date +%s)
step "make check-asan (ASan + UBSan)" make -j"$JOBS" check-asan
step "make check-valgrind" make -j"$JOBS" check-valgrind
step "make fuzz FUZZ_SECONDS=$FUZZ_SECONDS" make -j"$JOBS" fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
echo "=== ci-extra: all passed in $(($(date +%s) - all_start)) s"
