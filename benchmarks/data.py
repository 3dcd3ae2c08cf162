"""Seeded MS MARCO-scale benchmark data: a run and its qrels.

The run lists ``depth`` documents for each of ``n_queries`` topics, in rank order, with
scores rounded to 4 decimals (so exact ties occur at a realistic rate and trec_eval's
docno tie-break matters) and docnos drawn like MS MARCO passage ids (integers below 8.8M,
unique within a topic). The qrels judge a few documents per topic with grades 0-3: most are
retrieved (at ranks skewed towards the top, so every measure has something to count),
some are not. Everything is a pure function of the parameters and the seed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trecbench import files
from trecbench.outputs import write_file

SLOT = 8_800  # docno = slot * SLOT + offset keeps docnos unique within a topic


def _text(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(values), pa.string())


def generate(
    run_path: Path,
    qrels_path: Path,
    n_queries: int,
    depth: int,
    seed: int,
    tag: str = "bench",
    long_docno: int = 0,
) -> None:
    """Write a run of ``n_queries * depth`` lines and its qrels (space-separated, like
    most published runs); with ``long_docno``, one docno in the middle of the run is that
    many bytes long (a hostile input that once made scoring 100 times slower)."""
    rng = np.random.default_rng(seed)
    n = n_queries * depth
    qids = np.repeat(np.arange(n_queries, dtype=np.int64), depth)
    # a random slot permutation per topic keeps docnos unique and unrelated to rank
    slots = rng.permuted(np.tile(np.arange(depth, dtype=np.int64), (n_queries, 1)), axis=1)
    docnos = (slots * SLOT + rng.integers(0, SLOT, size=(n_queries, depth))).ravel()
    scores = np.round(np.sort(rng.random((n_queries, depth)), axis=1)[:, ::-1] * 30, 4).ravel()
    ranks = np.tile(np.arange(1, depth + 1, dtype=np.int64), n_queries)
    docno_text = _text(docnos)
    if long_docno:
        middle = n // 2
        docno_text = pa.concat_arrays(
            [docno_text[:middle], pa.array(["x" * long_docno]), docno_text[middle + 1 :]]
        )
    run_columns = [
        _text(qids),
        pa.array(np.full(n, "Q0", dtype=object), pa.string()),
        docno_text,
        _text(ranks),
        files.format_scores(scores),
        pa.array(np.full(n, tag, dtype=object), pa.string()),
    ]
    write_file(run_path, files._text_lines(run_columns, " "))

    # qrels: up to 3 judged retrieved docs (ranks skewed to the top) + 1 unretrieved doc
    picks = (depth * rng.random((n_queries, 3)) ** 3).astype(np.int64)
    topic = np.repeat(np.arange(n_queries), 3)
    keys = np.unique(topic * depth + picks.ravel())
    judged_topic, judged_rank = keys // depth, keys % depth
    judged_docno = docnos[judged_topic * depth + judged_rank]
    extra_docno = depth * SLOT + rng.integers(0, SLOT, size=n_queries)  # never retrieved
    q = np.concatenate([judged_topic, np.arange(n_queries)])
    d = np.concatenate([judged_docno, extra_docno])
    grades = rng.choice([0, 1, 2, 3], size=len(q), p=[0.3, 0.4, 0.2, 0.1])
    order = np.lexsort((d, q))
    qrels_columns = [
        _text(q[order]),
        pa.array(np.full(len(q), "0", dtype=object), pa.string()),
        _text(d[order]),
        _text(grades[order]),
    ]
    write_file(qrels_path, files._text_lines(qrels_columns, " "))


def ensure(
    folder: Path, n_queries: int, depth: int, seed: int, long_docno: int = 0
) -> tuple[Path, Path]:
    """The (run, qrels) paths for these parameters, generated on first use."""
    stem = f"q{n_queries}-d{depth}-s{seed}" + (f"-long{long_docno}" if long_docno else "")
    run, qrels = folder / f"{stem}.run", folder / f"{stem}.qrels"
    if not (run.exists() and qrels.exists()):
        generate(run, qrels, n_queries, depth, seed, long_docno=long_docno)
    return run, qrels


def ensure_gzip(run: Path) -> Path:
    """``run`` gzipped beside it (level 6, gzip's default; no timestamp: reproducible)."""
    packed = run.with_name(run.name + ".gz")
    if not packed.exists():
        import gzip
        import shutil

        partial = packed.with_name(packed.name + ".partial")
        with run.open("rb") as source, gzip.GzipFile(partial, "wb", 6, mtime=0) as target:
            shutil.copyfileobj(source, target, 8 << 20)
        partial.replace(packed)
    return packed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for path in ensure(args.folder, args.queries, args.depth, args.seed):
        print(path)


if __name__ == "__main__":
    main()
