#!/usr/bin/env bash
# Fails when a tracked C++ source is not clang-formatted with the repository's .clang-format.
set -euo pipefail
cd "$1"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp')
else
  mapfile -t files < <(find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.h' \) -print)
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "no C++ sources found to check" >&2
  exit 1
fi
clang-format --dry-run -Werror "${files[@]}"
echo "checked ${#files[@]} files"
