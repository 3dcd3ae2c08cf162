"""Compression told by content past skippable frames (trecbench.compressions): a zstd file
that starts with one (everything pzstd writes) and an lz4 frame file that does are read
as what they hold, from a file and from a pipe; lz4's legacy format (``lz4 -l``), which
Arrow cannot read, is one R27 line. Both were read as TREC text: a flood of R23/R1 errors.

The compressed bytes are made here: Arrow compresses the payload, the skippable frames and
the legacy lz4 container are written by hand (the zstd and lz4 formats' specifications)."""

from __future__ import annotations

import re
import struct
import subprocess
import sys

import pyarrow as pa
import pytest

import trecbench
from trecbench import inputs, validate_qrels, validate_run
from trecbench.errors import InputError
from trecbench.inputs.streams import compression_of

RUN = b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n"
QRELS = b"q1 0 d1 1\n"
# the magic numbers, little-endian, as the formats' specifications give them
ZSTD, LZ4_FRAME, LZ4_LEGACY, GZIP = (
    b"\x28\xb5\x2f\xfd",
    b"\x04\x22\x4d\x18",
    b"\x02\x21\x4c\x18",
    b"\x1f\x8b",
)
LEGACY_REFUSAL = (
    "lz4 legacy format (lz4 -l), which trecbench cannot read: recompress with lz4 without "
    "-l (or gzip/zstd)"
)


def _skippable(content: bytes, variant: int = 0) -> bytes:
    """A skippable frame: magic 0x184D2A50 + ``variant`` (0..15), its size, its content."""
    return struct.pack("<II", 0x184D2A50 + variant, len(content)) + content


def _arrow(data: bytes, codec: str) -> bytes:
    """``data`` compressed as Arrow's stream writes it (lz4: the frame format)."""
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, codec) as stream:
        stream.write(data)
    return sink.getvalue().to_pybytes()


def _lz4_legacy(data: bytes) -> bytes:
    """``data`` in lz4's legacy format: its magic, then one block (a 4-byte size and an
    lz4 block holding ``data`` as one run of literals: a token of length 15, then the
    rest of the length in bytes of 255 and a last byte below it)."""
    rest, length = len(data) - 15, b""
    while rest >= 255:
        length, rest = length + b"\xff", rest - 255
    block = b"\xf0" + length + bytes([rest]) + data
    return LZ4_LEGACY + struct.pack("<I", len(block)) + block


# a pzstd file's shape: a skippable frame (4 bytes: the next frame's size) before each frame
PZSTD = _skippable(struct.pack("<I", len(_arrow(RUN, "zstd")))) + _arrow(RUN, "zstd")
SKIPPED_LZ4 = _skippable(b"hello", 15) + _skippable(b"") + _arrow(RUN, "lz4")
SKIPPED = {"pzstd": PZSTD, "lz4 frame": SKIPPED_LZ4}


def test_the_frame_after_the_skippable_ones_tells_the_compression():
    for variant in range(16):
        assert compression_of(_skippable(b"x" * variant, variant) + ZSTD) == "zstd"
    assert compression_of(_skippable(b"ab") + _skippable(b"") + LZ4_FRAME) == "lz4"
    assert compression_of(_skippable(b"ab") + LZ4_LEGACY) == "lz4 legacy"
    assert compression_of(LZ4_LEGACY + b"rest") == "lz4 legacy"
    # gzip has no skippable frames: after one, it is no compressed file trecbench knows
    assert compression_of(_skippable(b"ab") + GZIP) is None
    # a whole file of skippable frames: zstd's (empty, R26); one that ends within what its
    # first bytes declare a frame, or frames beyond the first 64 KiB: read as it is
    assert compression_of(_skippable(b"ab")) == "zstd"
    assert compression_of(_skippable(b"ab")[:6]) is None
    assert compression_of(_skippable(bytes(64 << 10)) + ZSTD) is None
    assert compression_of(b"P*M q1 Q0 d1 1 1 t\n") is None


