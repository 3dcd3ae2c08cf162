"""gzip read through ISA-L's inflater (the ``fast-gzip`` extra) on a thread of its own reads
exactly what Arrow's zlib stream (the fallback) reads: same bytes, same checksum of the file
as stored, same R27 error on a truncated or corrupt file."""

from __future__ import annotations

import gzip
import hashlib
import sys
import threading
import time

import pytest

from trecbench.errors import InputError
from trecbench.inputs import read_ahead, streams

# several of the inflater's blocks, lines that do not end on a block's edge
TEXT = b"".join(
    b"%d Q0 doc%d %d %.4f tag\n" % (i % 97, i, i % 1000, 1 / (i + 1)) for i in range(90_000)
)


@pytest.fixture(params=["isal", "zlib"])
def inflater(request, monkeypatch):
    """Each test twice: with ISA-L's threaded reader and with the import taken away. The
    inflater's blocks and reads are made smaller than its own, so that the text spans
    many of each."""
    monkeypatch.setattr(read_ahead, "INFLATE_BLOCK", 1 << 20)
    monkeypatch.setattr(read_ahead, "COMPRESSED_READ", 100_003)
    if request.param == "isal":
        pytest.importorskip("isal")
    else:
        monkeypatch.setitem(sys.modules, "isal", None)  # import isal raises ImportError
    return request.param


def _read(path, spool=False, into=False):
    with streams.Source(path, spool=spool) as source:
        data = _read_into(source.stream()) if into else source.read()
        fast = isinstance(source._inflater, read_ahead.ReadAhead)
        return data, source.record(), fast


def _read_into(stream) -> bytes:
    """The stream read as the run's reader reads it: ``readinto`` a part of a buffer,
    of sizes that do not fall on the inflater's blocks."""
    parts, sizes = [], [1, 777_777, read_ahead.INFLATE_BLOCK + 3]
    while True:
        size = sizes[len(parts) % len(sizes)]
        buffer = bytearray(size + 5)
        got = stream.readinto(memoryview(buffer)[5:])
        if not got:
            return b"".join(parts)
        assert buffer[:5] == bytes(5)  # nothing written before the part given
        parts.append(bytes(buffer[5 : 5 + got]))


@pytest.mark.parametrize("into", [False, True])
@pytest.mark.parametrize("spool", [False, True])
def test_single_and_multiple_members_read_the_same(tmp_path, inflater, spool, into):
    assert len(TEXT) > 2 * read_ahead.INFLATE_BLOCK
    members = gzip.compress(TEXT[:1_000_003]) + gzip.compress(TEXT[1_000_003:])
    for name, packed in (("one.gz", gzip.compress(TEXT)), ("two.txt", members)):
        (tmp_path / name).write_bytes(packed)
        data, record, fast = _read(tmp_path / name, spool, into)
        assert data == TEXT, name
        assert fast == (inflater == "isal")
        assert record == {"size": len(packed), "sha256": hashlib.sha256(packed).hexdigest()}


