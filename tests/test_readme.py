"""The README's and the docs' examples run, and the output they show is what trecbench prints.

Pages: README.md and every ``docs/**/*.md``. In each page, every fenced ``sh`` block's
``trecbench`` commands and every ``console`` block's ``$ trecbench`` commands run as
``python -m trecbench`` in a scratch copy of the bundled ``qrels/``, ``runs/`` and ``data/``
folders, with the exit status the page implies (0 unless the block is marked). ``console``
blocks and ``output-of`` examples compare the output shown with stdout exactly, so a changed
number fails here. ``python`` blocks run with ``exec`` in such a copy; an expression
followed by a comment that starts with a number, ``True`` or ``False``
(``similarity(...)  # 0.52``, ``result.ok  # True``) must evaluate to exactly that value,
a bool to a bool (``True`` is no ``# 1``).

HTML comments right before a block (or a table) control it:

- ``<!-- norun: reason -->``: shown, not run (the reason is required);
- ``<!-- exit: N -->``: every command of the block exits with N (``exit: 0 0 1``: one
  status per command, in order);
- ``<!-- needs: NAME -->``: runs in ../shared/data/NAME's files as well (skips without it);
- ``<!-- file: NAME -->``: the block is an input file NAME that every example of the page
  can use (a bundled file, ``data/leaderboard.toml``, must read as the bundled one);
- ``<!-- output-of: COMMAND -->``: the block (or table) is COMMAND's exact stdout;
- ``<!-- stderr-of: COMMAND -->``: the block is COMMAND's exact stderr (what it says it
  wrote, its notes).
"""

from __future__ import annotations

import ast
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT, SHARED, unignored

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
BUNDLED = ("qrels", "runs", "data")
MARKER = re.compile(r"^<!--\s*(norun|exit|needs|file|output-of|stderr-of):\s*(.*?)\s*-->$")
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass
class Block:
    """One example of the README: a fenced block or an `output-of` table."""

    lang: str
    line: int  # 1-based line of the opening fence in the page
    body: str
    markers: dict[str, str] = field(default_factory=dict)
    page: str = "README.md"  # relative to the repository root

    @property
    def id(self) -> str:
        return f"{self.lang}@{self.page}:{self.line}"


def parse_readme(text: str, page: str = "README.md") -> list[Block]:
    """Fenced blocks and marked tables, each with the markers written right above it."""
    lines = text.splitlines()
    blocks: list[Block] = []
    markers: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line.strip())
        fence = FENCE.match(line)
        if marker:
            markers[marker[1]] = marker[2]
        elif fence:
            end = lines.index("```", i + 1)
            body = "".join(f"{x}\n" for x in lines[i + 1 : end])
            blocks.append(Block(fence[1], i + 1, body, page=page))
            blocks[-1].markers, markers = markers, {}
            i = end
        elif line.startswith("|") and "output-of" in markers:
            rows = (j for j in range(i, len(lines)) if not lines[j].startswith("|"))
            end = next(rows, len(lines))
            body = "".join(f"{x}\n" for x in lines[i:end])
            blocks.append(Block("table", i + 1, body, markers, page))
            markers = {}
            i = end - 1
        elif line.strip():
            assert not markers, f"{page}:{i + 1}: {markers} is not right before a block"
        i += 1
    return blocks


BLOCKS = [
    block
    for page in PAGES
    for block in parse_readme(page.read_text(encoding="utf-8"), page.relative_to(ROOT).as_posix())
]
FILES: dict[str, dict[str, str]] = {}  # page -> file name -> content
for _block in BLOCKS:
    if "file" in _block.markers:
        FILES.setdefault(_block.page, {})[_block.markers["file"]] = _block.body


def commands(block: Block) -> list[tuple[str, str | None]]:
    """(command line, shown output or None) of a sh/console block or an output-of marker."""
    for marker in ("output-of", "stderr-of"):
        if marker in block.markers:
            return [(block.markers[marker], block.body)]
    if block.lang == "sh":
        joined = block.body.replace("\\\n", " ")
        return [(line, None) for line in joined.splitlines() if shlex.split(line, comments=True)]
    if block.lang == "console":
        steps = re.split(r"^\$ ", block.body, flags=re.M)
        assert steps[0] == "", f"{block.id}: a console block starts with '$ '"
        result = []
        for step in steps[1:]:
            command, _, output = step.replace("\\\n", " ").partition("\n")
            result.append((command, output))
        return result
    return []


