"""Sums of values with small whole-number coefficients (bootstrap counts, sign flips) that
are the same bits whatever the BLAS library, its CPU kernel or its number of threads.

A BLAS matrix product adds in an order that depends on all three (OpenBLAS with one and
with two threads differs in the last bits), so a seeded bootstrap computed as
``counts @ values`` could print another 16th digit under another ``OPENBLAS_NUM_THREADS``,
on another machine, or from the Python API rather than the CLI. Sums of whole numbers
below ``2**53`` are exact in float64 in every order, so the values are cut into whole
numbers first (:func:`split`):

* each column is scaled by a power of two (exact) so that its largest ``|value|`` is
  below ``2**bits``, then cut into ``count`` pieces, each the next ``bits`` bits as a whole
  number (``|piece| < 2**bits``): ``value = 2**exponent * (p_1 + p_2 2**-bits + ... +
  p_count 2**-(count-1)bits + r)``, ``|r| < 2**-(count-1)bits``;
* with ``bound`` at least the sum of ``|coefficient|`` of any row, ``bits`` is chosen so
  that ``bound * 2**bits <= 2**52``: every partial sum of ``coefficients @ piece`` is then
  a whole number below ``2**53``, which BLAS adds exactly in whatever order it takes (one
  BLAS product of all pieces side by side: BLAS's speed is kept, at ``count`` times the
  work of one product; ``count`` is 2 for ``bound`` below 2**19);
* :func:`sums` adds the pieces' sums in one fixed order (smallest first) and scales back.

The result is the exact sum of the values each cut at ``2**-GUARD_BITS`` of its column's
largest ``|value|`` (float64 itself rounds that value at ``2**-53`` of it), rounded
``count - 1`` times: more accurate than a BLAS product, which rounds at every addition,
and the same bits everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# what a value may lose, relative to its column's largest |value| (float64 rounds at 2**-53)
GUARD_BITS = 64
MIN_PIECE_BITS = 16  # a bound of 2**36 rows would need more pieces than it is worth


@dataclass(frozen=True)
class Split:
    """Columns of values cut into whole-number pieces (see the module's docstring):
    ``pieces`` is ``rows x (count * columns)``, piece ``i`` of column ``c`` in column
    ``i * columns + c``; a value is ``2**exponents[c]`` times its pieces' sum, piece ``i``
    weighing ``2**(-i * bits)``."""

    pieces: np.ndarray
    exponents: np.ndarray
    bits: int
    count: int


def split(values: np.ndarray, bound: int) -> Split:
    """``values`` (rows x columns, finite) cut into whole-number pieces for sums with
    coefficients whose ``|coefficient|`` add up to at most ``bound`` in every row."""
    matrix = np.asarray(values, dtype=np.float64)
    bound_bits = int(bound).bit_length()
    bits = 52 - bound_bits
    if bits < MIN_PIECE_BITS:
        raise ValueError(f"exact sums of at most {bound:,} terms are not supported")
    count = -(-(GUARD_BITS + 1) // bits)  # the cut: 2**(top - count * bits)
    _, top = np.frexp(np.abs(matrix).max(axis=0))  # every |value| of a column < 2**top
    rest = np.ldexp(matrix, bits - top)
    pieces = []
    for _ in range(count):
        whole = np.trunc(rest)
        pieces.append(whole + 0.0)  # + 0.0: no -0.0, whose sums' sign BLASes differ on
        rest = np.ldexp(rest - whole, bits)  # the fraction (exact), the next bits up front
    return Split(np.hstack(pieces), top - bits, bits, count)


def sums(parts: Split, coefficients: np.ndarray) -> np.ndarray:
    """``coefficients @ values`` (coefficients: whole numbers, ``rows`` columns) for the
    values :func:`split` cut into ``parts``: the same bits on every machine."""
    columns = len(parts.exponents)
    piece_sums = np.asarray(coefficients, dtype=np.float64) @ parts.pieces  # exact
    total = piece_sums[:, (parts.count - 1) * columns :]
    for i in range(parts.count - 2, -1, -1):
        total = piece_sums[:, i * columns : (i + 1) * columns] + np.ldexp(total, -parts.bits)
    return np.ldexp(total, parts.exponents) + 0.0
