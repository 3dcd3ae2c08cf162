"""numpy <-> Arrow conversions that do not import pandas.

pyarrow imports pandas (~0.16 s) the first time it converts Python or numpy objects
(``pa.array``, ``pa.scalar``, a Python scalar given to a compute function) or converts an
array back to numpy (``Array.to_numpy``, ``np.asarray(array)``): it probes for pandas
objects. ``trecbench score`` and ``validate`` never need pandas, so their hot paths build
arrays straight from numpy buffers here instead. Anything these helpers do not cover falls
back to pyarrow's own conversion (same result, pandas probe included).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from . import arrow_compute as pc


def _bits(mask: np.ndarray) -> pa.Buffer:
    # Arrow bitmaps are LSB-first
    return pa.py_buffer(np.packbits(mask, bitorder="little"))


def _strings(values: list[str], type: pa.DataType) -> pa.Array:
    data = [value.encode() for value in values]
    wide = pa.types.is_large_string(type)
    offsets = np.zeros(len(data) + 1, np.int64 if wide else np.int32)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    return pa.Array.from_buffers(
        type, len(data), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    )


def array(values, type: pa.DataType | None = None, mask: np.ndarray | None = None) -> pa.Array:
    """``pa.array(values, type, mask=mask)`` for a numeric or boolean numpy array (zero-copy)
    or a list of ``str`` (string types).

    Other inputs go through ``pa.array``.
    """
    if isinstance(values, list) and not values and type is not None:
        return pa.nulls(0, type)
    text = type is None or pa.types.is_string(type) or pa.types.is_large_string(type)
    if (
        isinstance(values, list)
        and mask is None
        and text
        and all(isinstance(v, str) for v in values)
    ):
        return _strings(values, type or pa.string())
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "biuf":
        return pa.array(values, type, mask=mask)
    if values.dtype.kind == "b":
        kind, data = pa.bool_(), _bits(values)
    else:
        values = np.ascontiguousarray(values)
        kind, data = pa.from_numpy_dtype(values.dtype), pa.py_buffer(values)
    validity = None if mask is None else _bits(~np.asarray(mask, bool))
    nulls = 0 if mask is None else int(np.count_nonzero(mask))
    out = pa.Array.from_buffers(kind, len(values), [validity, data], null_count=nulls)
    return out if type is None or type == kind else pc.cast(out, type)


def scalar(value, type: pa.DataType | None = None) -> pa.Scalar:
    """``pa.scalar(value, type)`` for None, a string, a number or a bool."""
    if type is None:
        type = pa.string() if isinstance(value, str) else pa.from_numpy_dtype(np.array(value).dtype)
    if value is None:
        return pa.nulls(1, type)[0]
    if pa.types.is_string(type) or pa.types.is_large_string(type):
        data = value.encode()
        offsets = np.array([0, len(data)], np.int64 if pa.types.is_large_string(type) else np.int32)
        return pa.Array.from_buffers(type, 1, [None, pa.py_buffer(offsets), pa.py_buffer(data)])[0]
    return array(np.array([value], type.to_pandas_dtype()))[0]


def to_numpy(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``values.to_numpy(zero_copy_only=False)`` for numeric and boolean arrays.

    Numeric arrays with nulls come back as float64 with NaN, like pyarrow's; strings as an
    object array of ``str``/None.
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    kind, n, offset = values.type, len(values), values.offset
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return np.array(values.to_pylist(), dtype=object)
    if pa.types.is_boolean(kind):
        if values.null_count:
            return np.array(values.to_pylist(), dtype=object)
        if n == 0:
            return np.empty(0, bool)
        bits = np.frombuffer(values.buffers()[1], np.uint8)
        return np.unpackbits(bits, count=offset + n, bitorder="little")[offset:].view(bool)
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return values.to_numpy(zero_copy_only=False)
    dtype = np.dtype(kind.to_pandas_dtype())
    if n == 0:
        return np.empty(0, np.float64 if values.null_count else dtype)
    data = np.frombuffer(values.buffers()[1], dtype, count=n, offset=offset * dtype.itemsize)
    if not values.null_count:
        return data
    out = data.astype(np.float64)
    out[to_numpy(pc.is_null(values))] = np.nan
    return out


def row_keys(*columns: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """One integer per row, equal for two rows exactly when every column is: the key of a
    tuple of ids whatever characters they hold (text joined with a separator would need a
    character no id holds, and an id from a DataFrame may hold any)."""
    keys = None
    for index, column in enumerate(columns):
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        encoded = pc.dictionary_encode(column)
        codes = to_numpy(encoded.indices).astype(np.int64)
        if index > 1:  # keys of several columns renumbered densely: products stay in int64
            _, keys = np.unique(keys, return_inverse=True)  # (one column's codes are dense)
        if keys is not None:
            codes += keys.astype(np.int64) * len(encoded.dictionary)
        keys = codes
    return keys if keys is not None else np.empty(0, np.int64)


class Groups:
    """Rows grouped by equal ``keys``, for numpy reductions per group.

    ``Table.group_by`` would do, but it loads ``pyarrow.dataset``, which imports pandas.
    Groups come in order of first appearance; ``keys`` holds each group's key, ``codes``
    each row's group.
    """

    def __init__(self, keys: pa.Array | pa.ChunkedArray | np.ndarray):
        if isinstance(keys, np.ndarray):
            keys = array(keys)
        if isinstance(keys, pa.ChunkedArray):
            keys = keys.combine_chunks()
        encoded = pc.dictionary_encode(keys)
        self.keys: pa.Array = encoded.dictionary
        self.codes = codes = to_numpy(encoded.indices)
        self.order = np.argsort(codes, kind="stable")
        grouped = codes[self.order]
        self.starts = np.flatnonzero(np.diff(grouped, prepend=-1)) if len(codes) else grouped
        self.first = self.order[self.starts]  # each group's first row
        self.counts = np.diff(np.append(self.starts, len(codes)))

    def reduce(self, ufunc: np.ufunc, values: pa.Array | pa.ChunkedArray | np.ndarray):
        """``ufunc`` (np.maximum, np.minimum, np.add) over each group's ``values``."""
        data = values if isinstance(values, np.ndarray) else to_numpy(values)
        if not len(self.starts):
            return data[:0]
        return ufunc.reduceat(data[self.order], self.starts)


