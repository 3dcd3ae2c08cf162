"""A case of cwl_eval's horizon (its measures without a cutoff read a topic's top 1000
ranks): the warning it gives and the runs that give it, one process's and Dask's tests
alike (test_cwl_horizon.py, test_dask.py)."""

from __future__ import annotations

HORIZON = (
    "{run}: INST, INSQ: cwl_eval reads the top 1000 ranks of a topic: document d1050 of "
    "topic t2, at rank 1051, has a gain and counts nothing (and in 1 other topic)"
)


def horizon_case(folder) -> tuple[str, list[str]]:
    """In ``folder``: 8 topics of 1100 documents, d1050 judged relevant in t2 and t7 (past
    rank 1000), d3 in every topic; the qrels ``q`` and two runs (``r``, and its copy
    ``c``) with the same offending documents, for INST and INSQ to say :data:`HORIZON`."""
    topics = [f"t{i}" for i in range(1, 9)]
    qrels = "".join(f"{t} 0 d1050 1\n" for t in ("t2", "t7"))
    qrels += "".join(f"{t} 0 d3 1\n" for t in topics)
    run = "".join(f"{t} Q0 d{i} {i + 1} {2000 - i} r\n" for t in topics for i in range(1100))
    (folder / "q").write_text(qrels)
    for name in "rc":
        (folder / name).write_text(run)
    return str(folder / "q"), [str(folder / name) for name in "rc"]
