"""report.html made twice of the same inputs is the same bytes but for its ``created``
and ``experiment_id`` (its report's): its figures' ids were Bokeh's default uuid4s (14 of
them on benchmark's demo)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytest.importorskip("bokeh")

RTASK = ROOT / "data" / "hpo-rtask"
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
CREATED = re.compile(rb"&#34;created&#34;: &#34;[^&]*&#34;")
# the report's id, the one uuid4 the page holds
EXPERIMENT = re.compile(rb"&#34;experiment_id&#34;: &#34;[0-9a-f-]{36}&#34;")


def _cli(folder: Path, *argv: str) -> None:
    environment = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "trecbench", *argv], cwd=folder, env=environment,
        capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def _page(path: Path) -> bytes:
    page, ids = EXPERIMENT.subn(b"experiment_id", path.read_bytes())
    assert b'id="trecbench-figure-1"' in page and ids == 1 and not UUID.search(page)
    return CREATED.sub(b"created", page)


def test_benchmark_s_page_made_twice_is_the_same_bytes_but_its_creation_time(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text(
        f'qrels = "{RTASK / "hpo-rtask.qrels"}"\n[modes.a]\nrun = "{RTASK / "lexical.run"}"\n'
        f'[modes.b]\nrun = "{RTASK / "vector.run"}"\n[modes.h]\nfuse = ["a", "b"]\n'
    )
    for out in ("o1", "o2"):
        _cli(tmp_path, "benchmark", str(config), "-o", out)
    assert _page(tmp_path / "o1" / "report.html") == _page(tmp_path / "o2" / "report.html")


def test_score_s_page_made_twice_is_the_same_bytes_but_its_creation_time(tmp_path):
    inputs = [str(RTASK / name) for name in ("hpo-rtask.qrels", "lexical.run", "vector.run")]
    for page in ("s1.html", "s2.html"):
        _cli(tmp_path, "score", *inputs, "--html", page)
    assert _page(tmp_path / "s1.html") == _page(tmp_path / "s2.html")


def test_a_page_made_twice_in_one_process_is_the_same_bytes(tmp_path):
    # its models' ids (p1000...) went on from Bokeh's process-wide count: to_html called
    # twice gave pages differing in every model's id
    from bokeh.models import Range1d

    import trecbench

    inputs = [str(RTASK / name) for name in ("hpo-rtask.qrels", "lexical.run", "vector.run")]
    comparison = trecbench.compare(inputs[0], inputs[1:], ["P@5"])
    stamp = {"created": "2026-12-02T00:00:00Z", "experiment_id": None}
    first, second = (comparison.to_html(stamp=stamp).encode() for _ in range(2))
    assert b'"p1000"' in first and first == second
    # the process's next model numbered past the pages' models, not among them
    assert int(Range1d().id[1:]) > max(map(int, re.findall(rb'"p(\d+)"', first)))
