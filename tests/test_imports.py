"""Arrows one way: the import graph of the package, with imports inside functions too."""

from __future__ import annotations

import ast
import gzip
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "trecbench"


def _modules() -> dict[str, object]:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def import_graph() -> dict[str, set[str]]:
    """``module -> modules of the package it imports`` (anywhere in its code)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(max(node.level - 1, 0)):
                    base = base.rpartition(".")[0]
                module = (
                    node.module if not node.level else ".".join(filter(None, (base, node.module)))
                )
                # a name is a submodule, or something the module itself defines
                targets = [
                    f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules else module
                    for alias in node.names
                ]
            else:
                continue
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rpartition(".")[0]
                if target in modules and target not in (name, "trecbench"):
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = set()
            while not component or node not in component:
                component.add(stack.pop())
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found


_UPPER_PACKAGES = ("trecbench.validation", "trecbench.evaluation")


def part_of(module: str) -> str:
    """The part of the package a module belongs to: its top-level subpackage or module
    (``trecbench.engines.fast`` -> ``trecbench.engines``)."""
    return ".".join(module.split(".")[:2])


def parts_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """``part -> parts it imports``: the module graph with each module in its part."""
    parts: dict[str, set[str]] = {part_of(name): set() for name in graph}
    for name, targets in graph.items():
        parts[part_of(name)] |= {part_of(target) for target in targets} - {part_of(name)}
    return parts


def test_inputs_and_provenance_are_in_no_import_circle():
    # checksums and provenance live below ontology and report (it was maxontsim -> ontology
    # -> report -> maxontsim); the readers import nothing above them
    graph = import_graph()
    assert "trecbench.provenance" in graph["trecbench.ontology"]
    assert "trecbench.report" not in graph["trecbench.ontology"]
    watched = {"trecbench.provenance", "trecbench.ontology", "trecbench.report", "trecbench.files"}
    watched |= {name for name in graph if name.startswith("trecbench.inputs")}
    assert [circle for circle in circles(graph) if circle & watched] == []
    for name in watched - {"trecbench.report", "trecbench.files"}:
        above = {"trecbench.report", "trecbench.comparison"}
        above |= {module for module in graph if module.startswith(_UPPER_PACKAGES)}
        assert not graph[name] & above, name


def test_the_validator_package_has_no_circle_and_no_crowded_file():
    # issue 10: one file per concern, none over ~500 lines, arrows one way
    graph = import_graph()
    package = {name for name in graph if name.startswith("trecbench.validation")}
    assert len(package) > 10
    assert [circle for circle in circles(graph) if circle & package] == []
    # the readers and the writers never depend on the validator
    for name in ("trecbench.files", "trecbench.inputs.trec_text", "trecbench.ranking"):
        assert not graph[name] & package, name
    for path in (PACKAGE / "validation").glob("*.py"):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path.name


def test_the_package_has_no_import_circle():
    # data flows one way: inputs -> tables -> per-query values -> aggregates -> reports, and
    # the commands import the group they register on, never the guard that imports them
    assert circles(import_graph()) == []


def test_no_part_of_the_package_imports_a_part_that_imports_it_back():
    # issue 26: layers point down. A part is a top-level subpackage or module; imports
    # inside functions count (a lazy import is still an arrow up). The kernels both the
    # engines and the ports of trec_eval use sit below both (trecbench.kernels).
    parts = parts_graph(import_graph())
    assert {"trecbench.engines", "trecbench.trec_eval", "trecbench.inputs"} <= set(parts)
    back = sorted((a, b) for a in parts for b in parts[a] if a in parts[b] and a < b)
    assert back == []
    assert circles(parts) == []
    assert "trecbench.kernels" in parts["trecbench.engines"] & parts["trecbench.trec_eval"]
    assert not parts["trecbench.kernels"]


def documented_layers() -> list[tuple[str, list[str]]]:
    """docs/architecture.md's layer table, from the bottom: ``(layer, its parts)``, each
    part named without ``trecbench.`` (the package's own ``__init__.py`` is ``__init__``)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("\n## Layers\n", 1)[1].split("\n\n| layer |", 1)[1].split("\n\n", 1)[0]
    rows = [row.split(" | ") for row in table.splitlines()[2:]]
    return [(row[0].lstrip("| "), re.findall(r"`([^`]+)`", row[1])) for row in rows]


def _named(part: str) -> str:
    """A part as the layer table names it: ``trecbench.engines`` -> ``engines``."""
    return "__init__" if part == "trecbench" else part.removeprefix("trecbench.")


def layer_violations(parts: dict[str, set[str]], layers: list[tuple[str, list[str]]]) -> list[str]:
    """What breaks the layer table: a part in no layer or in two, a layer's part that does
    not exist, and every arrow from a part to a part of a higher layer."""
    level: dict[str, int] = {}
    found = []
    for rank, (layer, names) in enumerate(layers):
        for name in names:
            if name in level:
                found.append(f"{name} is in two layers: {layers[level[name]][0]}, {layer}")
            level[name] = rank
    named = {
        _named(part): {_named(target) for target in targets} for part, targets in parts.items()
    }
    found += [f"{name} is in no layer" for name in sorted(named.keys() - level.keys())]
    found += [f"{name} is no part of the package" for name in sorted(level.keys() - named.keys())]
    for name in sorted(named.keys() & level.keys()):
        for target in sorted(named[name] & level.keys()):
            if level[target] > level[name]:
                lower, higher = layers[level[name]][0], layers[level[target]][0]
                found.append(f"{name} ({lower}) imports {target} ({higher})")
    return found


def test_every_part_is_in_one_layer_and_imports_no_part_above_it():
    # issue: the layer table of docs/architecture.md is the rule, and the code keeps it
    # (ids imported the readers, the validator the renderers' escaping, five parts naming)
    layers = documented_layers()
    assert [layer for layer, _ in layers][0] == "foundations"
    assert layer_violations(parts_graph(import_graph()), layers) == []


def test_the_layer_check_sees_an_arrow_up_and_a_part_in_no_layer():
    parts = parts_graph(import_graph())
    layers = documented_layers()
    parts["trecbench.errors"] = parts["trecbench.errors"] | {"trecbench.cli"}
    parts["trecbench.unlisted"] = set()
    assert layer_violations(parts, layers) == [
        "unlisted is in no layer",
        "errors (foundations) imports cli (commands)",
    ]
    twice = [*layers, ("above", ["errors"])]
    assert "errors is in two layers: foundations, above" in layer_violations(parts, twice)


# what the plain score and validate paths must never import (issue 31: a 1,000-line run
# costs start-up, nearly all of it imports): the DataFrame, statistics, schema, plotting,
# distributed and reference-engine libraries, and the optional gzip accelerator
_NOT_ON_THE_SMALL_PATH = ["pandas", "scipy", "jsonschema", "matplotlib", "dask", "distributed",
                          "yaml", "pytrec_eval", "ir_measures", "tqdm", "isal", "numpy.ma",
                          "pyarrow.dataset", "pyarrow.parquet"]  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["score", "--format", "trec", "QRELS", "RUN"],
        ["score", "-q", "QRELS", "RUN"],
        ["validate", "--qrels", "QRELS", "RUN"],
    ],  # fmt: skip
)
def test_score_and_validate_of_a_small_run_import_none_of_the_heavy_libraries(tmp_path, args):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.run"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 3}\n" for q in range(5) for d in range(0, 40, 3)))
    run.write_text(
        "".join(f"{q} Q0 d{d} {d + 1} {1 - d / 40:.3f} t\n" for q in range(5) for d in range(40))
    )
    assert _imported(args, {"QRELS": str(qrels), "RUN": str(run)}, _NOT_ON_THE_SMALL_PATH) == []