def runnable(kind: str) -> list:
    """pytest params of the blocks that run commands, or of the python blocks (norun: skip)."""
    params = []
    for block in BLOCKS:
        if "file" in block.markers:
            continue
        is_kind = block.lang == "python" if kind == "python" else bool(commands(block))
        if not is_kind:
            continue
        norun = block.markers.get("norun")
        marks = [pytest.mark.skip(reason=norun)] if norun is not None else []
        params.append(pytest.param(block, id=block.id, marks=marks))
    return params


@pytest.fixture
def workspace(tmp_path, request) -> Path:
    """A scratch copy of the bundled data plus the page's files (the repo stays untouched)."""
    block = request.node.callspec.params["block"]
    for name in BUNDLED:
        shutil.copytree(ROOT / name, tmp_path / name)
    for name, body in FILES.get(block.page, {}).items():
        (tmp_path / name).write_text(body, encoding="utf-8")
    if "needs" in block.markers:
        shared = SHARED / block.markers["needs"]
        if not shared.is_dir():
            pytest.skip(f"{shared} not available (../shared is absent in a user's clone)")
        for path in shared.iterdir():
            shutil.copy(path, tmp_path / path.name)
    return tmp_path


def argv(command: str, cwd: Path) -> list[str]:
    """The command as the shell would run it: words, comments dropped, globs expanded."""
    words = shlex.split(command, comments=True)
    assert words[0] == "trecbench", f"only trecbench commands run here: {command!r}"
    expanded = []
    for word in words[1:]:
        matches = sorted(glob.glob(word, root_dir=cwd)) if glob.has_magic(word) else []
        expanded.extend(matches or [word])
    return [sys.executable, "-m", "trecbench", *expanded]


def assert_ignored_by_git(block: Block, workspace: Path) -> None:
    """What a block's examples wrote (and the page's files a reader saves) is ignored by
    .gitignore: run by hand from the repository's root, the pages leave `git status` clean."""
    if "needs" not in block.markers:  # ../shared's files are copied in, not written
        assert unignored(workspace) == [], f"{block.id} writes files .gitignore does not ignore"


@pytest.mark.parametrize("block", runnable("commands"))
def test_commands(block: Block, workspace: Path):
    steps = commands(block)
    statuses = [int(code) for code in block.markers.get("exit", "0").split()]
    if len(statuses) == 1:
        statuses *= len(steps)
    assert len(statuses) == len(steps), f"{block.id}: one exit status per command"
    env = {**os.environ, "COLUMNS": "100", "MPLBACKEND": "Agg"}
    for (command, shown), expected_exit in zip(steps, statuses, strict=True):
        done = subprocess.run(
            argv(command, workspace), cwd=workspace, capture_output=True, text=True, env=env
        )
        assert done.returncode == expected_exit, f"{command}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, f"{command}\n{done.stderr}"
        if "stderr-of" in block.markers:
            assert done.stderr == shown, command
        elif shown is not None:
            assert done.stdout == shown, command
    assert_ignored_by_git(block, workspace)


@pytest.mark.parametrize("block", runnable("python"))
def test_python(block: Block, workspace: Path, monkeypatch):
    monkeypatch.chdir(workspace)
    namespace: dict = {"__name__": "readme"}
    lines = block.body.splitlines()
    for statement in ast.parse(block.body).body:
        code = ast.Module([statement], type_ignores=[])
        if not isinstance(statement, ast.Expr):
            exec(compile(code, block.id, "exec"), namespace)
            continue
        value = eval(compile(ast.Expression(statement.value), block.id, "eval"), namespace)
        comment = lines[statement.end_lineno - 1][statement.end_col_offset :].strip()
        shown = annotation(comment)
        if shown is not None:
            # strictly: True is no 1 (a page that says `# 1` must show what Python prints)
            assert isinstance(value, bool) == isinstance(shown, bool), (
                f"{ast.unparse(statement)} is {value!r}, the page says {shown!r}"
            )
            assert value == shown, ast.unparse(statement)
    assert_ignored_by_git(block, workspace)


