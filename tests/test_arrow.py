"""trecbench.arrow builds the same arrays as pyarrow, and score/validate never import pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from trecbench import arrow

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 0\n2 0 d4 1\n"
RUN = "".join(
    f"{q} Q0 d{d} {r} {s} tag\n"
    for q, rows in (("1", [(3, 2.5), (1, 2.5), (2, 1.0)]), ("2", [(4, 0.5), (9, 0.25)]))
    for r, (d, s) in enumerate(rows, 1)
)


@pytest.mark.parametrize(
    ("values", "kind", "mask"),
    [
        (np.arange(10)[::3], None, None),
        (np.arange(5, dtype=np.int32), pa.int64(), np.array([0, 1, 0, 0, 1], bool)),
        (np.linspace(0, 1, 7), None, None),
        (np.array([True, False, True] * 4), None, None),
        (["q1", "é", ""], None, None),
        (["x"], pa.large_string(), None),
        ([], pa.string(), None),
    ],
)
def test_array_matches_pyarrow(values, kind, mask):
    assert arrow.array(values, kind, mask=mask).equals(pa.array(values, kind, mask=mask))


@pytest.mark.parametrize(
    "values",
    [
        pa.array([1, None, 3]),
        pa.array([1.5, -2.0]),
        pa.array([True, False] * 6).slice(3, 7),
        pa.array([1, 2, 3, 4], pa.int32()).slice(1, 2),
        pa.array(["a", None]),
        pa.array([True, None]),
        pa.array([], pa.int64()),
        pa.chunked_array([[1, 2], [3]]),
    ],
)
def test_to_numpy_matches_pyarrow(values):
    got, expected = arrow.to_numpy(values), values.to_numpy(zero_copy_only=False)
    assert got.dtype == expected.dtype
    assert got.tolist() == pytest.approx(expected.tolist(), nan_ok=True)


@pytest.mark.parametrize(
    ("value", "kind"),
    [(None, pa.string()), ("Q0", pa.string()), ("\t", pa.large_string()), (-1, pa.int32())],
)
def test_scalar_matches_pyarrow(value, kind):
    assert arrow.scalar(value, kind).equals(pa.scalar(value, kind))


def test_groups_reduce_like_group_by():
    keys = pa.chunked_array([["b", "a", "b"], ["c", "a"]])
    values = np.array([5, 1, 7, 2, 0])
    groups = arrow.Groups(keys)
    expected = pa.table({"k": keys, "v": values}).group_by("k").aggregate([("v", "max")])
    assert groups.keys.to_pylist() == ["b", "a", "c"]  # first appearance
    got = dict(zip(groups.keys.to_pylist(), groups.reduce(np.maximum, values), strict=True))
    want = zip(expected.column("k").to_pylist(), expected.column("v_max").to_pylist(), strict=True)
    assert got == dict(want)
    assert groups.first.tolist() == [0, 1, 3]
    assert groups.counts.tolist() == [2, 2, 1]


def _imports_pandas(tmp_path, code: str) -> bool:
    """Run ``code`` (qrels/run paths as ``QRELS``/``RUN``) in a fresh interpreter; did it
    import pandas by the time it exited?"""
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('pandas' in sys.modules, file=sys.stderr))\n"
        f"QRELS, RUN = {str(tmp_path / 'q.txt')!r}, {str(tmp_path / 'r.txt')!r}\n" + code
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stderr.splitlines()[-1] in ("True", "False"), done.stderr
    return done.stderr.splitlines()[-1] == "True"


CLI = "from trecbench.cli import main\nsys.argv = ['trecbench', *{args}]\nmain()\n"


@pytest.mark.parametrize(
    "args",
    [
        "['score', QRELS, RUN, '--format', 'trec']",
        "['score', QRELS, RUN]",
        "['score', '-q', '-c', QRELS, RUN, '--format', 'trec']",
        "['validate', RUN]",
        "['validate', '--qrels', QRELS]",
        "['validate', '--qrels', QRELS, RUN]",
    ],
)
def test_score_and_validate_do_not_import_pandas(tmp_path, args):
    assert not _imports_pandas(tmp_path, CLI.format(args=args))


def test_the_probe_sees_pandas(tmp_path):
    # the DataFrames of the Python API do need pandas: the probe above must notice it
    code = "import trecbench\ntrecbench.evaluate(QRELS, RUN).per_query\n"
    assert _imports_pandas(tmp_path, code)
