"""Shared fixtures: paths to ../shared data (tests skip cleanly without it)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
TREC_EVAL_SUITE = SHARED / "trec_eval-9.0.8-test"
PHENTRIEVE = SHARED / "phentrieve-benchmarks"
CODE_CHUNK = SHARED / "code-chunk"
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
# what convert reports of a document twice in one query of the run tagged {}
DUPLICATE = (
    "duplicate document in a query ({}; the best-ranked copy is kept, the documents after the "
    "dropped copy one rank higher: @k values may differ from the producer's list)"
)


BUNDLED_FILES = {
    path.relative_to(ROOT).as_posix()
    for name in ("qrels", "runs", "data")
    for path in (ROOT / name).rglob("*")
    if path.is_file()
}


def unignored(folder: Path) -> list[str]:
    """The files in ``folder``, a scratch copy of the bundled folders where examples ran,
    that are not bundled and that the repository's .gitignore does not ignore: what the
    examples would leave in `git status` run from the repository's root (none checked in
    a source tree without git)."""
    if not (ROOT / ".git").exists():
        return []
    written = sorted(
        name
        for path in folder.rglob("*")
        if path.is_file() and (name := path.relative_to(folder).as_posix()) not in BUNDLED_FILES
    )
    check = ["git", "-C", str(ROOT), "check-ignore", "--no-index", "--verbose", "--non-matching"]
    done = subprocess.run(
        [*check, "--stdin"], input="\n".join(written), capture_output=True, text=True
    )
    return [line.split("\t")[1] for line in done.stdout.splitlines() if line.startswith("::")]


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not available (../shared is absent in a user's clone)")
    return path


@pytest.fixture
def trec_eval_suite() -> Path:
    """trec_eval 9.0.8's own test folder."""
    return _require(TREC_EVAL_SUITE)


@pytest.fixture
def phentrieve_data() -> Path:
    """The Phentrieve German HPO benchmark test cases."""
    return _require(PHENTRIEVE)


@pytest.fixture
def code_chunk_data() -> Path:
    """One real code-chunk eval output and its published summary."""
    return _require(CODE_CHUNK)


@pytest.fixture(scope="module")
def client():
    """A Dask client of a LocalCluster of 2 workers in this process, for a test module.
    No dashboard; the scheduler's HTTP server on a free loopback port: 8787 may be taken
    (another cluster, a user's)."""
    distributed = pytest.importorskip("dask.distributed")
    cluster = local_cluster(2)
    with distributed.Client(cluster) as connected:
        yield connected
    cluster.close()


def local_cluster(workers: int, protocol: str | None = None):
    """A Dask LocalCluster of ``workers`` in this process (one thread each; ``protocol``:
    its comms', ``tcp://`` for addresses a client connects to), no dashboard, its HTTP
    server on a free loopback port."""
    distributed = pytest.importorskip("dask.distributed")
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=False,
        protocol=protocol,
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": False},
    )


def write_tenths(folder: Path, relevant_in_top_10: dict[str, list[int]], prefix="T") -> Path:
    """Qrels and runs whose P@10 on topic ``{prefix}{i}`` is ``relevant_in_top_10[run][i] / 10``:
    each topic has 10 relevant and 10 non-relevant documents, and each run puts that many
    relevant ones first in its top 10. Means equal on paper then come out of the float
    sums a few ulp apart (0.1 + 0.2 + 0 against 0.3 + 0 + 0)."""
    folder.mkdir(parents=True, exist_ok=True)
    topics = len(next(iter(relevant_in_top_10.values())))
    qrels = [f"{prefix}{q} 0 {kind}{i} {int(kind == 'R')}" for q in range(topics) for kind in "RN"
             for i in range(10)]  # fmt: skip
    (folder / "q.qrels").write_text("\n".join(qrels) + "\n")
    for run, counts in relevant_in_top_10.items():
        lines = []
        for q, m in enumerate(counts):
            docs = [f"R{i}" for i in range(m)] + [f"N{i}" for i in range(10 - m)]
            lines += [f"{prefix}{q} Q0 {d} {i + 1} {100 - i} {run}" for i, d in enumerate(docs)]
        (folder / f"{run}.run").write_text("\n".join(lines) + "\n")
    return folder


def suite_of_x_and_y(folder: Path, name: str, measure: str, systems: list[str]) -> Path:
    """A leaderboard suite ``folder/suite.toml`` of two collections, ``x`` and ``y``, each a
    folder holding ``q.qrels`` and a ``{system}.run`` of each of ``systems``."""
    collections = "".join(
        f'[collections.{c}]\nqrels = "{c}/q.qrels"\nruns = "{c}/{{system}}.run"\n' for c in "xy"
    )
    suite = folder / "suite.toml"  # TOML's strings and arrays as JSON writes them
    head = f"name = {json.dumps(name)}\nmeasures = {json.dumps([measure])}\n"
    suite.write_text(head + f"systems = {json.dumps(systems)}\n" + collections)
    return suite


_ROW_CELLS = {
    "table": lambda line: re.split(r" {2,}", line.strip()),  # columns: two blanks apart or more
    "markdown": lambda line: [cell.strip() for cell in line.strip()[1:-1].split(" | ")],
    "latex": lambda line: [cell.strip() for cell in line.removesuffix(r" \\").split(" & ")],
}


