#!/bin/sh
# bench/checkpoints/run.sh: checkpoints at repository scale against git on
# the same tree, in the same run (BenchmarkCheckpointsVsGit in
# internal/snapshot; BENCHMARKS.md has the figures and what each means).
#
#   bench/checkpoints/run.sh [ROUNDS] [SIZES]
#
# ROUNDS (default 5) interleaved rounds per tree; SIZES a regular
# expression of the trees (default all: 13k = 13,000 files / ~143 MB,
# 100k = 100,000 files / ~200 MB). The trees are generated in the test's
# temporary directory and removed after; the 100k tree takes a few minutes
# to write and commit and needs ~0.5 GB of disk.
set -eu
rounds=${1:-5}
sizes=${2:-.}
cd "$(dirname "$0")/../.."
exec go test -run '^$' -bench "^BenchmarkCheckpointsVsGit\$/^($sizes)\$" -benchtime "${rounds}x" -timeout 60m -v ./internal/snapshot