def test_text_whose_qid_starts_like_a_skippable_frame_is_text(tmp_path):
    # refused as "corrupt or truncated zstd data" (its " Q0 " read as a 512 MB frame's
    # size); trec_eval 9.0.8 -q: num_ret 1 for the topic 1, as for any text run
    run = tmp_path / "r.run"
    run.write_bytes(b"P*M\x18 Q0 d1 1 0.5 t\n1 Q0 d1 1 0.5 t\n")
    assert compression_of(run.read_bytes()) is None
    assert inputs.load_run(run).table.column("qid").to_pylist() == ["P*M\x18", "1"]


def test_text_whose_qid_starts_like_bz2_is_text_and_a_bz2_cut_in_its_header_is_bz2(tmp_path):
    # refused as "corrupt or truncated bz2 data: Invalid data stream" (its 'BZh' read as
    # bz2's magic); trec_eval 9.0.8 -m map: 1.0000 for the run of both lines
    import bz2

    run = tmp_path / "r.run"
    run.write_bytes(b"BZh5 Q0 d1 1 2.0 t\nx Q0 d1 1 2.0 t\n")
    assert compression_of(run.read_bytes()) is None
    assert inputs.load_run(run).table.column("qid").to_pylist() == ["BZh5", "x"]
    stream = bz2.compress(b"x Q0 d1 1 2.0 t\n")
    assert [compression_of(stream[:n]) for n in (3, 4, 7, 10, len(stream))] == ["bz2"] * 5
    assert compression_of(bz2.compress(b"")) == "bz2"  # a stream's end at once


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


def test_lz4_legacy_is_one_r27_refusal(tmp_path):
    legacy = tmp_path / "run.lz4"
    legacy.write_bytes(_lz4_legacy(RUN))
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    with pytest.raises(InputError, match=re.escape(f"run.lz4: {LEGACY_REFUSAL}")) as refused:
        trecbench.evaluate(tmp_path / "qrels.txt", legacy, ["P.1"])
    assert refused.value.rule == "R27"
    found = [(f.rule, f.message) for f in validate_run(legacy).findings]
    assert found == [("R27", LEGACY_REFUSAL)]
    legacy.write_bytes(_skippable(b"ab") + _lz4_legacy(RUN))  # as lz4's own tool reads it
    assert [f.rule for f in validate_run(legacy).findings] == ["R27"]


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


def test_lz4_legacy_on_standard_input_is_one_line(tmp_path):
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    legacy = _lz4_legacy(RUN)
    scored = _trecbench(tmp_path, "score", "-m", "P.1", "qrels.txt", "-", stdin=legacy)
    assert (scored.returncode, scored.stdout) == (2, b"")
    assert scored.stderr.decode() == f"trecbench: -: error[R27]: {LEGACY_REFUSAL}\n"
    validated = _trecbench(tmp_path, "validate", "-", stdin=legacy)
    assert validated.returncode == 2
    assert validated.stdout.decode().splitlines()[0] == f"-: error[R27]: {LEGACY_REFUSAL}"


def test_trailing_data_after_a_gzip_stream_is_named_as_such(tmp_path):
    """Text after a complete gzip stream (`gzip -t`: "decompression OK, trailing garbage
    ignored") was "corrupt or truncated gzip data: Compressed file ended before the
    end-of-stream marker was reached"; a file cut short still is."""
    import gzip

    stream = gzip.compress(b"1 Q0 a 1 1 t\n")
    second = gzip.compress(b"1 Q0 b 2 0.5 t\n")
    for members in ([stream], [stream, second]):  # after the last of several members too
        path = tmp_path / f"garb{len(members)}.run.gz"
        path.write_bytes(b"".join(members) + b"garbage\n")
        (finding,) = validate_run(path).findings
        offset = sum(map(len, members))
        assert (finding.rule, finding.message) == (
            "R27",
            f"trailing data after the gzip stream (8 bytes at offset {offset}): "
            "not gzip, and no part of the input (gzip -d ignores it with a warning)",
        )
    one = tmp_path / "one.run.gz"  # "1 bytes" (reviewer 363)
    one.write_bytes(stream + b"\x1f")
    (finding,) = validate_run(one).findings
    assert finding.message.startswith(
        f"trailing data after the gzip stream (1 byte at offset {len(stream)})"
    )
    cut = tmp_path / "cut.run.gz"
    cut.write_bytes(stream[:-5])
    (finding,) = validate_run(cut).findings
    assert finding.message.startswith("corrupt or truncated gzip data: ")
    # a JSON input is no run: convert dict said "no part of the run" of its trailing bytes
    doc, json_gzip = tmp_path / "d.json.gz", gzip.compress(b'{"q1": {"d1": 1}}')
    doc.write_bytes(json_gzip + b"junk")
    out = str(tmp_path / "o")
    converted = _trecbench(tmp_path, "convert", "dict", str(doc), "-o", out, stdin=b"")
    assert converted.returncode == 2
    assert converted.stderr.decode() == (
        f"trecbench: {doc}: error[R27]: trailing data after the gzip stream (4 bytes at offset "
        f"{len(json_gzip)}): not gzip, and no part of the input (gzip -d ignores it with a "
        "warning)\n"
    )


