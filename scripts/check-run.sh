#!/bin/sh
# `make check-run`: runs the test suites, then every IR of tests/data (with the
# .bin the build wrote for it) through npu-run, and prints a summary that
# names every skipped test and why: nothing is skipped silently.
#
#   sh scripts/check-run.sh SUITE...
#
# The Makefile runs it in the tests' environment (ZE_ENABLE_ALT_DRIVERS,
# NPU_TEST_DATA, NPU_SHARED_DATA, the driver cache) and sets:
#   TEST_WRAP       a command each suite runs under (valgrind), or empty;
#   PROFILES        release profiles of the software NPU (NPU_SIM_PROFILE) ...
#   PROFILE_SUITES  ... under which these suites run once more each;
#   NPU_RUN, IR_DATA  npu-run, and the .xml files (next to their .bin) it runs;
#   LOGDIR          where each suite's output is kept.
#
# A test says why it skips by printing "skipped: REASON" (cmocka's
# print_message) just before skip(); the summary pairs the reason with the
# test cmocka reports as SKIPPED. A reason printed by a test that then passes
# is a case it left out (the summary says so). A skipped test with no reason
# is listed too.
set -u
: "${TEST_WRAP:=}" "${PROFILES:=}" "${PROFILE_SUITES:=}" "${NPU_RUN:?}" "${IR_DATA:=}" "${LOGDIR:?}"
mkdir -p "$LOGDIR"
skips=$LOGDIR/skipped.txt
: > "$skips"
pass=0
fail=0
failed=""

# Runs one suite (label, then the command), stdout also into $LOGDIR/out.
suite() {
    label=$1
    shift
    echo "== $label"
    # shellcheck disable=SC2086
    { $TEST_WRAP "$@"; echo $? > "$LOGDIR/rc"; } | tee "$LOGDIR/out"
    awk -v suite="$label" '
        /^\[ RUN      \] / { reason = ""; next }
        /^skipped: / { reason = substr($0, 10); next }
        /^\[  SKIPPED \] / && !/test\(s\)/ && !seen[$4]++ {
            print suite ": " $4 ": " (reason != "" ? reason : "(the test gave no reason)"); reason = ""; next }
        /^\[       OK \] / && reason != "" { print suite ": " $4 ", one case: " reason; reason = "" }
    ' "$LOGDIR/out" >> "$skips"
    if [ "$(cat "$LOGDIR/rc")" = 0 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        failed="$failed
  $label"
        echo "FAILED: $label"
    fi
}

for t in "$@"; do
    suite "$t" "$t"
done
for p in $PROFILES; do
    for t in $PROFILE_SUITES; do
        NPU_SIM_PROFILE=$p
        export NPU_SIM_PROFILE
        suite "$t (NPU_SIM_PROFILE=$p)" "$t"
        unset NPU_SIM_PROFILE
    done
done

# The IRs of tests/data, run with npu-run: 2 inferences each, an input with a
# dynamic dimension at batch 2. On the software NPU a model whose compile
# fails on an operation the sim does not have (SIM_UNSUPPORTED_OPS) is
# listed as skipped: its .xml and .bin loaded, which is what this checks.
SIM_UNSUPPORTED_OPS="TensorIterator"
ir_ran=0
for xml in $IR_DATA; do
    args="-m $xml -n 2 -q"
    if grep -q 'shape="[^"]*?' "$xml"; then args="$args -b 2"; fi
    echo "== npu-run $args"
    # shellcheck disable=SC2086
    if $TEST_WRAP "$NPU_RUN" $args > "$LOGDIR/out" 2>&1; then
        ir_ran=$((ir_ran + 1))
        cat "$LOGDIR/out"
        continue
    fi
    cat "$LOGDIR/out"
    op=$(sed -n 's/.*unsupported op \([A-Za-z]*\)-opset.*/\1/p' "$LOGDIR/out" | head -n 1)
    if [ -n "${ZE_ENABLE_ALT_DRIVERS:-}" ] && [ -n "$op" ] &&
        case " $SIM_UNSUPPORTED_OPS " in *" $op "*) true ;; *) false ;; esac; then
        echo "npu-run $xml: the software NPU does not compile $op (the IR and its .bin loaded)" >> "$skips"
    else
        fail=$((fail + 1))
        failed="$failed
  npu-run $args"
        echo "FAILED: npu-run $args"
    fi
done

echo "suites: $pass passed, $fail failed; IRs of tests/data run by npu-run: $ir_ran"
if [ -s "$skips" ]; then
    echo "skipped ($(wc -l < "$skips")):"
    sed 's/^/  /' "$skips"
else
    echo "skipped: none"
fi
if [ "$fail" -ne 0 ]; then
    echo "failed:$failed"
    exit 1
fi
