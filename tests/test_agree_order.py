"""agree's earlier measure is the reference whatever its spelling: trec_eval's names
(``P.5``, ``map``) are not put back into trec_eval's printing order (map first)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from test_agree import mean_tau_ap

import trecbench
from trecbench.cli import cli

TOPICS, RELEVANT, DEPTH = 8, 3, 10


def _write(tmp_path, seed: int = 8, runs: int = 6):
    """Judgments with three relevant documents a topic and runs that retrieve them at
    random ranks among ten; returns the paths and each run's mean P@5 and AP, computed
    here from the ranks (all relevant documents are retrieved: AP = mean of k / rank_k)."""
    rng = np.random.default_rng(seed)
    qrels = tmp_path / "q.qrels"
    qrels.write_text(
        "".join(
            f"t{t} 0 {'rel' if d < RELEVANT else 'non'}{d} {int(d < RELEVANT)}\n"
            for t in range(TOPICS)
            for d in range(DEPTH)
        )
    )
    paths, p5, ap = [], [], []
    for r in range(runs):
        lines, p5s, aps = [], [], []
        for t in range(TOPICS):
            ranks = sorted(rng.choice(DEPTH, RELEVANT, replace=False) + 1)
            docs = [f"non{d}" for d in range(RELEVANT, DEPTH)]
            for k, rank in enumerate(ranks):
                docs.insert(rank - 1, f"rel{k}")
            lines += [f"t{t} Q0 {d} {i + 1} {DEPTH - i} s{r}\n" for i, d in enumerate(docs)]
            p5s.append(sum(rank <= 5 for rank in ranks))
            aps.append(sum((k + 1) / rank for k, rank in enumerate(ranks)) / RELEVANT)
        path = tmp_path / f"s{r}.run"
        path.write_text("".join(lines))
        paths.append(str(path))
        p5.append(sum(p5s) / (5 * TOPICS))  # one division: equal counts, equal means
        ap.append(np.mean(aps))
    return str(qrels), paths, np.array(p5), np.array(ap)


@pytest.mark.parametrize("spelling", [["P.5", "map"], ["P@5", "MAP"], ["P_5", "map"]])
def test_the_earlier_measure_is_the_reference_whatever_its_spelling(tmp_path, spelling):
    qrels, runs, p5, ap = _write(tmp_path)
    forward, backward = mean_tau_ap(p5, ap), mean_tau_ap(ap, p5)
    assert forward != pytest.approx(backward)  # the data tell the two directions apart
    result = trecbench.agree(qrels, runs, spelling, qrels_b=qrels)
    assert result.measures == ("P@5", "MAP")
    (ordering,) = result.measure_orderings
    assert (ordering.reference, ordering.evaluated) == ("P@5", "MAP")
    assert ordering.tau_ap == pytest.approx(forward, abs=1e-9)
    assert [row[0] for row in result.means] == pytest.approx(p5, abs=1e-12)
    assert [row[1] for row in result.means] == pytest.approx(ap, abs=1e-12)
    assert [p.measure for p in result.discriminative_power] == ["P@5", "MAP"]
    assert [o.reference for o in result.qrels_orderings] == ["P@5", "MAP"]
    reverse = trecbench.agree(qrels, runs, spelling[::-1])
    (ordering,) = reverse.measure_orderings
    assert (ordering.reference, ordering.evaluated) == ("MAP", "P@5")
    assert ordering.tau_ap == pytest.approx(backward, abs=1e-9)


def test_the_cli_json_names_the_first_measure_given_the_reference(tmp_path):
    qrels, runs, p5, ap = _write(tmp_path)
    for given, first in ((["recip_rank", "map"], "recip_rank"), (["P.5", "map"], "P@5")):
        options = [word for name in given for word in ("-m", name)]
        result = CliRunner().invoke(cli, ["agree", qrels, *runs, *options, "--format", "json"])
        assert result.exit_code == 0, result.output
        document = json.loads(result.output)
        assert document["means"][0]["measure"] == first
        assert document["measure_orderings"][0]["reference"] == first
    table = CliRunner().invoke(cli, ["agree", qrels, *runs, "-m", "P.5", "-m", "map"]).output
    assert "run     P@5     MAP" in table
    assert f"{mean_tau_ap(p5, ap):+.4f}" in table
