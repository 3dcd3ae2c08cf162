"""Seeded random qrels/run pairs that stress trec_eval 9.0.8's corner cases.

``random_case(seed)`` returns ``(qrels_text, run_text)``: a few topics with up to ~50
documents each, mixing exact score ties, ties that exist only at float32 precision,
docnos whose byte order differs from their natural order, graded and negative labels,
topics present on one side only, topics without a relevant document, shuffled run lines
and rank columns that disagree with the scores. The output is a pure function of the
arguments (numpy ``Generator`` seeded with ``seed``), so differential tests can
regenerate any failing case from its seed.

Every case is valid input for trec_eval: no duplicate docno within a run topic, no
duplicate (qid, docno) in the qrels, at least one topic on both sides, and no evaluated
topic whose labels are all below -1 (trec_eval 9.0.8 crashes on such a topic; see
``_labels``).
"""

from __future__ import annotations

import numpy as np

# Qids whose byte order differs from numeric order, look numeric to pandas, or differ
# only in case or separators.
QIDS = ["1", "2", "9", "10", "01", "007", "q-3", "Q_3", "NA", "1e5", "T.4", "301"]

# Docnos pandas would turn into numbers, NaN or booleans if it were allowed to infer types.
SPECIAL_DOCNOS = ["1e5", "NA", "nan", "null", "None", "TRUE", "0042", "42", "-1", "+1", "1.0"]

SCORE_STYLES = ("distinct", "exact_ties", "float32_ties", "large", "negative")
LABEL_STYLES = ("binary", "graded", "negative", "nonrel", "rel1only")
RANK_STYLES = ("ordered", "reversed", "random", "zero", "file")


def _docno_pool(rng: np.random.Generator, size: int, style: str) -> list[str]:
    """Unique docnos; ``style`` "mixed" draws from every naming scheme at once."""
    numbers = rng.choice(np.arange(0, max(200, size * 2)), size=size * 2, replace=False)
    makers = {
        "plain": lambda i: f"D{i}",  # D9 sorts after D10 byte-wise
        "lower": lambda i: f"d{i}",  # differs from D{i} only in case
        "dash": lambda i: f"doc-{i}",
        "underscore": lambda i: f"doc_{i}",  # '_' (0x5f) sorts after '-' (0x2d) and digits
        "padded": lambda i: f"{i:03d}",  # 001 next to 1
        "bare": lambda i: f"{i}",
    }
    if style == "mixed":
        names = [makers[rng.choice(list(makers))](int(i)) for i in numbers]
        names += list(rng.choice(SPECIAL_DOCNOS, size=int(rng.integers(0, 6)), replace=False))
    else:
        names = [makers[style](int(i)) for i in numbers]
    unique = list(dict.fromkeys(names))
    rng.shuffle(unique)
    return unique[:size]


def _scores(rng: np.random.Generator, n: int, style: str) -> list[float]:
    """Scores as float64 values; several styles collide once rounded to float32."""
    if style == "exact_ties":
        values = rng.choice([0.0, -0.0, 0.5, 1.0, 2.0, 3.0], size=n)
    elif style == "float32_ties":
        # Distinct as float64, equal (or rounded half-to-even) as float32.
        base = rng.choice([0.1, 1 / 3, 0.7, 12345.678, 1.0], size=n)
        nudge = rng.choice([0.0, 1e-9, -1e-9, 2e-8, 2.0**-24, 3 * 2.0**-24], size=n)
        values = base + nudge
    elif style == "large":
        # float32 spacing at 1e7 is 1.0, so these tie in trec_eval 9.x.
        values = 1e7 + rng.integers(0, 4, size=n) * 0.1 + rng.integers(0, 2, size=n)
    elif style == "negative":
        values = -rng.exponential(5.0, size=n).round(int(rng.integers(1, 4)))
    else:
        values = rng.normal(10.0, 3.0, size=n)
    return [float(v) for v in values]


def _labels(rng: np.random.Generator, n: int, style: str) -> list[int]:
    """Relevance labels; every list contains a label >= -1.

    trec_eval 9.0.8 sizes an array by the topic's largest label + 1 and segfaults when
    every label of an evaluated topic is -2 or lower, so such topics are never made.
    """
    choices = {
        "binary": ([0, 1], [0.6, 0.4]),
        "graded": ([0, 1, 2, 3, 4], [0.4, 0.2, 0.2, 0.1, 0.1]),
        "negative": ([-2, -1, 0, 1, 2], [0.2, 0.2, 0.3, 0.2, 0.1]),
        "nonrel": ([-2, -1, 0], [0.2, 0.3, 0.5]),
        "rel1only": ([0, 1], [0.5, 0.5]),
    }
    values, weights = choices[style]
    labels = [int(v) for v in rng.choice(values, size=n, p=weights)]
    if max(labels) < -1:
        labels[0] = -1
    return labels


