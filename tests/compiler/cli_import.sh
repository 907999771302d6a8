#!/usr/bin/env bash
# `npu import`: the dump after the passes shows shapes; bad input is one error line, never a crash.
set -uo pipefail
npu="$1"; src="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
exit $status
