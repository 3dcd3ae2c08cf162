"""leaderboard: its JSON records how it was made (versions, settings, every input with
its sha256, checked against hashlib on the files' bytes), a measure asked by two
spellings is refused at the suite's line as compare and benchmark refuse it, and a run
of several collections that has no topic in one of them names that collection."""

from __future__ import annotations

import hashlib
from pathlib import Path

from conftest import ROOT

from trecbench.cli import run

SUITE = ROOT / "data" / "leaderboard.toml"
SYSTEMS = ["lexical", "vector", "reranked"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _suite(folder: Path, measures: str, second_qrels: str = "q") -> Path:
    """A suite ranking runs a and b on collections one and two (their qrels ``q`` and
    ``second_qrels``), asking ``measures`` on its second line."""
    (folder / "q").write_text("1 0 d1 1\n2 0 d2 1\n")
    (folder / "q2").write_text("1 0 d2 1\n")
    (folder / "other").write_text("9 0 d1 1\n")
    (folder / "a.run").write_text("1 Q0 d1 1 2 a\n2 Q0 d2 1 2 a\n")
    (folder / "b.run").write_text("1 Q0 d2 1 2 b\n2 Q0 d2 1 2 b\n")
    suite = folder / "suite.toml"
    suite.write_text(
        f'name = "s"\nmeasures = {measures}\nsystems = ["a", "b"]\n'
        '[collections.one]\nqrels = "q"\nruns = "{system}.run"\n'
        f'[collections.two]\nqrels = "{second_qrels}"\nruns = "{{system}}.run"\n'
    )
    return suite


def test_a_run_of_two_collections_with_no_topic_in_one_names_that_collection(tmp_path, capsys):
    # "a.run: No queries with both results..." did not say in which collection
    suite = _suite(tmp_path, '["P@1"]', "other")
    assert run(["leaderboard", str(suite)]) == 7
    assert capsys.readouterr().err == (
        f"trecbench: collection two: {tmp_path / 'a.run'}: No queries with both results "
        "and relevance info (no topic of the run is in the qrels)\n"
    )
