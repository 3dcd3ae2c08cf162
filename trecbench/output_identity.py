"""Whether two outputs of one call are one file: by their paths resolved, or as two names
of one existing file (a hard link), or one a folder the other goes into
(:mod:`trecbench.outputs` refuses them, naming each as the caller knows it)."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Sequence
from pathlib import Path

from .errors import Setting, UsageError

PathLike = str | os.PathLike  # as trecbench.outputs names a path


def collision(path: PathLike, other: PathLike) -> str | None:
    """How the output ``path`` collides with the output ``other``: ``"same"`` (one file),
    ``"holds"`` (``path`` is the folder, or a folder above it, ``other`` goes into), or None."""
    path, other = Path(path), Path(other)
    if same_target(path, other):
        return "same"
    return "holds" if inside(other, path) else None


def written_twice(path: PathLike, first: str | Setting, second: str | Setting) -> UsageError:
    """The refusal of two outputs of one call that are the one file ``path``, each named
    as the caller knows it (a setting, or words: ``compare's LaTeX table``)."""
    return UsageError(f"{path}: written twice by one command, as ", first, " and as ", second)


def refuse_one_file_twice(named: Sequence[tuple[str | Setting, PathLike]]) -> None:
    """Refuse two of the ``(what, path)`` outputs of one call that are one file, naming
    both as :func:`written_twice` does."""
    for (first, path), (second, other) in itertools.combinations(named, 2):
        if collision(path, other) == "same":
            error = written_twice(path, first, second)
            if _linked(path, other) and not _same_text(path, other):  # a hard link's name
                error = UsageError(*error.parts, f" ({other}: the same file)")
            raise error


def inside(target: Path, root: Path) -> bool:
    try:
        target.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def same_target(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError, RuntimeError):
        # or two names of one file (a hard link), which the commit split into two
        return a.resolve() == b.resolve() or _linked(a, b)
    return a == b


def _same_text(a: PathLike, b: PathLike) -> bool:
    """Whether ``a`` and ``b`` name one path by their text (``./a`` and ``a`` do)."""
    return os.path.normpath(a) == os.path.normpath(b)


def _linked(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one existing file (two names of it)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # either missing: no file they could both be
        return False
