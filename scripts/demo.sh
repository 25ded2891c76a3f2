#!/bin/sh
# `make demo`: installs what is missing, builds, and runs the demo on the NPU if
# one is present, else on the software NPU.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
make -s all
echo "npu demo: not yet (the examples land with the tooling issue); library and software NPU built."
