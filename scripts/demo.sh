#!/bin/sh
# `make demo`: installs what is missing, builds, and runs examples/demo.c on the
# NPU if the Level Zero loader finds one by itself, else on the software NPU.
# The demo classifies the held-out digits with the trained IR in data/digits/
# (committed; scripts/train_digits.py remakes it, but the demo needs no Python).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
make -s all build/examples/demo

# Probe in a child process (a broken driver must not take the demo down): does
# the loader, with its default driver list, give npu an NPU device?
if env -u ZE_ENABLE_ALT_DRIVERS timeout 30 build/tools/npu-info --quiet >/dev/null 2>&1; then
    echo "npu demo: an NPU was found; running on it"
    unset ZE_ENABLE_ALT_DRIVERS
else
    ZE_ENABLE_ALT_DRIVERS="$(pwd)/build/libze_npu_sim.so"
    export ZE_ENABLE_ALT_DRIVERS
    echo "npu demo: no NPU found; running on the software NPU (ZE_ENABLE_ALT_DRIVERS=$ZE_ENABLE_ALT_DRIVERS)"
fi

# A fresh cache, so that the first start compiles and the second one loads
# (the exported blob goes there too).
rm -rf build/demo-cache
build/examples/demo --data data/digits --cache-dir build/demo-cache
