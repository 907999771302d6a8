#!/usr/bin/python3
"""Writes the .npz fixtures of tests/data/npz/ (the reader's tests and the npz fuzz seeds).

Good archives come from numpy.savez and numpy.savez_compressed themselves; the damaged ones are
those archives edited byte by byte, or zip files numpy would never write, each named after what
is wrong with it. The values are small and fixed, so the tests can check them; the zip entries'
timestamps are whatever numpy writes, so rerunning changes the bytes but not the contents.

usage: /usr/bin/python3 scripts/make_npz_fixtures.py [OUT_DIR]   (default tests/data/npz)
"""
import io
import os
import struct
import sys
import warnings
import zipfile

import numpy as np


def two_inputs(samples=3):
    """Data for tests/data/multi_input/two_inputs.yaml (inputs x [1, 2, 3, 3] and g [1, 4, 1, 1]):
    `samples` samples of each, stacked along the leading axis; sample k of x holds 18k..18k+17
    over 4, of g k + [1, -2, 0.5, 4]."""
    x = (np.arange(18 * samples, dtype=np.float32) / 4).reshape(samples, 2, 3, 3)
    g = np.array([1.0, -2.0, 0.5, 4.0], dtype=np.float32).reshape(1, 4, 1, 1)
    g = g + np.arange(samples, dtype=np.float32).reshape(samples, 1, 1, 1)
    return {"x": x, "g": g}


def savez(compressed, **arrays):
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return bytearray(buffer.getvalue())


def raw_zip(members, compression=zipfile.ZIP_STORED):
    """A zip of (name, bytes) members as Python's zipfile writes it, duplicates kept."""
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", compression=compression) as z:
        warnings.simplefilter("ignore")  # "Duplicate name": wanted here
        for name, data in members:
            z.writestr(name, data)
    return bytearray(buffer.getvalue())


def npy_bytes(array):
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def central_entry(data, index=0):
    """Offset of the index-th central directory entry (signature PK\\1\\2)."""
    offset = -1
    for _ in range(index + 1):
        offset = data.index(b"PK\x01\x02", offset + 1)
    return offset


def fixtures():
    out = {}
    out["stored.npz"] = savez(False, **two_inputs())
    out["compressed.npz"] = savez(True, **two_inputs())
    out["one-sample.npz"] = savez(False, **two_inputs(1))
    # Input data that does not fit two_inputs.yaml (loadCalibrationSet's errors).
    x, g = two_inputs()["x"], two_inputs()["g"]
    out["fit-missing-array.npz"] = savez(True, x=x)
    out["fit-extra-array.npz"] = savez(True, x=x, g=g, mask=np.ones((3, 4), np.float32))
    out["fit-int-dtype.npz"] = savez(True, x=x.astype(np.int64), g=g)
    out["fit-bad-shape.npz"] = savez(True, x=x.reshape(3, 2, 9), g=g)
    out["fit-sample-counts.npz"] = savez(True, x=x, g=g[:2])
    nan = x.copy()
    nan[1, 0, 2, 1] = np.nan
    out["fit-nan.npz"] = savez(True, x=nan, g=g)
    # Every dtype the reader takes, and a batch of three token-id samples.
    out["dtypes.npz"] = savez(True, f64=np.array([[0.5, -1.25]], dtype=np.float64),
                              i64=np.arange(12, dtype=np.int64).reshape(3, 4),
                              i32=np.array([7, -8], dtype=np.int32))

    damaged = savez(False, **two_inputs())
    crc = central_entry(damaged) + 16
    damaged[crc] ^= 0xFF  # the central directory's CRC-32 of x.npy
    local_crc = 14
    damaged[local_crc] ^= 0xFF  # and the local header's, so only the data check catches it
    out["bad-crc.npz"] = damaged

    data = savez(True, **two_inputs())
    out["truncated.npz"] = data[: len(data) // 2]
    out["not-a-zip.npz"] = bytearray(npy_bytes(np.zeros(3, dtype=np.float32)))
    out["empty-archive.npz"] = raw_zip([])
    out["member-not-npy.npz"] = raw_zip([("x.npy", npy_bytes(np.ones(2, np.float32))),
                                         ("notes.txt", b"calibration set v1\n")])
    with_dup = raw_zip([("x.npy", npy_bytes(np.ones(2, np.float32))),
                        ("x.npy", npy_bytes(np.zeros(2, np.float32)))])
    out["duplicate-name.npz"] = with_dup
    out["member-not-npy-data.npz"] = raw_zip([("x.npy", b"PK this is no array")],
                                             zipfile.ZIP_DEFLATED)
    # A deflated member of 1 MiB of zeros whose entries (local and central) claim 100 bytes:
    # the reader must stop at the claim, not trust it or run past it.
    bomb = raw_zip([("x.npy", b"\0" * (1 << 20))], zipfile.ZIP_DEFLATED)
    for offset in (22, central_entry(bomb) + 24):
        struct.pack_into("<I", bomb, offset, 100)
    out["size-understated.npz"] = bomb
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "tests", "data", "npz")
    os.makedirs(out_dir, exist_ok=True)
    for name, data in sorted(fixtures().items()):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(bytes(data))
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