@pytest.mark.parametrize(
    ("codec", "said"), [("bz2", "that is no bz2 stream"), ("zstd", "Unknown frame descriptor")]
)
def test_trailing_data_after_a_bz2_or_zstd_stream_is_named_as_such(tmp_path, codec, said):
    """Bytes after the last bz2 stream or zstd frame were "corrupt or truncated bz2 data"
    (bzip2 -d ignores them with a warning); a stream cut short still is."""
    text = "".join(f"1 Q0 d{i} {i + 1} {100 - i} t\n" for i in range(50)).encode()
    stream = _arrow(text, codec)
    path = tmp_path / f"garb.run.{codec}"
    path.write_bytes(stream + b"garbage\n")
    (finding,) = validate_run(path).findings
    assert finding.rule == "R27"
    assert re.fullmatch(
        rf"trailing data after the {codec} data: not {codec}, and no part of the input "
        rf"\(.*{re.escape(said)}.*\)",
        finding.message,
    ), finding.message
    path.write_bytes(stream[:-3])
    (finding,) = [found for found in validate_run(path).findings if found.rule == "R27"]
    assert finding.message.startswith(f"corrupt or truncated {codec} data: "), finding.message


def test_a_bz2_file_of_streams_with_an_empty_one_between_is_read_as_bzip2_reads_it(tmp_path):
    """Shards compressed one by one and concatenated, one of them empty: bzip2 -d and
    Python's bz2 read every line, and Arrow's bz2 stream refused the file as corrupt
    ("wrong sequence of calls to bz2 library")."""
    import bz2

    lines = [f"1 Q0 d{i} {i + 1} {100 - i} t\n".encode() for i in range(6)]
    data = bz2.compress(b"".join(lines[:3])) + bz2.compress(b"") + bz2.compress(b"".join(lines[3:]))
    path = tmp_path / "shards.run.bz2"
    path.write_bytes(data)
    assert bz2.decompress(data) == b"".join(lines)  # the reference
    result = validate_run(path)
    assert result.counts["lines"] == 6 and not result.findings
    path.write_bytes(data + bz2.compress(b""))  # an empty one last, and first
    assert validate_run(path).counts["lines"] == 6
    path.write_bytes(bz2.compress(b"") + data)
    assert validate_run(path).counts["lines"] == 6


def test_trailing_data_after_a_gzip_stream_on_standard_input(tmp_path):
    """Standard input (piped, or redirected from a file and read from where it stands) was
    not read again for gzip's trailing data: its garbage was 'corrupt or truncated gzip
    data: Compressed file ended before the end-of-stream marker was reached', where the
    same file given by name says what it is."""
    import gzip

    (tmp_path / "qrels.txt").write_bytes(QRELS)
    stream = gzip.compress(RUN)
    refusal = (
        "error[R27]: trailing data after the gzip stream (8 bytes at offset "
        f"{len(stream)}): not gzip, and no part of the input (gzip -d ignores it with a warning)"
    )
    named = tmp_path / "run.gz"
    named.write_bytes(stream + b"garbage\n")
    argv = ["score", "-m", "P.1", "qrels.txt"]
    scored = _trecbench(tmp_path, *argv, str(named), stdin=b"")
    assert scored.stderr.decode() == f"trecbench: {named}: {refusal}\n"
    piped = _trecbench(tmp_path, *argv, "-", stdin=named.read_bytes())
    assert (piped.returncode, piped.stderr.decode()) == (2, f"trecbench: -: {refusal}\n")
    standing = tmp_path / "standing"  # a first line read by the shell before the call
    standing.write_bytes(b"header\n" + named.read_bytes())
    with standing.open("rb", buffering=0) as file:
        file.readline()  # unbuffered: the file stands at the second line
        command = [sys.executable, "-m", "trecbench", *argv, "-"]
        redirected = subprocess.run(
            command, stdin=file, capture_output=True, cwd=tmp_path, check=False
        )
    assert (redirected.returncode, redirected.stderr.decode()) == (2, f"trecbench: -: {refusal}\n")


