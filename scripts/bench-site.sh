#!/usr/bin/env bash
# The site benchmark of issue 5: render a synthetic registry of
# SITE_BENCH_N extensions (default 10,000) × 2 versions with 5 KB READMEs,
# and search it in headless Chromium (/usr/bin/chromium; skipped without it).
#
# Reports, from BenchmarkSite in site/bench_test.go:
#   render  ns/op          wall time of one render, in process (includes removing the previous site)
#           child-s        wall time of a separate process that only renders   (goal < 10 s)
#           peak-RSS-MB    peak resident memory of that process                 (goal < 500 MB)
#   search  median-ms/query, p95, max: typing a query until the list is laid out (goal < 50 ms)
#
# SITE_BENCH_REGISTRY=DIR keeps the generated registry in DIR between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export SITE_BENCH_N="${SITE_BENCH_N:-10000}"
exec go test -run '^$' -bench '^BenchmarkSite$' -benchtime 1x -timeout 30m ./site/
