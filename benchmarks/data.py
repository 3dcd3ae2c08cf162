"""Seeded MS MARCO-scale benchmark data: a run and its qrels.

The run lists ``depth`` documents for each of ``n_queries`` topics, in rank order, with
scores rounded to 4 decimals (so exact ties occur at a realistic rate and trec_eval's
docno tie-break matters) and docnos drawn like MS MARCO passage ids (integers below 8.8M,
unique within a topic). The qrels judge a few documents per topic with grades 0-3: most are
retrieved (at ranks skewed towards the top, so every measure has something to count),
some are not. Everything is a pure function of the parameters and the seed. ``scattered``
runs list each chunk of topics in random line order (topics in many stretches).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trecbench import files
from trecbench.outputs import OutputSet

SLOT = 8_800  # docno = slot * SLOT + offset keeps docnos unique within a topic


def _text(values: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(values), pa.string())


# topics generated at a time: the data is written chunk by chunk (a 100M-line run does
# not fit in memory as numpy arrays); part of the seeded stream, so it is fixed
TOPICS_PER_CHUNK = 10_000


def generate(
    run_paths: list[Path],
    qrels_path: Path,
    n_queries: int,
    depth: int,
    seed: int,
    scattered: bool = False,
    long_docno: int = 0,
) -> None:
    """Write runs of ``n_queries * depth`` lines and their qrels (space-separated, like most
    published runs), ``TOPICS_PER_CHUNK`` topics at a time. Every run retrieves the same
    documents per topic (a system each: the first run is seed ``seed``'s ranking, the
    others reorder it). ``scattered``: each chunk's lines in random order (every topic in
    many stretches, as after a careless merge). With ``long_docno``, one docno of the first
    chunk is that many bytes long (a hostile input that once made scoring 100 times
    slower)."""
    rng = np.random.default_rng(seed)
    systems = [np.random.default_rng([seed, system]) for system in range(len(run_paths))]
    with OutputSet() as out:
        run_files = [out.open(path) for path in run_paths]
        qrels_file = out.open(qrels_path)
        for first in range(0, n_queries, TOPICS_PER_CHUNK):
            topics = np.arange(first, min(n_queries, first + TOPICS_PER_CHUNK), dtype=np.int64)
            docnos, scores, qrels_lines = _topics(rng, topics, depth)
            qrels_file.write(qrels_lines)
            for system, (run_file, system_rng) in enumerate(zip(run_files, systems, strict=True)):
                ranked = docnos
                if system:  # another system: the same documents, ranked otherwise
                    ranked = np.take_along_axis(docnos, system_rng.permuted(
                        np.tile(np.arange(depth), (len(topics), 1)), axis=1), axis=1)  # fmt: skip
                tag = "bench" if len(run_paths) == 1 else f"system{system}"
                long = long_docno if first == 0 else 0  # one long docno in the whole run
                lines = _run_lines(system_rng, topics, ranked, scores, tag, scattered, long)
                run_file.write(lines)


def _topics(rng, topics: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, bytes]:
    """Documents (a row per topic, in rank order), scores and the qrels lines of topics."""
    n_queries = len(topics)
    # a random slot permutation per topic keeps docnos unique and unrelated to rank
    slots = rng.permuted(np.tile(np.arange(depth, dtype=np.int64), (n_queries, 1)), axis=1)
    docnos = slots * SLOT + rng.integers(0, SLOT, size=(n_queries, depth))
    scores = np.round(np.sort(rng.random((n_queries, depth)), axis=1)[:, ::-1] * 30, 4)

    # qrels: up to 3 judged retrieved docs (ranks skewed to the top) + 1 unretrieved doc
    picks = (depth * rng.random((n_queries, 3)) ** 3).astype(np.int64)
    local = np.repeat(np.arange(n_queries), 3)
    keys = np.unique(local * depth + picks.ravel())
    judged_topic, judged_rank = keys // depth, keys % depth
    judged_docno = docnos.ravel()[judged_topic * depth + judged_rank]
    extra_docno = depth * SLOT + rng.integers(0, SLOT, size=n_queries)  # never retrieved
    q = topics[np.concatenate([judged_topic, np.arange(n_queries)])]
    d = np.concatenate([judged_docno, extra_docno])
    grades = rng.choice([0, 1, 2, 3], size=len(q), p=[0.3, 0.4, 0.2, 0.1])
    order = np.lexsort((d, q))
    qrels_columns = {
        "qid": _text(q[order]),
        "iter": pa.array(np.full(len(q), "0", dtype=object), pa.string()),
        "docno": _text(d[order]),
        "rel": _text(grades[order]),
    }
    return docnos, scores, files.text_lines(qrels_columns, " ")


def _run_lines(rng, topics, docnos, scores, tag: str, scattered: bool, long_docno=0) -> bytes:
    """The run lines of topics (``docnos``/``scores``: a row per topic, in rank order)."""
    n_queries, depth = docnos.shape
    n = n_queries * depth
    docno_text = _text(docnos.ravel())
    if long_docno:
        middle = n // 2
        docno_text = pa.concat_arrays(
            [docno_text[:middle], pa.array(["x" * long_docno]), docno_text[middle + 1 :]]
        )
    run_columns = {
        "qid": _text(np.repeat(topics, depth)),
        "iter": pa.array(np.full(n, "Q0", dtype=object), pa.string()),
        "docno": docno_text,
        "rank": _text(np.tile(np.arange(1, depth + 1, dtype=np.int64), n_queries)),
        "score": files.format_scores(scores.ravel()),
        "tag": pa.array(np.full(n, tag, dtype=object), pa.string()),
    }
    if scattered:
        shuffle = pa.array(rng.permutation(n))
        run_columns = {name: column.take(shuffle) for name, column in run_columns.items()}
    return files.text_lines(run_columns, " ")


def ensure(
    folder: Path,
    n_queries: int,
    depth: int,
    seed: int,
    scattered: bool = False,
    long_docno: int = 0,
) -> tuple[Path, Path]:
    """The (run, qrels) paths for these parameters, generated on first use."""
    runs, qrels = ensure_systems(folder, n_queries, depth, seed, 1, scattered, long_docno)
    return runs[0], qrels


def ensure_systems(
    folder: Path,
    n_queries: int,
    depth: int,
    seed: int,
    systems: int,
    scattered: bool = False,
    long_docno: int = 0,
) -> tuple[list[Path], Path]:
    """The paths of ``systems`` runs of the same documents and their qrels, generated on
    first use."""
    stem = f"q{n_queries}-d{depth}-s{seed}" + ("-scattered" if scattered else "")
    stem += f"-long{long_docno}" if long_docno else ""
    if systems == 1:
        runs = [folder / f"{stem}.run"]
    else:
        folder = folder / f"{stem}-{systems}-systems"
        runs = [folder / f"system{i:02d}.run" for i in range(systems)]
    qrels = folder / f"{stem}.qrels"
    if not (all(run.exists() for run in runs) and qrels.exists()):
        generate(runs, qrels, n_queries, depth, seed, scattered, long_docno)
    return runs, qrels


def ensure_gzip(run: Path) -> Path:
    """``run`` gzipped beside it (level 6, gzip's default; no timestamp: reproducible)."""
    packed = run.with_name(run.name + ".gz")
    if not packed.exists():
        import gzip
        import shutil

        with OutputSet() as out, run.open("rb") as source:  # nothing left behind on failure
            with gzip.GzipFile(packed.name, "wb", 6, out.open(packed), mtime=0) as target:
                shutil.copyfileobj(source, target, 8 << 20)
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