def stretches(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Where each stretch of equal values starts (row numbers) and its value, found by
    comparing neighbours: no hashing (a run lists each topic's lines together, so a 10^7
    line qid column has a few thousand stretches)."""
    chunks = [values] if isinstance(values, pa.Array) else values.chunks
    starts: list[np.ndarray] = []
    firsts: list[pa.Array] = []
    done, last = 0, None
    for chunk in chunks:
        if not len(chunk):
            continue
        changes = to_numpy(pc.not_equal(chunk.slice(1), chunk.slice(0, len(chunk) - 1)))
        local = np.flatnonzero(changes) + 1
        if last is None or chunk[0].as_py() != last:
            local = np.concatenate(([0], local))
        starts.append(local + done)
        firsts.append(pc.take(chunk, array(local)))
        done, last = done + len(chunk), chunk[len(chunk) - 1].as_py()
    if not starts:
        return np.empty(0, np.int64), array([], values.type)
    return np.concatenate(starts).astype(np.int64), pa.concat_arrays(firsts)


def distinct(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The distinct values (in no particular order), hashing only the first of each
    stretch of equal values (see :func:`stretches`)."""
    if pa.types.is_dictionary(values.type):
        unique = pc.unique(values)
        return unique.dictionary_decode() if hasattr(unique, "dictionary_decode") else unique
    return pc.unique(stretches(values)[1])


def decoded(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary-encoded columns decoded (engines get plain strings)."""
    for index, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(
                index, field.name, pc.cast(table.column(index), field.type.value_type)
            )
    return table


# the bytes of ids no escaping touches and any TREC line holds (trecbench.ids, files):
# printable ASCII but '%' and '#'
PLAIN_ID_BYTES = np.zeros(256, dtype=bool)
PLAIN_ID_BYTES[0x21:0x7F] = True
PLAIN_ID_BYTES[[ord("%"), ord("#")]] = False


def plain_ids(values: pa.Array | pa.ChunkedArray, nonempty: bool = False) -> bool:
    """Whether every byte the strings of ``values`` span is of :data:`PLAIN_ID_BYTES` (and,
    if ``nonempty``, no slot is empty): none needs escaping, and a TREC line holds each,
    told from the buffers in one pass (string kernels take ten times longer). False for
    anything else, which the callers decide string by string."""
    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    for chunk in chunks:
        if not len(chunk):
            continue
        if chunk.type not in (pa.string(), pa.large_string()):
            return False
        _, offsets, data = chunk.buffers()
        width = np.int64 if chunk.type == pa.large_string() else np.int32
        ends = np.frombuffer(offsets, dtype=width)[chunk.offset : chunk.offset + len(chunk) + 1]
        if nonempty and not (ends[1:] > ends[:-1]).all():
            return False
        if ends[-1] == ends[0]:
            continue
        if (
            data is None
            or not PLAIN_ID_BYTES[np.frombuffer(data, np.uint8)[ends[0] : ends[-1]]].all()
        ):
            return False
    return True
