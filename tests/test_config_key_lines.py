"""Benchmark configuration refusals checked after the schema (and a mode's name the schema
refuses) cite the refused key at the line the file writes it, not its table's or section's
line under the table's key (docs/benchmark.md: a refusal names the key at its line)."""

from __future__ import annotations

import pytest

from trecbench.benchmarking import load_benchmark_config
from trecbench.errors import UsageError

TOML_HEAD = 'qrels = "q"\n[modes.a]\nrun = "a.run"\n[modes.b]\nrun = "b.run"\n'
YAML_HEAD = "qrels: q\nmodes:\n  a: {run: a.run}\n  b: {run: b.run}\n"


def _refusal(tmp_path, text: str, name: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(UsageError) as refused:
        load_benchmark_config(path)
    return str(refused.value).removeprefix(f"{tmp_path}/")


PATTERN = "does not match '^[A-Za-z0-9_.-]{1,25}$'"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        (
            TOML_HEAD + "[modes.abcdefghijklmnopqrstuvwxyz]\nrun = 'c.run'\n",
            "c.toml",
            f'c.toml:6: modes.abcdefghijklmnopqrstuvwxyz: "abcdefghijklmnopqrstuvwxyz" {PATTERN}',
        ),
        (
            TOML_HEAD + "[modes.\"a b\"]\nrun = 'c.run'\n",
            "c.toml",
            f'c.toml:6: modes."a b": "a b" {PATTERN}',
        ),
        (
            YAML_HEAD + '  "x y":\n    run: c.run\n',
            "c.yaml",
            f'c.yaml:5: modes."x y": "x y" {PATTERN}',
        ),
    ],
)
def test_a_bad_mode_name_is_cited_at_its_own_table(tmp_path, text, name, expected):
    assert _refusal(tmp_path, text, name) == expected