def _imported(args: list[str], files: dict[str, str], heavy: list[str]) -> list[str]:
    """Which of ``heavy`` a fresh interpreter imported running ``trecbench ARGS``."""
    argv = [files.get(arg, arg) for arg in args]
    probe = (
        "import atexit, sys\n"
        f"heavy = {heavy!r}\n"
        "atexit.register(lambda: print([m for m in heavy if m in sys.modules], file=sys.stderr))\n"
        f"sys.argv = ['trecbench', *{argv!r}]\n"
        "from trecbench.cli import main\nmain()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stderr.splitlines()[-1])


# what a small plain score or validate has no use for either: the registry of paired tests
# and the bounds of their options (compare's, agree's), the decimal module (a percentage
# written exactly) and shlex (a name quoted in a message): 3 ms of a 80 ms run
_NOT_FOR_SMALL_PLAIN_FILES = ["trecbench.statistical_tests", "trecbench.resampling_bounds",
                              "decimal", "shlex"]  # fmt: skip

# what `score` of a small plain run must not import either (issue 31: it is read and scored
# without Arrow or numpy, trecbench.small_score): Arrow, numpy (its first import costs more
# than scoring a 1,000-line run), and the packages that import them
_NOT_ON_THE_PLAIN_SMALL_SCORE = [
    *_NOT_ON_THE_SMALL_PATH,
    *_NOT_FOR_SMALL_PLAIN_FILES,
    "pyarrow",
    "numpy",
    "trecbench.sparse_measures",
    "trecbench.kernels",
    "trecbench.arrow",
    "trecbench.inputs",
    "trecbench.evaluation",
    "trecbench.engines",
    "trecbench.ranking",
    "trecbench.validation",
]


@pytest.mark.parametrize(
    "args",
    [
        ["score", "QRELS", "RUN"],
        ["score", "-q", "-m", "P.5,10 map ndcg_cut.10 MRR@10", "QRELS", "RUN"],
        ["score", "-q", "-n", "--format", "trec", "--quiet", "QRELS", "RUN"],
    ],
)
def test_score_of_a_small_plain_run_imports_no_arrow(tmp_path, args):
    assert _imported(args, _plain_files(tmp_path), _NOT_ON_THE_PLAIN_SMALL_SCORE) == []


def _plain_files(tmp_path) -> dict[str, str]:
    """A small plain qrels and run (5 topics, 40 documents each)."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.run"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 3}\n" for q in range(5) for d in range(0, 40, 2)))
    run.write_text(
        "".join(f"{q} Q0 d{d} {d + 1} {1 - d / 40:.3f} t\n" for q in range(5) for d in range(40))
    )
    return {"QRELS": str(qrels), "RUN": str(run)}


# what the start-up of `score` on a small plain run must not import (issue 31): the output
# machinery (trecbench.outputs: hashlib, tempfile, shutil; the report's provenance), opened
# only by a call that writes a file, and difflib, only for a name to suggest (click imports
# it to suggest an option whenever a short option is parsed, so no short option here)
_NOT_AT_SMALL_SCORE_START_UP = [
    *_NOT_ON_THE_PLAIN_SMALL_SCORE,
    "trecbench.outputs",
    "trecbench.provenance",
    "trecbench.publication",
    "trecbench.report",
    "hashlib",
    "tempfile",
    "shutil",
    "difflib",
]


def test_score_of_a_small_plain_run_starts_up_without_the_output_machinery(tmp_path):
    args = ["score", "--format", "trec", "--measure", "P.5 map", "QRELS", "RUN"]
    assert _imported(args, _plain_files(tmp_path), _NOT_AT_SMALL_SCORE_START_UP) == []


# what `validate` of small plain files must not import (issue 31: trecbench.validation.small
# checks them with Python lists): Arrow, numpy, and the readers and checkers that import them
_NOT_ON_THE_PLAIN_SMALL_VALIDATE = [
    *_NOT_ON_THE_SMALL_PATH,
    *_NOT_FOR_SMALL_PLAIN_FILES,
    "trecbench.outputs",
    "hashlib",
    "tempfile",
    "pyarrow",
    "numpy",
    "trecbench.arrow",
    "trecbench.inputs",
    "trecbench.ranking",
    "trecbench.validation.api",
    "trecbench.validation.checker",
]


@pytest.mark.parametrize(
    "args",
    [
        ["validate", "RUN"],
        ["validate", "--qrels", "QRELS", "RUN", "--format", "json", "--profile", "strict"],
        ["validate", "--qrels", "QRELS", "--max-depth", "100", "--min-depth", "5", "RUN"],
        ["validate", "--topics", "QRELS", "--tag-is-filename", "--profile", "lenient", "RUN"],
    ],
)
def test_validate_of_small_plain_files_imports_no_arrow_nor_numpy(tmp_path, args):
    assert _imported(args, _plain_files(tmp_path), _NOT_ON_THE_PLAIN_SMALL_VALIDATE) == []


@pytest.mark.parametrize(
    "args",
    [
        ["pool", "RUN", "--depth", "10", "-o", "OUT"],
        ["pool", "RUN", "--depth", "10", "--qrels", "QRELS", "-o", "OUT"],
    ],
)
def test_pool_imports_no_pandas(tmp_path, args):
    """An empty Arrow array built from a Python list imports pandas (0.2 s: pyarrow asks
    whether the list is a pandas object); pool builds them through trecbench.arrow."""
    files = {**_plain_files(tmp_path), "OUT": str(tmp_path / "pool.txt")}
    assert _imported(args, files, ["pandas"]) == []


@pytest.mark.parametrize(
    "args",
    [
        ["fuse", "RUN", "RUN2", "-o", "OUT"],
        ["fuse", "RUN", "RUN2", "--method", "combmnz", "--norm", "z-score", "-o", "OUT"],
    ],
)
def test_fuse_imports_no_pandas(tmp_path, args):
    """A Python list or numpy array given to ``pa.array``, and a Python str given to a
    compute function (the run's separators), import pandas (pyarrow's shim); fuse builds
    its tag and group columns, and the run's text, through trecbench.arrow."""
    files = {**_plain_files(tmp_path), "OUT": str(tmp_path / "fused.run")}
    files["RUN2"] = str(tmp_path / "r2.run")
    Path(files["RUN2"]).write_text(Path(files["RUN"]).read_text().replace(" t\n", " u\n"))
    assert _imported(args, files, ["pandas"]) == []


# what the commands that read runs without scoring them must not import (issue 31)
_NOT_READING_ONLY = ["trecbench.evaluation", "trecbench.engines", "trecbench.measures"]


@pytest.mark.parametrize(
    ("args", "heavy"),
    [
        # np.unique imports numpy.ma (10 ms): their sorted cuts are told by neighbours
        (["pool", "RUN", "--depth", "10", "-o", "OUT"], ["numpy.ma"]),
        (["similarity", "RUN", "RUN2", "-q"], ["numpy.ma"]),
        # the list of commands needs no report machinery (benchmark's --meta reads it late)
        (["--help"], ["trecbench.report", "trecbench.provenance", "hashlib", "numpy"]),
        # diff's text needs neither the pool's nor similarity's module (numpy, pyarrow)
        (
            ["diff", "REPORT", "REPORT"],
            ["trecbench.runstudy.pool", "trecbench.runstudy.similarity"],
        ),
        # the report's values are arranged from the runs' arrays, not pivoted DataFrames
        (["score", "--report", "OUT", "QRELS", "RUN"], ["pandas"]),
        # the general path (an option the small path does not take) takes no checksum and
        # checks no level: OpenSSL's hashlib (3 ms) and fractions (2 ms) are not imported
        (["score", "--engine", "fast", "QRELS", "RUN"], ["hashlib", "fractions"]),
        # nor, writing no file, the reports' module (its schemas and YAML: 2 ms)
        (["score", "--engine", "fast", "QRELS", "RUN"], ["trecbench.report"]),
        # runs read as score reads them (trecbench.gated), without the evaluation package:
        # its measures, engines and scoring (0.04-0.06 s) score nothing here
        (["similarity", "RUN", "RUN2"], _NOT_READING_ONLY),
        (["pool", "RUN", "RUN2", "--depth", "10", "-o", "OUT"], _NOT_READING_ONLY),
        (["pool", "RUN", "--depth", "5", "--qrels", "QRELS", "-o", "OUT"], _NOT_READING_ONLY),
        # nor fuse without --optimize the measure registry (only --optimize names a measure)
        (["fuse", "RUN", "RUN2", "-o", "OUT"], _NOT_READING_ONLY),
        (["fuse", "RUN", "RUN2", "--method", "combmnz", "-o", "OUT"], _NOT_READING_ONLY),
    ],  # fmt: skip
)
def test_paths_of_the_demo_data_import_only_what_they_need(tmp_path, args, heavy):
    files = {**_plain_files(tmp_path), "OUT": str(tmp_path / "out.txt")}
    files["RUN2"] = str(tmp_path / "r2.run")
    Path(files["RUN2"]).write_text(Path(files["RUN"]).read_text().replace(" t\n", " u\n"))
    files["REPORT"] = str(tmp_path / "report.json")
    if "REPORT" in args:
        score = ["score", "--report", files["REPORT"], files["QRELS"], files["RUN"]]
        subprocess.run([sys.executable, "-m", "trecbench", *score], check=True, capture_output=True)
    assert _imported(args, files, heavy) == []


# the general path calls Arrow's compute functions through trecbench.arrow_compute:
# importing pyarrow.compute builds a wrapper and a docstring for each of Arrow's ~290
# functions (28 ms of the 0.2 s start-up; pyarrow's own methods that compute import it too)
@pytest.mark.parametrize(
    "args",
    [
        ["score", "--engine", "fast", "QRELS", "RUN"],
        ["score", "-q", "--engine", "fast", "QRELS", "RUN"],
        ["score", "QRELS", "RUNGZ"],
        ["validate", "--qrels", "QRELS", "RUNGZ", "--format", "json"],
        ["validate", "RUNGZ", "--max-depth", "100"],
    ],
)
def test_the_general_path_computes_without_importing_pyarrow_compute(tmp_path, args):
    files = _plain_files(tmp_path)
    files["RUNGZ"] = str(tmp_path / "run.gz")
    Path(files["RUNGZ"]).write_bytes(gzip.compress(Path(files["RUN"]).read_bytes()))
    assert _imported(args, files, ["pyarrow", "pyarrow.compute"]) == ["pyarrow"]


# what `power`, `agree` and `similarity` of a few small runs must not import (issue 31:
# scipy.stats costs 0.4 s, scipy.optimize 0.15 s, pandas 0.3 s: more than the figures of a few
# runs take; the per-topic values are arranged without pandas, trecbench.conclusions.scores).
# power keeps scipy.optimize: its MDE is brentq's root, to the last bit; similarity needs
# no scipy at all on a few topics (Kendall's tau by comparing every pair); Wilcoxon's ranks
# need no scipy.stats either, nor the leaderboard's ranks (compare and the leaderboard keep
# pandas: their results hold DataFrames)
_NOT_ON_THE_SMALL_CONCLUSIONS = ["scipy.stats", "scipy.optimize", "pandas"]
_NO_SCIPY_STATS = ["scipy.stats", "pandas"]


@pytest.mark.parametrize(
    ("args", "heavy"),
    [
        (
            ["agree", "QRELS", "RUN", "RUN2", "-m", "P.5", "-m", "map"],
            _NOT_ON_THE_SMALL_CONCLUSIONS,
        ),
        (["power", "QRELS", "RUN", "RUN2", "-m", "map", "--format", "json"], _NO_SCIPY_STATS),
        (["similarity", "RUN", "RUN2", "-q"], ["scipy", "pandas"]),
        (["agree", "QRELS", "RUN", "RUN2", "-m", "map", "--test", "wilcoxon"], _NO_SCIPY_STATS),
        (["compare", "QRELS", "RUN", "RUN2", "-m", "map", "--test", "wilcoxon"], ["scipy.stats"]),
        (["leaderboard", str(ROOT / "data" / "leaderboard.toml")], ["scipy.stats"]),
    ],  # fmt: skip
)
def test_power_agree_and_similarity_of_small_runs_import_no_scipy_stats(tmp_path, args, heavy):
    files = _plain_files(tmp_path)
    run2 = tmp_path / "r2.run"
    run2.write_text(
        "".join(
            f"{q} Q0 d{d} {d + 1} {(d * (q + 3)) % 41:.3f} u\n" for q in range(5) for d in range(40)
        )
    )
    files["RUN2"] = str(run2)
    assert _imported(args, files, heavy) == []


def test_a_public_module_is_there_after_a_plain_import_of_the_package():
    """Reviewer 727: ``trecbench.ids.escape_id``, as the docs and write_run's refusal write
    it, raised AttributeError unless something had imported trecbench.ids before."""
    probe = (
        "import trecbench, trecbench.conclusions as c\n"
        "assert trecbench.ids.escape_id('a b') == 'a%20b'\n"
        "assert callable(trecbench.strata.load_strata)\n"
        "assert callable(trecbench.conclusions.power.with_power)\n"  # in a part, as documented
        "assert not hasattr(trecbench, 'foo.bar') and not hasattr(trecbench, 'ids.x')\n"
        "for owner, name in ((trecbench, 'nothing'), (trecbench, '_lazy'), (c, 'nope')):\n"
        "    try:\n"
        "        getattr(owner, name)\n"
        "    except AttributeError as error:\n"
        "        assert f'has no attribute {name!r}' in str(error)\n"
        "    else:\n"
        "        raise AssertionError(name)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