def annotation(comment: str) -> bool | float | None:
    """The value a ``# VALUE`` comment shows (a number, True or False; `:` may follow)."""
    words = comment.lstrip("#").split()
    if not comment.startswith("#") or not words:
        return None
    word = words[0].removesuffix(":")
    if word in ("True", "False"):
        return word == "True"
    return float(word) if re.fullmatch(r"-?\d+(\.\d+)?", word) else None


def test_every_example_is_checked():
    # a typo in a language tag or a marker must not silently drop an example
    langs = {b.lang for b in BLOCKS}
    assert langs <= {"sh", "console", "python", "json", "toml", "text", "table", ""}, langs
    for block in BLOCKS:
        if block.lang == "sh" and "norun" not in block.markers:
            assert commands(block), block.id
        if block.lang in {"json", "text", "toml"}:
            # shown output nobody checks would rot: it must be a file or an output-of
            assert {"file", "output-of", "stderr-of", "norun"} & set(block.markers), block.id
    assert all(b.markers.get("norun") for b in BLOCKS if "norun" in b.markers)


def test_every_input_file_is_named_where_a_reader_sees_it():
    # `<!-- file: NAME -->` is an HTML comment the built site does not show: the line of
    # prose above it must name the file (`NAME`), or a reader cannot create it
    unnamed = []
    for block in BLOCKS:
        if "file" not in block.markers:
            continue
        lines = (ROOT / block.page).read_text(encoding="utf-8").splitlines()[: block.line - 1]
        prose = [x for x in lines if x.strip() and not MARKER.match(x.strip())]
        if not prose or f"`{block.markers['file']}`" not in prose[-1]:
            unnamed.append(f"{block.page}:{block.line}: {block.markers['file']}")
    assert unnamed == []


def test_a_bundled_file_a_page_shows_is_the_bundled_one():
    # `<!-- file: data/leaderboard.toml -->` replaces the bundled file in the examples'
    # folder: what the page shows must be what a reader's clone holds (TOML: the same
    # document, the page's comments aside), or the page's output would be checked on a
    # file nobody has
    for block in BLOCKS:
        bundled = ROOT / block.markers.get("file", "")
        if "file" not in block.markers or not bundled.is_file():
            continue
        held = bundled.read_text(encoding="utf-8")
        if block.lang == "toml":
            assert tomllib.loads(block.body) == tomllib.loads(held), block.id
        else:
            assert block.body == held, block.id


def test_no_two_pages_create_one_input_file():
    # a reader follows the pages in one folder: a second page's run.txt would replace the first
    pages: dict[str, list[str]] = {}
    for block in BLOCKS:
        if "file" in block.markers:
            pages.setdefault(block.markers["file"], []).append(block.page)
    assert {name: where for name, where in pages.items() if len(where) > 1} == {}


def test_architecture_lists_every_file_of_the_package():
    # docs/architecture.md's `<!-- modules -->` block: a line per module of trecbench/ and
    # per file of its package data (the schemas, the pages' templates, styles and scripts)
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("<!-- modules -->\n```\n", 1)[1].split("```", 1)[0]
    listed = [line.split()[0] for line in block.splitlines()]
    package = ROOT / "trecbench"
    actual = [
        path.relative_to(package).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    assert sorted(listed) == sorted(actual)
    assert {"schemas/leaderboard_suite.schema.json", "html_report/templates/page.css"} < set(listed)


def test_the_examples_that_skip_without_shared_data_are_those_the_pages_name():
    # README.md and docs/index.md say which examples run only where ../shared/data holds
    # their files: those on trec_eval's test files and on the code-chunk export
    needed = {block.markers["needs"] for block in BLOCKS if "needs" in block.markers}
    assert needed == {"trec_eval-9.0.8-test", "code-chunk"}
