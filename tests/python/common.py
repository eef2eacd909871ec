"""What the Python tests share: the paths of the command and the sample pair, the fixtures, and
the tests' own readers of y4m and raw files (the package's readers are checked against them)."""
import os

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("VMAFX_CLI_BIN", os.path.join(ROOT, "build", "vmafx"))
REF = os.path.join(ROOT, "samples", "path_576x324_ref.y4m")
DIST = os.path.join(ROOT, "samples", "path_576x324_dist.y4m")
FIXTURES = os.environ.get("VMAFX_FIXTURES", os.path.join(ROOT, ".fixtures"))


def fixture(name):
    """The unpacked fixture's folder, or a skip saying why (a failure under VMAFX_TESTS_STRICT)."""
    path = os.path.join(FIXTURES, name)
    if not os.path.isfile(os.path.join(path, "ref.yuv")):
        if os.environ.get("VMAFX_TESTS_STRICT") == "1":
            pytest.fail(f"fixture {name} is missing in {FIXTURES} (VMAFX_TESTS_STRICT=1)")
        pytest.skip(f"skipped: fixture {name} is not unpacked in {FIXTURES} (../shared/fixtures/prepare.py)")
    return path



def read_y4m(path):
    """The planes of an 8-bit 4:2:0 y4m file as (Y, Cb, Cr) arrays, frames x height x width (the
    test's own reader: the package's array input is checked against vmafx's file reader)."""
    data = open(path, "rb").read()
    header, rest = data.split(b"\n", 1)
    fields = {f[:1]: f[1:] for f in header.split()[1:]}
    w, h = int(fields[b"W"]), int(fields[b"H"])
    cw, ch = (w + 1) // 2, (h + 1) // 2
    planes = ([], [], [])
    while rest:
        frame_header, rest = rest.split(b"\n", 1)
        assert frame_header.startswith(b"FRAME")
        for k, (pw, ph) in enumerate(((w, h), (cw, ch), (cw, ch))):
            planes[k].append(np.frombuffer(rest[:pw * ph], np.uint8).reshape(ph, pw))
            rest = rest[pw * ph:]
    return tuple(np.stack(p) for p in planes)


def read_raw(path, w, h, pix, bits, frames):
    """The first `frames` frames of a raw planar file as (Y, Cb, Cr) arrays."""
    cw = w if pix == "444" else (w + 1) // 2
    ch = (h + 1) // 2 if pix == "420" else h
    dtype = np.uint8 if bits == 8 else np.dtype("<u2")
    size = (w * h + 2 * cw * ch)
    data = np.fromfile(path, dtype=dtype, count=size * frames).reshape(frames, size)
    y = data[:, :w * h].reshape(frames, h, w)
    u = data[:, w * h:w * h + cw * ch].reshape(frames, ch, cw)
    v = data[:, w * h + cw * ch:].reshape(frames, ch, cw)
    return y.astype(np.uint16) if bits > 8 else y, u.astype(np.uint16) if bits > 8 else u, \
        v.astype(np.uint16) if bits > 8 else v