def graded_runs(folder: Path, count: int) -> tuple[Path, list[Path]]:
    """``(qrels, runs)``: 4 topics of 8 documents graded 0-2 (a relevant at ranks 1 and 2),
    and ``count`` runs, each ordering them its own way, so that their values differ by
    topic and from one another (the HTML pages' tests read them per topic)."""
    qrels = folder / "q.qrels"
    qrels.write_text("".join(f"t{t} 0 d{d} {d % 3}\n" for t in range(4) for d in range(8)))
    runs = []
    for index in range(count):
        ranked = folder / f"r{index}.run"
        lines = (
            f"t{t} Q0 d{(d * (2 * index + 1) + t) % 8} {d} {9 - d} r{index}\n"
            for t in range(4)
            for d in range(8)
        )
        ranked.write_text("".join(lines))
        runs.append(ranked)
    return qrels, runs


def shown_rows(text: str, first_header: str, fmt: str = "table") -> list[dict[str, str]]:
    """The rows of the table in ``text`` whose header's first cell is ``first_header``, as
    the command printed them in ``fmt`` (aligned table, Markdown, LaTeX tabular): each row
    a dict from its column's header to its cell's text, read by hand here so that a
    renderer putting a number under another column's header is caught. The table ends at
    its first line of another number of cells (a blank line, a line under it, LaTeX's
    \\bottomrule); rules and Markdown's alignment row are skipped."""
    cells = _ROW_CELLS[fmt]
    lines = iter(text.splitlines())
    header = next((cells(line) for line in lines if cells(line)[0] == first_header), None)
    assert header is not None, f"no table headed {first_header!r} in:\n{text}"
    rows = []
    for line in lines:
        if line.startswith(("\\midrule", "| ---", "|---")):
            continue
        row = cells(line)
        if len(row) != len(header):
            break
        rows.append(dict(zip(header, row, strict=True)))
    return rows


def option_choices(command, name: str) -> tuple[str, ...]:
    """The choices a click ``command`` offers for its option ``name`` (a ``click.Choice``),
    as its ``--help`` lists them; the command has exactly one option of that name."""
    (choices,) = (tuple(param.type.choices) for param in command.params if param.name == name)
    return choices


def printed_under_hash_seeds(probe: str) -> set[str]:
    """What the Python code ``probe`` prints, run in a fresh interpreter under four
    ``PYTHONHASHSEED`` values (a set's order is its strings' hashes', which change from one
    process to the next): one element when the output does not depend on them."""
    import sys

    printed = set()
    for seed in ("0", "1", "2", "3"):
        environment = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env=environment
        )
        assert done.returncode == 0, done.stderr
        printed.add(done.stdout)
    return printed


def validation_texts(results, shows=(0,)) -> list[str]:
    """Every report of validation ``results`` as text: JSON, the summary line and the
    text lines with each of ``shows`` findings shown per rule (the differential tests
    compare them byte for byte)."""
    from trecbench.validation import report

    texts = [report.to_json(results), report.summary_line(results)]
    for show in shows:
        texts += ["\n".join(report.text_lines(result, show)) for result in results]
    return texts


def diff_reports(capsys, a: str, b: str, *options: str) -> tuple[int, str]:
    """``trecbench diff`` of the reports ``a`` and ``b``: its exit code and what it printed."""
    from trecbench.cli import run

    code = run(["diff", a, b, *options])
    return code, capsys.readouterr().out


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium (Selenium), the network blocked: the pages' tests."""
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("needs Debian's chromium and chromium-driver (.ci/run installs them)")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="trecbench-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 "--window-size=1280,1600", f"--user-data-dir={profile}"):  # fmt: skip
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    blocked = ["http://*", "https://*", "ws://*", "wss://*"]
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": blocked})
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def bokeh_documents_idle(browser, count: int) -> None:
    """Wait (up to 10 s) until the page in ``browser`` holds ``count`` Bokeh documents, each
    drawn (idle): the figures drawn as it opens, and those drawn when a measure is chosen."""
    import time

    ready = f"return Bokeh.documents.length == {count} && Bokeh.documents.every(d => d.is_idle)"
    for _ in range(100):
        if browser.execute_script(ready):
            return
        time.sleep(0.1)


class FifoOpenedAgain(BaseException):
    """A call still running at its deadline (:func:`fifo_deadline`): it waits in a second
    open of a FIFO."""


@contextlib.contextmanager
def fifo_deadline(folder: Path, seconds: int) -> Iterator[None]:
    """Inside the block, a call still running after ``seconds`` is interrupted (SIGALRM
    ends a wait in ``open()``; a thread waiting on a FIFO of ``folder`` is given its end),
    so that a FIFO opened a second time fails the test instead of hanging it."""

    def expired(signum, frame):
        for fifo in folder.iterdir():  # a reader waiting on one reads it empty, and ends
            if fifo.is_fifo():
                with contextlib.suppress(OSError):  # no reader waits on it
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        raise FifoOpenedAgain(f"still running after {seconds} s: a FIFO opened again")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
