"""The compressions trecbench reads, in one registry: each one's magic bytes (how a file
is told: by its content, :mod:`trecbench.inputs.streams`) and the suffixes its files are
named with (what a run's name drops: :mod:`trecbench.naming`). No import: a name is
derived before anything is read."""

from __future__ import annotations

from typing import NamedTuple


class Compression(NamedTuple):
    """``name`` (Arrow's codec name; xz is read by :mod:`lzma`), the ``magic`` bytes a
    file so compressed starts with, and the ``suffixes`` such files are named with."""

    name: str
    magic: bytes
    suffixes: tuple[str, ...]


COMPRESSIONS = (
    Compression("gzip", b"\x1f\x8b", (".gz",)),
    Compression("bz2", b"BZh", (".bz2",)),
    Compression("zstd", b"\x28\xb5\x2f\xfd", (".zst", ".zstd")),
    Compression("lz4", b"\x04\x22\x4d\x18", (".lz4",)),
    Compression("xz", b"\xfd7zXZ\x00", (".xz",)),
)
SUFFIXES = tuple(suffix for compression in COMPRESSIONS for suffix in compression.suffixes)


def without_suffixes(name: str) -> str:
    """``name`` without the compression suffixes it ends with (``run.trec.zstd`` ->
    ``run.trec``), as given: the caller decides on case."""
    for suffix in SUFFIXES:
        name = name.removesuffix(suffix)
    return name