@pytest.mark.parametrize(
    "damage", [lambda b: b[:-30], lambda b: b[: len(b) // 2], lambda b: b[:5000] + b"\xff" * 64]
)
@pytest.mark.parametrize("into", [False, True])
def test_truncated_or_corrupt_gzip_is_r27(tmp_path, inflater, damage, into):
    path = tmp_path / "bad.run.gz"
    path.write_bytes(damage(gzip.compress(TEXT)))
    with pytest.raises(InputError, match=r"bad\.run\.gz: corrupt or truncated gzip") as error:
        _read(path, into=into)
    assert error.value.rule == "R27"


@pytest.mark.parametrize("into", [False, True])
@pytest.mark.parametrize("spool", [False, True])
def test_zero_bytes_after_a_member_are_skipped_as_python_s_gzip_skips_them(
    tmp_path, inflater, spool, into
):
    """A member, zero bytes, a member (and zeros at the end): ISA-L's reader read on past
    the zeros, zlib's stream stopped at them (R27): 50,000 lines or none, whichever was
    installed. Both read what Python's gzip module reads now."""
    half = TEXT.index(b"\n", len(TEXT) // 2) + 1
    first, second = gzip.compress(TEXT[:half]), gzip.compress(TEXT[half:])
    for name, packed in (
        ("padded.gz", first + bytes(8) + second),
        ("ends.gz", first + second + bytes(4)),
    ):
        (tmp_path / name).write_bytes(packed)
        assert gzip.decompress(packed) == TEXT  # the standard library's reading
        data, record, _ = _read(tmp_path / name, spool, into)
        assert data == TEXT, name
        assert record == {"size": len(packed), "sha256": hashlib.sha256(packed).hexdigest()}
    for name, packed in (  # padding between many members, and after each
        ("many.gz", b"".join(gzip.compress(TEXT[i : i + 10**5]) + bytes(i % 3) for i in
                             range(0, len(TEXT), 10**5))),
    ):  # fmt: skip
        (tmp_path / name).write_bytes(packed)
        assert _read(tmp_path / name, spool, into)[0] == TEXT, name


def _until_error(path, into: bool) -> tuple[bytes, InputError]:
    """What a stream of ``path`` gives, in reads (or ``readinto``) of 4 MiB, before its
    error."""
    got, buffer = bytearray(), bytearray(4 << 20)
    with streams.Source(path) as source:
        stream = source.stream()
        try:
            while True:
                block = buffer[: stream.readinto(buffer)] if into else stream.read(len(buffer))
                if not block:
                    pytest.fail(f"{path} read whole, no error")
                got += block
        except InputError as error:
            return bytes(got), error


@pytest.mark.parametrize("into", [False, True])
def test_an_error_after_zero_padding_is_said_as_it_is_after_every_byte_before_it(
    tmp_path, inflater, into
):
    """Junk or a member cut short after padding: every byte before the error is read (the
    read on past the zeros dropped those of the read that failed: 0 bytes before R27), and
    the error is what it is (it was 'zero bytes, then no gzip member' at the padding)."""
    half = TEXT.index(b"\n", len(TEXT) // 2) + 1
    first, second = gzip.compress(TEXT[:half]), gzip.compress(TEXT[half:])
    junk = tmp_path / "junk.gz"
    junk.write_bytes(first + bytes(8) + second + b"junk!")
    got, error = _until_error(junk, into)
    assert got == TEXT and error.rule == "R27"
    offset = len(first) + 8 + len(second)
    assert str(error).endswith(
        f"trailing data after the gzip stream (5 bytes at offset {offset}): not gzip, and no "
        "part of the input (gzip -d ignores it with a warning)"
    )
    cut = tmp_path / "cut.gz"
    cut.write_bytes(first + bytes(8) + second[: len(second) // 2])
    got, error = _until_error(cut, into)
    assert TEXT[:half] == got[:half] and TEXT.startswith(got) and len(got) > half
    assert ": corrupt or truncated gzip data" in str(error)


def test_isal_without_its_c_reader_by_name_reads_through_igzip_open(tmp_path, monkeypatch):
    # the reader with a larger read buffer is isal's internal name (its threaded reader's):
    # a later isal without it is read through igzip.open, as before
    igzip = pytest.importorskip("isal.igzip")
    monkeypatch.delattr(igzip, "_IGzipReader")
    (tmp_path / "run.gz").write_bytes(gzip.compress(TEXT))
    data, _, fast = _read(tmp_path / "run.gz", into=True)
    assert data == TEXT and fast


def test_a_stream_opened_in_a_thread_that_ended_reads_whole(tmp_path, inflater):
    # the run's reader may open the stream in one thread and read it in another (the
    # prefetching thread): isal.igzip_threaded's thread would stop with the first one
    packed = gzip.compress(TEXT)
    (tmp_path / "run.gz").write_bytes(packed)
    with streams.Source(tmp_path / "run.gz") as source:
        opened = []
        opener = threading.Thread(target=lambda: opened.append(source.stream()))
        opener.start()
        opener.join()
        time.sleep(0.1)
        assert b"".join(iter(lambda: opened[0].read(1 << 16), b"")) == TEXT


def test_a_second_stream_starts_again_after_a_partial_read(tmp_path, inflater):
    # a reader that gives up after its first block (the fast reader on an irregular file)
    # opens the stream again: the inflater's thread must stop reading the file first
    packed = gzip.compress(TEXT)
    (tmp_path / "run.gz").write_bytes(packed)
    with streams.Source(tmp_path / "run.gz") as source:
        assert source.stream().read(1000) == TEXT[:1000]
        assert source.read() == TEXT
        assert source.record()["sha256"] == hashlib.sha256(packed).hexdigest()


def test_a_memory_budget_makes_the_inflaters_blocks_its_reads(tmp_path, monkeypatch):
    # the inflater holds a few of its blocks ahead of the reader: under --memory, whose
    # reads are smaller, its blocks are the reads' size, not its own 4 MiB
    pytest.importorskip("isal")
    from trecbench import evaluate, memory

    blocks = []

    def recorded(raw, block=None):
        stream, errors = read_ahead.threaded_gzip(raw, block)
        blocks.append(stream.block)
        return stream, errors

    monkeypatch.setattr(streams, "threaded_gzip", recorded)
    (tmp_path / "run.gz").write_bytes(gzip.compress(TEXT))
    (tmp_path / "q.qrels").write_text("1 0 doc1 1\n")
    with streams.Source(tmp_path / "run.gz") as source:
        source.stream()
        assert source._inflater.block == read_ahead.INFLATE_BLOCK
        source.stream(block=1 << 20)
        assert source._inflater.block == 1 << 20
    blocks.clear()
    evaluate(tmp_path / "q.qrels", [tmp_path / "run.gz"], ["P.5"], memory=64)
    # (read twice: its topics are scattered, 1 2 ... 96 1 2 ..., so read again in order)
    assert blocks and set(blocks) == {memory.FEWEST_READ_BYTES}
    blocks.clear()
    evaluate(tmp_path / "q.qrels", [tmp_path / "run.gz"], ["P.5"])
    assert blocks and set(blocks) == {read_ahead.INFLATE_BLOCK}
