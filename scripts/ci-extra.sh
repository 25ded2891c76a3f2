#!/bin/sh
# CI, after `make check`: the whole suite again under ASan+UBSan and under
# valgrind, then every fuzz target (tests/fuzz/fuzz_*.c) for FUZZ_SECONDS from
# its committed seeds. Each step prints how long it took; every step runs even
# when an earlier one failed, and the script then exits 1 naming the failures.
#
#   sh scripts/ci-extra.sh                 (JOBS=2 FUZZ_SECONDS=60 B=build by default)
#   FUZZ_SECONDS=10 B=build-x sh scripts/ci-extra.sh
#
# Budget on 2 cores: the whole CI (deps, make check, this) under ~25 minutes.
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
B=${B:-build}

failed=""
step() {
    name=$1
    shift
    echo "=== ci-extra: $name"
    start=$(date +%s)
    if "$@"; then
        echo "=== ci-extra: $name passed in $(($(date +%s) - start)) s"
    else
        echo "=== ci-extra: $name FAILED after $(($(date +%s) - start)) s"
        failed="$failed
  $name"
    fi
}

all_start=$(date +%s)
step "make check-asan (ASan + UBSan)" make -j"$JOBS" B="$B" check-asan
step "make check-valgrind" make -j"$JOBS" B="$B" check-valgrind
step "make fuzz FUZZ_SECONDS=$FUZZ_SECONDS" make -j"$JOBS" B="$B" fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
if [ -n "$failed" ]; then
    echo "=== ci-extra: failed after $(($(date +%s) - all_start)) s:$failed"
    exit 1
fi
echo "=== ci-extra: all passed in $(($(date +%s) - all_start)) s"
