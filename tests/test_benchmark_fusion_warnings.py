"""A benchmark's fused modes warn of their ties each by its own name (reviewer 404: two
fused modes' warnings said neither, so which mode's run ties against its order was unsaid)."""

from __future__ import annotations

import shutil
from pathlib import Path

from trecbench.cli import run as main

DEMO = Path(__file__).resolve().parents[1] / "data" / "hpo-rtask"

CONFIG = """name: t
qrels: hpo-rtask.qrels
measures: ["map"]
modes:
  lexical: {run: lexical.run}
  vector: {run: vector.run}
  h: {fuse: [lexical, vector], k: 100000000}
  m: {fuse: [lexical, vector], method: combsum, norm: none, weights: [1.0e-300, 1.0e-300]}
"""


def test_each_fused_modes_tie_warning_names_its_mode(tmp_path, capsys):
    for name in ("hpo-rtask.qrels", "lexical.run", "vector.run"):
        shutil.copy(DEMO / name, tmp_path / name)
    config = tmp_path / "k.yaml"
    config.write_text(CONFIG)
    assert main(["benchmark", str(config), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "Warning" in line]
    prefix = f"trecbench: warning: ParameterDomainWarning: {config}: modes."
    assert len(warned) == 2
    assert warned[0].startswith(f"{prefix}h: k 1e+08: RRF's scores of ranks 1 and 2 tie")
    assert warned[1].startswith(f"{prefix}m: fused scores within float32's smallest normal")
