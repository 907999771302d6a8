#!/usr/bin/env bash
# Fails when the committed RTL config package differs from what isa-gen makes of the YAML now.
# Usage: config_package_current.sh ISA_GEN CONFIG.yaml COMMITTED_PKG.sv
set -euo pipefail
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
"$1" sv-config "$2" "$tmp"
if ! diff -u "$3" "$tmp"; then
  echo "$3 is stale: run isa-gen sv-config $2 $3" >&2
  exit 1
fi