def _format_score(rng: np.random.Generator, value: float) -> str:
    # repr round-trips float64 exactly, so float32-only ties survive in the text.
    if rng.random() < 0.1:
        return f"{value:.6e}"
    return repr(value)


def _ranks(rng: np.random.Generator, by_score: np.ndarray, style: str) -> list[str]:
    """Rank column values in file order; trec_eval never reads them.

    ``by_score[j]`` is the score-order position of the j-th line: "ordered" agrees with
    the scores (up to ties), "file" numbers lines as written, the rest disagree.
    """
    n = len(by_score)
    if style == "ordered":
        return [str(int(p) + 1) for p in by_score]
    if style == "reversed":
        return [str(n - i) for i in range(n)]
    if style == "random":
        return [str(int(r)) for r in rng.permutation(n) + 1]
    if style == "zero":
        return ["0"] * n
    return [str(i + 1) for i in range(n)]


def random_case(
    seed: int,
    *,
    n_topics: int | None = None,
    max_docs: int = 50,
    score_style: str | None = None,
    label_style: str | None = None,
    docno_style: str = "mixed",
    rank_style: str | None = None,
    one_sided: bool = True,
    shuffle: bool | None = None,
) -> tuple[str, str]:
    """Return ``(qrels_text, run_text)`` for ``seed``.

    Leave a ``*_style`` as None to draw it per topic from the seed; fix it to stress one
    feature (e.g. ``score_style="float32_ties"``). ``one_sided`` adds topics that only
    the qrels or only the run contain. ``shuffle`` None lets the seed decide whether run
    lines are shuffled across the whole file (splitting topics into several blocks).
    """
    rng = np.random.default_rng(seed)
    if n_topics is None:
        n_topics = int(rng.integers(2, 6))
    extra = int(rng.integers(1, 3)) * 2 if one_sided else 0
    qids = [str(q) for q in rng.choice(QIDS, size=min(n_topics + extra, len(QIDS)), replace=False)]
    only = qids[n_topics:]  # the first n_topics appear in both files
    qrels_only, run_only = only[: len(only) // 2], only[len(only) // 2 :]
    tag = str(rng.choice(["STANDARD", "run-1", f"seed_{seed}", "Run.A"]))
    sep = str(rng.choice([" ", "\t"]))

    qrels_lines: list[str] = []
    run_lines: list[str] = []
    for qid in qids:
        size = int(rng.integers(3, max_docs + 1))
        pool = _docno_pool(rng, size + 10, docno_style)
        if qid not in run_only:
            # Judge part of what is retrieved plus a few documents that are not.
            judged = [d for d in pool if rng.random() < 0.6] or pool[:1]
            style = label_style or str(rng.choice(LABEL_STYLES))
            iteration = str(rng.choice(["0", "Q0", "1"]))
            for docno, label in zip(judged, _labels(rng, len(judged), style), strict=True):
                qrels_lines.append(sep.join([qid, iteration, docno, str(label)]))
        if qid not in qrels_only:
            retrieved = pool[:size]
            style = score_style or str(rng.choice(SCORE_STYLES))
            scores = _scores(rng, len(retrieved), style)
            score_order = np.argsort(-np.asarray(scores), kind="stable")
            position = np.empty(len(retrieved), dtype=np.int64)
            position[score_order] = np.arange(len(retrieved))
            order = score_order
            if rng.random() < 0.5:  # unsorted within the topic
                order = rng.permutation(len(retrieved))
            ranks = _ranks(rng, position[order], rank_style or str(rng.choice(RANK_STYLES)))
            for i, rank in zip(order, ranks, strict=True):
                fields = [qid, "Q0", retrieved[i], rank, _format_score(rng, scores[i]), tag]
                run_lines.append(sep.join(fields))
    if shuffle if shuffle is not None else rng.random() < 0.3:
        run_lines = [run_lines[i] for i in rng.permutation(len(run_lines))]
    if rng.random() < 0.5:
        qrels_lines = [qrels_lines[i] for i in rng.permutation(len(qrels_lines))]
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


# ---------------------------------------------------------------------------------------
# preference judgments, judgment groups and z-scores (trec_eval -R prefs/qrels_jg, -Z)


def _run_lines(rng: np.random.Generator, qid: str, docnos: list[str], tag: str) -> list[str]:
    """Run lines for ``docnos`` with some exact score ties, in a random line order."""
    scores = _scores(rng, len(docnos), str(rng.choice(["distinct", "exact_ties"])))
    order = rng.permutation(len(docnos))
    return [
        f"{qid} Q0 {docnos[i]} {rank} {_format_score(rng, scores[i])} {tag}"
        for rank, i in enumerate(order, start=1)
    ]


def _levels(rng: np.random.Generator, n: int, close: bool) -> list[float]:
    """Hidden preference levels of ``n`` documents (0 means non-relevant); ``close`` adds
    levels that differ only past float32 precision (one level in 9.x, two in 10.0)."""
    choices = [0.0, 0.0, 1.0, 2.0, 2.5, 4.0]
    if close:
        choices += [1.0 + 1e-9, 2.0 - 1e-10]
    return [float(v) for v in rng.choice(choices, size=n)]


def random_prefs_case(seed: int, *, close_levels: bool = False) -> tuple[str, str]:
    """``(prefs_text, run_text)`` for ``trec_eval -R prefs``: per topic one to three
    judgment groups (JG); a JG has one sub-group (JSG: equivalence classes) or several
    (a preference array), all drawn from one hidden order per JG so that no JG contradicts
    itself (trec_eval aborts on a contradiction) and no document is 0 in one JSG and
    positive in another (an error). Some documents are judged but not retrieved, some
    retrieved but not judged; runs have exact score ties (prefs break them by docno
    ascending, unlike every other measure)."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in rng.choice(QIDS, size=int(rng.integers(2, 5)), replace=False)]
    prefs: list[str] = []
    run: list[str] = []
    for qid in qids[:-1] if len(qids) > 2 else qids:  # the last topic: run only
        pool = _docno_pool(rng, int(rng.integers(6, 25)), "mixed")
        for jg in range(int(rng.integers(1, 4))):
            judged = [d for d in pool if rng.random() < 0.7] or pool[:2]
            hidden = dict(zip(judged, _levels(rng, len(judged), close_levels), strict=True))
            n_sub = 1 if rng.random() < 0.5 else int(rng.integers(2, 4))
            for jsg in range(n_sub):
                members = judged if n_sub == 1 else [d for d in judged if rng.random() < 0.6]
                scale = 1.0 if jsg == 0 else float(rng.choice([1.0, 3.0]))
                for docno in members:
                    level = hidden[docno] * scale
                    prefs.append(f"{qid} jg{jg} s{jsg} {docno} {level!r}")
        retrieved = [d for d in pool if rng.random() < 0.6] + _docno_pool(rng, 3, "plain")
        run += _run_lines(rng, qid, list(dict.fromkeys(retrieved)), "prefrun")
    extra = qids[-1]
    if len(qids) > 2:
        run += _run_lines(rng, extra, _docno_pool(rng, 5, "plain"), "prefrun")
    prefs = [prefs[i] for i in rng.permutation(len(prefs))]
    return "\n".join(prefs) + "\n", "\n".join(run) + "\n"


def random_jg_case(seed: int, *, grades: tuple[int, ...] = (0, 0, 1, 2, 3)) -> tuple[str, str]:
    """``(qrels_text, run_text)`` where the qrels' second column names a judgment group
    (user): several users judge overlapping documents of a topic, for ``-R qrels_jg`` and
    ``-R qrels_prefs``. One topic is judged but not retrieved, one retrieved only."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in rng.choice(QIDS, size=int(rng.integers(3, 6)), replace=False)]
    qrels: list[str] = []
    run: list[str] = []
    for index, qid in enumerate(qids):
        pool = _docno_pool(rng, int(rng.integers(5, 30)), "mixed")
        if index != len(qids) - 1:  # the last topic is retrieved only
            for user in rng.choice(["u1", "u2", "U3", "0"], size=int(rng.integers(1, 4))):
                for docno in pool:
                    if rng.random() < 0.6:
                        qrels.append(f"{qid} {user} {docno} {int(rng.choice(grades))}")
        if index != len(qids) - 2:  # the one before is judged only
            retrieved = [d for d in pool if rng.random() < 0.7] + _docno_pool(rng, 3, "plain")
            run += _run_lines(rng, qid, list(dict.fromkeys(retrieved)), "jgrun")
    qrels = list(dict.fromkeys(qrels))  # a user judges a document once
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for line in qrels:
        qid, user, docno, _ = line.split()
        if (qid, user, docno) not in seen:
            seen.add((qid, user, docno))
            unique.append(line)
    unique = [unique[i] for i in rng.permutation(len(unique))]
    return "\n".join(unique) + "\n", "\n".join(run) + "\n"


def random_zscores(seed: int, qids: list[str], labels: list[str]) -> str:
    """A z-scores file (``qid measure mean stddev``) for ``trec_eval -Z``: most (topic,
    measure) pairs, some with a zero standard deviation (then only a value equal to the
    mean converts, to 0), and a topic that no run has."""
    rng = np.random.default_rng(seed)
    lines = []
    for qid in [*qids, "zz_unknown"]:
        for label in labels:
            if rng.random() < 0.15:
                continue  # missing: the value becomes -1000000
            if rng.random() < 0.1:
                mean, stddev = float(rng.choice([0.0, 1.0])), 0.0
            else:
                mean, stddev = round(float(rng.random()), 4), round(float(rng.random()) / 3, 4)
            lines.append(f"{qid}\t{label}\t{mean!r}\t{stddev!r}")
    lines = [lines[i] for i in rng.permutation(len(lines))]
    return "\n".join(lines) + "\n"
