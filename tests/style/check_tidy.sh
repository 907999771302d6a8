#!/usr/bin/env bash
# clang-tidy (the checks of .clang-tidy) on the lines the newest commit changed, and on
# uncommitted changes: a change brings no new warning. Older code is not held to it until it is
# touched. Uses the build's compile_commands.json; clang-tidy-diff runs only the changed .cpp
# files, and reports only warnings on changed lines.
# usage: check_tidy.sh SOURCE_DIR BUILD_DIR [BASE]   (BASE: the commit to diff against, HEAD~1)
set -euo pipefail
source_dir="$1"
build_dir="$2"
base="${3:-HEAD~1}"
cd "$source_dir"
if ! git rev-parse --verify --quiet "$base" >/dev/null; then
  echo "clang-tidy: no commit $base to compare with (a shallow clone?): nothing to check"
  exit 0
fi
if ! command -v clang-tidy-diff >/dev/null; then
  echo "clang-tidy: clang-tidy-diff is not installed (scripts/install-deps.sh installs clang-tidy)"
  exit 1
fi
if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "clang-tidy: no $build_dir/compile_commands.json (configure with CMake first)"
  exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
git diff -U0 "$base" -- '*.cpp' '*.h' |
  clang-tidy-diff -p1 -path "$build_dir" -quiet -j 2 \
    -iregex '(support|isa|golden|compiler|simulator|runtime|subnet_bench|cli)/.*\.cpp' > "$log" 2>&1 || true
# clang 14 rejects some C++20 that GCC builds (structured bindings captured by lambdas): those
# frontend errors ([clang-diagnostic-error]) are clang's, not findings, and are not counted;
# every other warning or error is.
warnings=$(grep ': warning: \|: error: ' "$log" | grep -vc 'clang-diagnostic-error' || true)
if [ "$warnings" -ne 0 ]; then
  grep -A3 ': warning: \|: error: ' "$log"
  echo "clang-tidy: $warnings warnings on the lines changed since $base"
  exit 1
fi
echo "clang-tidy: no warning on the lines changed since $base"
