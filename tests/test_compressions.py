"""Compression told by content past skippable frames (trecbench.compressions): a zstd file
that starts with one (everything pzstd writes) and an lz4 frame file that does are read
as what they hold, from a file and from a pipe. They were read as TREC text: a flood of
R23/R1 errors.

The compressed bytes are made here: Arrow compresses the payload, the skippable frames are
written by hand (the zstd and lz4 formats' specifications)."""

from __future__ import annotations

import struct
import subprocess
import sys

import pyarrow as pa
import pytest

import trecbench
from trecbench import inputs, validate_run
from trecbench.inputs.streams import compression_of

RUN = b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n"
QRELS = b"q1 0 d1 1\n"
# the magic numbers, little-endian, as the formats' specifications give them
ZSTD, LZ4_FRAME, GZIP = b"\x28\xb5\x2f\xfd", b"\x04\x22\x4d\x18", b"\x1f\x8b"


def _skippable(content: bytes, variant: int = 0) -> bytes:
    """A skippable frame: magic 0x184D2A50 + ``variant`` (0..15), its size, its content."""
    return struct.pack("<II", 0x184D2A50 + variant, len(content)) + content


def _arrow(data: bytes, codec: str) -> bytes:
    """``data`` compressed as Arrow's stream writes it (lz4: the frame format)."""
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, codec) as stream:
        stream.write(data)
    return sink.getvalue().to_pybytes()


# a pzstd file's shape: a skippable frame (4 bytes: the next frame's size) before each frame
PZSTD = _skippable(struct.pack("<I", len(_arrow(RUN, "zstd")))) + _arrow(RUN, "zstd")
SKIPPED_LZ4 = _skippable(b"hello", 15) + _skippable(b"") + _arrow(RUN, "lz4")
SKIPPED = {"pzstd": PZSTD, "lz4 frame": SKIPPED_LZ4}


def test_the_frame_after_the_skippable_ones_tells_the_compression():
    for variant in range(16):
        assert compression_of(_skippable(b"x" * variant, variant) + ZSTD) == "zstd"
    assert compression_of(_skippable(b"ab") + _skippable(b"") + LZ4_FRAME) == "lz4"
    # gzip has no skippable frames: after one, it is no compressed file trecbench knows
    assert compression_of(_skippable(b"ab") + GZIP) is None
    # a whole file of skippable frames, or one cut short in a frame: zstd's (empty, R26;
    # truncated, R27); frames beyond the first 64 KiB: given up, read as it is
    assert compression_of(_skippable(b"ab")) == compression_of(_skippable(b"ab")[:6]) == "zstd"
    assert compression_of(_skippable(bytes(64 << 10)) + ZSTD) is None
    assert compression_of(b"P*M q1 Q0 d1 1 1 t\n") is None


@pytest.mark.parametrize("kind", SKIPPED)
def test_a_file_that_starts_with_skippable_frames_is_read_as_what_it_holds(tmp_path, kind):
    packed = tmp_path / "run.txt.zst"
    packed.write_bytes(SKIPPED[kind])
    (tmp_path / "run.txt").write_bytes(RUN)
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    assert inputs.load_run(packed).table.equals(inputs.load_run(tmp_path / "run.txt").table)
    scored = trecbench.evaluate(tmp_path / "qrels.txt", packed, ["P.1"]).per_query
    assert scored["value"].tolist() == [1.0]
    assert validate_run(packed).findings == []


def _trecbench(tmp_path, *argv: str, stdin: bytes) -> subprocess.CompletedProcess:
    """The command line with ``stdin`` through a pipe (not a file: spooled, head peeked in
    memory)."""
    command = [sys.executable, "-m", "trecbench", *argv]
    return subprocess.run(command, input=stdin, capture_output=True, cwd=tmp_path, check=False)


@pytest.mark.parametrize("kind", SKIPPED)
def test_skippable_frames_on_standard_input(tmp_path, kind):
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    scored = _trecbench(tmp_path, "score", "-m", "P.1", "qrels.txt", "-", stdin=SKIPPED[kind])
    assert (scored.returncode, scored.stderr) == (0, b"")
    assert scored.stdout.split() == [b"P_1", b"all", b"1.0000"]