@pytest.fixture(scope="module")
def large_run_text() -> bytes:
    """Some 20 MB of a regular run: 8,000 topics of 100 documents."""
    import numpy as np

    lines = 800_000
    docnos = np.random.default_rng(0).integers(0, 10**6, lines).astype(str)
    ranks = np.tile(np.arange(1, 101), lines // 100)
    qids = np.repeat(np.arange(lines // 100), 100).astype(str)
    return "".join(
        f"{q} Q0 d{d} {r} {1000 - r}.5 t\n"
        for q, d, r in zip(qids, docnos, ranks.tolist(), strict=True)
    ).encode()


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_a_large_truncated_run_is_refused_r27_not_an_internal_error(
    large_run_text, codec, tmp_path
):
    """score on a gzip or zstd run of some 20 MB cut short stopped with "internal error
    (BufferError: Existing exports of data)", exit 70: the errors its reads raised, held in
    reference cycles, kept the reader's frames and the buffer being read into alive, and
    the reader could not resize that buffer (reviewer 363). Small files never got there."""
    import gc

    packed = _arrow(large_run_text, codec)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "cut.run"
    qrels.write_bytes(b"0 0 d1 1\n")
    gc.disable()  # what keeps the buffer is freed by a collection: none may hide it
    try:
        for fraction in (0.6, 0.9, 0.95):
            run.write_bytes(packed[: int(len(packed) * fraction)])
            with pytest.raises(InputError, match="corrupt or truncated"):
                trecbench.evaluate(qrels, run)
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("kind", "options"),
    [("run", {}), ("run", {"memory": 1}), ("qrels", {})],
    ids=["run-whole", "run-blocks", "qrels"],
)
def test_score_says_after_which_line_a_stream_broke_off_as_validate_does(tmp_path, kind, options):
    """score refused a truncated gzip input (R27) with no line, where validate's finding
    names the last whole line read (docs/score.md: "with validate's rule and words"): the
    regular reader (Arrow's) now leaves a broken-off stream to the tokenizer, whose chunks
    count the lines before the break, for score and validate alike."""
    import gzip

    if kind == "run":
        text = b"".join(b"%d Q0 d%d 1 %d.5 t\n" % (i // 100, i, 9000 - i) for i in range(9000))
    else:
        text = b"".join(b"%d 0 d%d %d\n" % (i // 100, i, i % 2) for i in range(9000))
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(text)[:-2000])
    whole = subprocess.run(["sh", "-c", f"zcat {cut} | wc -l"], capture_output=True)
    read = int(whole.stdout)
    assert 0 < read < 9000
    other = tmp_path / "other"
    other.write_bytes(b"0 0 d1 1\n" if kind == "run" else b"0 Q0 d1 1 1.5 t\n")
    qrels, run = (other, cut) if kind == "run" else (cut, other)
    with pytest.raises(InputError) as refused:
        trecbench.evaluate(qrels, run, **options)
    said = "corrupt or truncated gzip data: Compressed file ended before the end-of-stream"
    assert refused.value.message.startswith(said)
    assert refused.value.message.endswith(f" (after line {read}, the last whole line read)")
    validated = validate_run(cut) if kind == "run" else validate_qrels(cut)
    (finding,) = [f for f in validated.findings if f.rule == "R27"]
    assert finding.message == refused.value.message
