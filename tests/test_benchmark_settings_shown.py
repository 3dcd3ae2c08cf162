"""What the benchmark's outputs say of its settings: no depth limit in words (not "None"),
integer settings refused as floats alike at the key written, no targets table of its header
alone, and every run's ``input`` from the current folder, as the manifest's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.compute as pc
import pytest
from conftest import ROOT

from trecbench.benchmarking import run_benchmark
from trecbench.comparison import html_available

DEMO = ROOT / "data" / "hpo-rtask"
MODES_YAML = "modes:\n  a: {run: lexical.run}\n  b: {run: vector.run}\n  h: {fuse: [a, b]}\n"
MODES_TOML = (
    '[modes.a]\nrun = "lexical.run"\n[modes.b]\nrun = "vector.run"\n[modes.h]\nfuse = ["a", "b"]\n'
)


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """The demo's qrels and two runs, copied into a folder of their own."""
    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        shutil.copy(DEMO / name, tmp_path / name)
    return tmp_path


def _header(text: str) -> str:
    return text[: text.index("## KPIs")]


def test_no_depth_limit_is_said_in_words_and_the_fusion_keeps_every_document(demo):
    # "h = rrf (k=60) of a, b, depth None" and "at most None documents per topic"
    config = demo / "c.yaml"
    config.write_text("qrels: hpo-rtask.qrels\nvalidation: {max_depth: null}\n" + MODES_YAML)
    bench = run_benchmark(config)
    header = _header(bench.markdown(False))
    assert "None" not in header
    assert (
        "- Modes: a = run " in header
        and "; h = rrf (k=60) of a, b, every document kept\n" in header
    )
    assert "- Validation: profile rtask, no limit on documents per topic\n" in header
    # the fused run does keep every document: one row per document either run retrieved
    runs = [bench.modes[i].table for i in (0, 1)]
    pairs = {
        pair
        for t in runs
        for pair in zip(t["qid"].to_pylist(), t["docno"].to_pylist(), strict=True)
    }
    fused = bench.modes[2].table
    assert fused.num_rows == len(pairs)
    deepest = pc.max(pc.value_counts(fused["qid"]).field("counts")).as_py()
    assert deepest > 100  # beyond the default depth
    if html_available():
        page = bench.to_html()
        assert "depth None" not in page and "at most None" not in page
        assert "no limit on documents per topic" in page and "every document kept" in page
