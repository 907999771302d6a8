#!/usr/bin/env bash
# `cpack -G DEB` from the build folder: a .deb whose control fields and file list hold the CLI,
# the data folder, the libraries, headers, package configs and the Python module under /usr.
set -euo pipefail
build="$1"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$build" && cpack -G DEB -B "$tmp" > "$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/*.deb)
dpkg-deb -f "$deb" Package Version Architecture > "$tmp/fields.txt"
grep -qx "Package: npu-toolchain" "$tmp/fields.txt"
grep -qx "Architecture: amd64" "$tmp/fields.txt"
dpkg-deb -f "$deb" Depends | grep -q "python3-numpy"
dpkg-deb -c "$deb" | awk '{print $6}' > "$tmp/files.txt"
for f in ./usr/bin/npu ./usr/share/npu/configs/npu-s.yaml ./usr/share/npu/examples/digits/model.onnx \
         ./usr/share/npu/subnet_bench/suites/default.yaml ./usr/include/npu/runtime/main_job.h \
         ./usr/share/bash-completion/completions/npu ./usr/lib/python3/dist-packages/npu/__init__.py; do
  grep -qx "$f" "$tmp/files.txt" || { echo "not in the package: $f"; exit 1; }
done
grep -qE '^\./usr/lib/(.*/)?libnpu_runtime\.a$' "$tmp/files.txt"
grep -qE '^\./usr/lib/(.*/)?cmake/npu/npuConfig\.cmake$' "$tmp/files.txt"
grep -qE '^\./usr/lib/(.*/)?pkgconfig/npu\.pc$' "$tmp/files.txt"
# The package's files are the install tree's: unpacked, its npu finds its own data.
dpkg-deb -x "$deb" "$tmp/root"
"$tmp/root/usr/bin/npu" compile -o "$tmp/d.npub" > /dev/null
