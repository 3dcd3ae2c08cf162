"""The package as users install it: a built wheel in a fresh venv, and the optional extras.

The wheel test builds ``pip wheel`` from a copy of the checkout's package files (the checkout
is never written to) and installs it into a new venv with ``--no-deps --no-index``: no
network. The new venv borrows the test venv's installed dependencies through a ``.pth``
line (a ``.pth`` file inside that folder is not read, so the test venv's editable trecbench
stays invisible); the ``trecbench`` command of the new venv then scores the bundled data
from the wheel's own files: about 5 s (build 2 s, venv, install and two runs 3 s).

The extras tests run six command lines, two at a time, each in an interpreter where the
optional packages cannot be imported, as after a plain ``pip install trecbench``: about
5 s of CPU, 3-7 s of wall time on two shared cores.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT
from packaging.version import Version

from trecbench import extras

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGE = ROOT / "trecbench"
SCORE = ["score", "--format", "markdown", "qrels/hpo-demo.qrels", "runs/tfidf-word.run"]


def package_files() -> list[str]:
    """Every file of the package in the checkout, as the wheel must hold it."""
    return sorted(
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(PACKAGE, source / "trecbench", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    command += ["--no-index", "--quiet", "--wheel-dir", str(out), str(source)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    (built,) = out.glob("trecbench-*.whl")
    return built


def test_wheel_holds_every_package_file(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert sorted(n for n in names if n.startswith("trecbench/")) == package_files()
    assert "trecbench/py.typed" in names
    metadata = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "trecbench = trecbench.__main__:main" in zipfile.ZipFile(wheel).read(metadata).decode()


def test_wheel_in_a_fresh_venv_scores_the_bundled_data(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # the test venv's dependencies (and pip), after the new venv's own site-packages
    borrowed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(site, "borrowed-dependencies.pth").write_text("\n".join(sorted(borrowed)) + "\n")
    install = [python, "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed"]
    subprocess.run([*install, "--quiet", str(wheel)], check=True, capture_output=True)

    work = tmp_path / "work"  # no checkout here: only the wheel can be imported
    for name in ("qrels", "runs"):
        shutil.copytree(ROOT / name, work / name)
    where = subprocess.run(
        [python, "-c", "import trecbench; print(trecbench.__file__)"],
        cwd=work,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert Path(where).resolve().is_relative_to(Path(site).resolve())
    installed = subprocess.run(
        [bindir / "trecbench", *SCORE], cwd=work, capture_output=True, text=True
    )
    assert installed.returncode == 0, installed.stderr
    checkout = subprocess.run(
        [sys.executable, "-m", "trecbench", *SCORE], cwd=work, capture_output=True, text=True
    )
    assert installed.stdout == checkout.stdout
    assert "| tfidf-word | 56 | 0.2450 |" in installed.stdout
    schemas = subprocess.run(  # package data: the schemas load from the installed package
        [
            python,
            "-c",
            "from trecbench import json_schemas; json_schemas.load_schema('evaluation_report')",
        ],
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert schemas.returncode == 0, schemas.stderr


# --- extras -------------------------------------------------------------------------------


def requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_every_optional_package_is_in_its_extra_and_not_a_dependency():
    optional = PYPROJECT["project"]["optional-dependencies"]
    core = requirement_names(PYPROJECT["project"]["dependencies"])
    for module, (package, extra) in extras.PACKAGES.items():
        assert package in requirement_names(optional[extra]), (module, extra)
        assert package not in core, package
    everything = re.search(r"\[(.*)\]", optional["all"][0])[1].split(",")
    assert {extra for _, extra in extras.PACKAGES.values()} <= set(everything)
    assert "trecbench[all,demo-data,docs]" in optional["test"]


def test_the_install_page_says_what_each_extra_installs():
    # docs/install.md's table of extras: a row per extra, naming the packages it installs
    # (and "all of the above" where it installs other extras); a package added to an extra
    # (pygments, for the site's highlighting) must not leave the page saying less
    page = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([\w-]+)` \| ([^|]*) \|", page, re.M)
    said = {extra: cell.strip() for extra, cell in rows}
    optional = PYPROJECT["project"]["optional-dependencies"]
    assert set(said) == set(optional)
    for extra, requirements in optional.items():
        own = [r for r in requirements if not r.startswith("trecbench[")]
        cell = said[extra].removesuffix("all of the above").removesuffix(" and ")
        assert set(filter(None, cell.split(", "))) == requirement_names(own), extra
        assert said[extra].endswith("all of the above") == (own != requirements), extra


def _lower_bounds(requirements: list[str]) -> dict[str, str]:
    bounds = {}
    for requirement in requirements:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[.*\])?>=([0-9.]+)(;.*)?", requirement.strip())
        if found:
            bounds[found[1].lower()] = Version(found[3])
    return bounds


def test_lower_bounds_are_the_versions_make_test_lowest_runs():
    """.ci/lowest-versions.txt pins every dependency at pyproject.toml's lower bound (and
    the extras the command-level tests need at theirs): a bound nobody tests is not kept."""
    pinned = {}
    for line in (ROOT / ".ci" / "lowest-versions.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pinned[name.strip().lower()] = Version(version.strip())
    project = PYPROJECT["project"]
    core = _lower_bounds(project["dependencies"])
    core.pop("tomli", None)  # Python 3.10 only: the lowest venv runs this machine's Python
    extra = _lower_bounds(
        project["optional-dependencies"]["hpo"] + project["optional-dependencies"]["plots"]
    )
    assert core.items() <= pinned.items()
    assert extra.items() <= pinned.items()
    assert set(pinned) == set(core) | set(extra)


# An interpreter where the optional packages cannot be imported (None in sys.modules makes
# `import x` fail as if x were not installed), running one command line.
WITHOUT_EXTRAS = (
    f"import sys; sys.modules.update(dict.fromkeys({sorted(extras.PACKAGES)!r}));"
    "from trecbench.cli import main; sys.argv[0] = 'trecbench'; main()"
)

# command line -> exit code and the extra its error names (None: it works without extras)
CASES = {
    "score": (SCORE, 0, None),
    "compare": (
        ["compare", "qrels/hpo-demo.qrels", "runs/tfidf-word.run", "runs/tfidf-char.run"]
        + ["-m", "nDCG@10", "--samples", "200", "-o", "out"],
        0,
        None,
    ),
    "plots": (
        ["compare", "qrels/hpo-demo.qrels", "runs/tfidf-word.run", "runs/tfidf-char.run"]
        + ["-o", "plotted", "--plots"],
        1,
        "plots",
    ),
    "maxontsim": (
        ["score", "-m", "MaxOntSim@10", "qrels/hpo-demo.qrels", "runs/tfidf-char.run"],
        1,
        "hpo",
    ),
    "providers": (
        ["score", "-m", "INST", "qrels/hpo-demo.qrels", "runs/tfidf-char.run"],
        1,
        "providers",
    ),
    "datasets": (["score", "irds:vaswani", "runs/tfidf-char.run"], 1, "datasets"),
    "dask": (
        ["score", "--dask", "local:1", "qrels/hpo-demo.qrels", "runs/tfidf-char.run"],
        1,
        "dask",
    ),
}


@pytest.fixture(scope="module")
def without_extras(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every case run at once (two cores), in a scratch copy of the bundled data."""
    work = tmp_path_factory.mktemp("without-extras")
    for name in ("qrels", "runs"):
        shutil.copytree(ROOT / name, work / name)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    started = {
        name: subprocess.Popen(
            [sys.executable, "-c", WITHOUT_EXTRAS, *args],
            cwd=work,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (args, _, _) in CASES.items()
    }
    done = {}
    for name, process in started.items():
        out, err = process.communicate()
        done[name] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    done["work"] = work
    return done


@pytest.mark.parametrize("case", CASES)
def test_a_missing_extra_is_one_line_naming_it(case, without_extras):
    _, code, extra = CASES[case]
    done = without_extras[case]
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    if extra is None:
        assert done.stdout
    else:
        (line,) = done.stderr.splitlines()
        assert line.startswith("trecbench: ") and f"pip install 'trecbench[{extra}]'" in line
        assert done.stdout == ""


def test_without_extras_nothing_is_written_for_a_failed_feature(without_extras):
    assert not (without_extras["work"] / "plotted").exists()
    assert json.loads((without_extras["work"] / "out" / "BenchmarkReport.json").read_text())
