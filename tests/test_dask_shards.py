"""A run of several shards on Dask (a LocalCluster of 2 workers in this process): the
error it raises is the one one process reading the shards in turn raises, whichever
worker fails first."""

from __future__ import annotations

import os

import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("dask.distributed")

import trecbench.dask as tbdask  # noqa: E402
from trecbench import InputError  # noqa: E402


def _lines(topic: int, count: int, bad_at: int | None = None) -> str:
    return "".join(
        f"q{topic} Q0 d{n} {n + 1} {'abc' if n + 1 == bad_at else 1000 - n} sys\n"
        for n in range(count)
    )


def test_the_first_shard_in_order_with_an_error_is_named_whichever_fails_first(tmp_path, client):
    """Reviewer 351: p2 or p5 named at random. p2 is long, its error on its last line, so
    that a worker fails on p5 (short, its error on line 2) well before p2 is read."""
    (tmp_path / "qrels").write_text("".join(f"q{t} 0 d1 1\n" for t in range(6)))
    for n in range(1, 7):
        count, bad_at = (300_000, 300_000) if n == 2 else (20, 2 if n == 5 else None)
        (tmp_path / f"p{n}.run").write_text(_lines(n, count, bad_at))
    for _ in range(2):
        with pytest.raises(InputError) as raised:
            tbdask.evaluate(str(tmp_path / "qrels"), str(tmp_path / "p*.run"), client=client)
        assert raised.value.cli_line().startswith(f"{tmp_path / 'p2.run'}:300000:score: ")


@pytest.mark.parametrize(("text", "why"), [("", "empty file"), ("\n\n", "no data lines")])
def test_an_empty_shard_is_skipped_with_a_warning_naming_it(tmp_path, client, text, why):
    """Reviewer 351: one empty shard failed the whole run (R26); sharded retrieval writes
    empty shards. The others score as their concatenation does in one process. A shard of
    blank lines alone failed it too (R9), where trec_eval scores the concatenation."""
    from trecbench import evaluate

    (tmp_path / "qrels").write_text("".join(f"q{t} 0 d{t} 1\n" for t in range(4)))
    shards = tmp_path / "shards"
    shards.mkdir()
    (shards / "a.run").write_text(_lines(1, 5) + _lines(2, 5))
    (shards / "b.run").write_text(text)
    (shards / "c.run").write_text(_lines(3, 5))
    (tmp_path / "all.run").write_text(_lines(1, 5) + _lines(2, 5) + text + _lines(3, 5))
    qrels = str(tmp_path / "qrels")
    there = tbdask.evaluate(qrels, str(shards), client=client)
    here = evaluate(qrels, str(tmp_path / "all.run"))
    assert there.to_frame().values.tolist() == here.to_frame().values.tolist()
    skipped = f"{shards / 'b.run'}: {why}, skipped (the run's other files are scored)"
    assert there.warnings == [skipped]  # the command says it: trecbench: warning: ...
    assert [r["lines"] for r in there.runs[0].file_records] == [10, 0, 5]


def test_a_parquet_shard_of_no_row_is_skipped_with_a_warning_as_text_is(tmp_path, client):
    """A 0-row Parquet file among a run's files was taken without a word (text shards are
    said to be skipped); alone, it is refused as one process refuses it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "qrels").write_text("1 0 d1 1\n2 0 d3 1\n")
    rows = {"qid": ["1", "2"], "docno": ["d1", "d3"], "score": [2.0, 1.0], "tag": ["t", "t"]}
    table = pa.table(rows)
    (tmp_path / "pq").mkdir()
    pq.write_table(table, tmp_path / "pq" / "p0.parquet")
    pq.write_table(table.slice(0, 0), tmp_path / "pq" / "p1.parquet")
    qrels = str(tmp_path / "qrels")
    there = tbdask.evaluate(qrels, str(tmp_path / "pq"), ["num_ret"], client=client)
    skipped = f"{tmp_path / 'pq' / 'p1.parquet'}: empty file, skipped (the run's other files"
    assert [w[: len(skipped)] for w in there.warnings] == [skipped]
    assert there.to_frame().values.tolist() == [[2.0]]
    with pytest.raises(InputError) as raised:
        tbdask.evaluate(qrels, str(tmp_path / "pq" / "p1.parquet"), client=client)
    assert raised.value.cli_line() == f"{tmp_path / 'pq' / 'p1.parquet'}: error[R26]: empty file"


@pytest.mark.parametrize(
    ("text", "refusal"), [("", "error[R26]: empty file"), ("\n", "error[R9]: no data lines")]
)
def test_a_run_of_empty_shards_only_is_refused_in_one_line(tmp_path, client, text, refusal):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    for name in ("a.run", "b.run"):
        (tmp_path / name).write_text(text)
    with pytest.raises(InputError) as raised:
        tbdask.evaluate(str(tmp_path / "qrels"), str(tmp_path / "*.run"), client=client)
    assert raised.value.cli_line() == f"{tmp_path / '*.run'}: all 2 files of the run are empty"
    with pytest.raises(InputError) as raised:  # one file: as one process says it
        tbdask.evaluate(str(tmp_path / "qrels"), str(tmp_path / "a.run"), client=client)
    assert raised.value.cli_line() == f"{tmp_path / 'a.run'}: {refusal}"


def test_the_command_line_takes_a_folder_of_shards_as_the_library_does(tmp_path, client, capsys):
    """score --dask FOLDER refused it ('cannot read: Is a directory', exit 2) where
    trecbench.dask.evaluate(qrels, FOLDER) scores its files; without --dask it is
    refused still, as one process reads a file."""
    from trecbench.cli import run
    from trecbench.errors import ExitCode

    qrels, shards = str(tmp_path / "qrels"), tmp_path / "shards"
    (tmp_path / "qrels").write_text("".join(f"q{t} 0 d{t} 1\n" for t in range(3)))
    shards.mkdir()
    (shards / "a.run").write_text(_lines(1, 5) + _lines(2, 5))
    (shards / "b.run").write_text(_lines(0, 5))
    (tmp_path / "all.run").write_text(_lines(1, 5) + _lines(2, 5) + _lines(0, 5))
    asked = ["score", "-q", "-m", "P.5", "-m", "recip_rank", qrels]
    assert run([*asked, str(tmp_path / "all.run")]) == 0
    here = capsys.readouterr().out
    assert run([*asked, "--dask", client.scheduler.address, str(shards)]) == 0
    assert capsys.readouterr().out == here
    assert run([*asked, str(shards)]) == ExitCode.INPUT
    assert capsys.readouterr().err == f"trecbench: {shards}: cannot read: Is a directory\n"


def test_the_files_read_and_the_partitions_scored_are_told_as_they_finish(tmp_path, client):
    """Reviewer 351: score --dask drew no bar at all (29 s on many shards)."""
    from trecbench.cli.progress import TaskProgress

    (tmp_path / "qrels").write_text("".join(f"q{t} 0 d1 1\n" for t in range(6)))
    for n in range(4):
        (tmp_path / f"p{n}.run").write_text(_lines(n, 30))
    told: list[tuple] = []
    tbdask.evaluate(
        str(tmp_path / "qrels"),
        str(tmp_path / "p*.run"),
        client=client,
        partitions=3,
        progress=lambda label, done, total=None: told.append((label, done, total)),
    )
    size = sum((tmp_path / f"p{n}.run").stat().st_size for n in range(4))
    reading = [(done, total) for label, done, total in told if label == "reading 4 files"]
    assert reading[-1] == (size, size) and all(total == size for _, total in reading)
    assert [done for done, _ in reading] == sorted(done for done, _ in reading)
    scoring = [(done, total) for label, done, total in told if label == "scoring partitions"]
    # timed from the start (0 told), undrawn (no total) until the files' bar is done
    assert scoring == [(0, None), (1, 3), (2, 3), (3, 3)]
    assert told.index(("reading 4 files", size, size)) < told.index(("scoring partitions", 1, 3))
    assert TaskProgress().units["scoring partitions"] == " partitions"


def test_one_text_file_is_scored_in_partitions_of_a_bounded_size(tmp_path, client, monkeypatch):
    """Reviewer 448: an 85 MB run file was one partition, its bar at 0/1 for 5.8 s."""
    import trecbench
    from trecbench import dask_files

    (tmp_path / "qrels").write_text("".join(f"q{t} 0 d{t} 1\n" for t in range(8)))
    (tmp_path / "r.run").write_text("".join(_lines(t, 40) for t in range(8)))
    size = (tmp_path / "r.run").stat().st_size
    monkeypatch.setattr(dask_files, "TEXT_PARTITION_BYTES", size // 4 + 1)  # 4 partitions
    told: list[tuple] = []
    on_dask = tbdask.evaluate(
        str(tmp_path / "qrels"),
        str(tmp_path / "r.run"),
        ["P.5", "map"],
        client=client,
        progress=lambda label, done, total=None: told.append((label, done, total)),
    )
    scoring = [(done, total) for label, done, total in told if label == "scoring partitions"]
    assert scoring == [(0, None), (1, 4), (2, 4), (3, 4), (4, 4)]
    here = trecbench.evaluate(str(tmp_path / "qrels"), str(tmp_path / "r.run"), ["P.5", "map"])
    assert on_dask.to_frame().equals(here.to_frame())


@pytest.mark.parametrize("suffix", [".run", ".parquet"])
def test_a_relative_path_is_opened_from_the_folder_it_was_named_in(
    tmp_path, client, monkeypatch, suffix
):
    """A scheduler's workers run in folders of their own: a relative TREC text path was
    opened there, another file of that name scored with exit 0 (and a Parquet file's
    checksum taken of it). Here the folder changes between naming the run and scoring it,
    as the workers' differs from the client's; the run is named as given."""
    import hashlib

    import pyarrow as pa
    import pyarrow.parquet as pq

    from trecbench import evaluate

    def write(folder, first: str) -> None:
        folder.mkdir()
        if suffix == ".parquet":
            rows = {"qid": ["q1", "q1"], "docno": [first, "d9"], "score": [2.0, 1.0]}
            pq.write_table(pa.table(rows), folder / "run.parquet")
        else:
            (folder / "run.run").write_text(f"q1 Q0 {first} 1 2.0 t\nq1 Q0 d9 2 1.0 t\n")

    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    write(tmp_path / "mine", "d1")  # relevant at rank 1
    write(tmp_path / "workers", "d5")  # another file of that name: nothing relevant
    monkeypatch.chdir(tmp_path / "mine")
    run = tbdask.DaskRun(f"run{suffix}", client=client)
    monkeypatch.chdir(tmp_path / "workers")
    there = evaluate(str(tmp_path / "qrels"), run, ["P@1"])
    assert there.to_dict() == {"q1": {"P@1": 1.0}}
    record = there.runs[0].record
    digest = hashlib.sha256((tmp_path / "mine" / f"run{suffix}").read_bytes()).hexdigest()
    assert (record["path"], record["sha256"]) == (f"run{suffix}", digest)


def test_a_relative_run_s_warnings_and_errors_name_it_as_given(tmp_path, client, monkeypatch):
    # the workers open it by its absolute path: what they say of it is said of the path
    # given, as one process says it (errors.path_renamed; no test failed without it)
    from trecbench import evaluate

    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "crlf.run").write_bytes(b"q1 Q0 d1 1 2.0 t\r\nq1 Q0 d9 2 1.0 t\r\n")
    (tmp_path / "bad.run").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d9 2 abc t\n")
    monkeypatch.chdir(tmp_path)
    warned = evaluate("qrels", tbdask.DaskRun("crlf.run", client=client), ["P@1"])
    assert [text.split(":")[:2] for text in warned.warnings] == [["crlf.run", " warning[R24]"]]
    with pytest.raises(InputError) as refused:
        evaluate("qrels", tbdask.DaskRun("bad.run", client=client), ["P@1"])
    assert refused.value.cli_line().startswith("bad.run:2:score: error[R12]: "), refused.value


def test_a_parquet_shard_whose_footer_cannot_be_read_is_refused_in_one_line(tmp_path, client):
    # Dask's ArrowInvalid ("An error occurred while calling the read_parquet method
    # ...\nOriginal Message: ...") was an internal error, exit 70
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "cut.parquet").write_bytes(b"PAR1" + b"\0" * 64)
    with pytest.raises(InputError) as raised:
        tbdask.evaluate(str(tmp_path / "qrels"), str(tmp_path / "cut.parquet"), client=client)
    assert raised.value.cli_line().startswith(
        f"{tmp_path / 'cut.parquet'}: not a readable Parquet file: "
    )
    assert "\n" not in raised.value.cli_line()


@pytest.mark.parametrize("given", ["hp.obo", "link/../hp.obo"])
def test_the_workers_open_a_relative_ontology_from_the_client_s_folder(
    tmp_path, client, monkeypatch, given
):
    """--ontology onto.obo on a scheduler's workers, in folders of their own, read their
    folder's onto.obo (MaxOntSim 0.3533 where the user's file gives 0.7067, exit 0): the
    plan the workers take names it by absolute path; the evaluation names it as given.
    ``link/..`` is the link's target's parent, as the system resolves it (abspath's text
    drop of it opened another file, even on a local cluster)."""
    from test_ontology import OBO

    from trecbench import evaluate, evaluation

    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "client").mkdir()
    (tmp_path / "client" / "link").symlink_to(tmp_path / "deep" / "er")
    (tmp_path / "client" / "hp.obo").write_text(OBO.replace("HP:0000004", "HP:0000008"))
    folder = tmp_path / "client" if given == "hp.obo" else tmp_path / "deep"
    (folder / "hp.obo").write_text(OBO)
    (tmp_path / "q").write_text("q1 0 HP:0000004 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 HP:0000004 1 1 r\n")
    monkeypatch.chdir(tmp_path / "client")
    taken = []
    score_block = evaluation.score_block

    def spied(table, plan, *args, **kwargs):
        taken.append(plan.settings.ontology)
        return score_block(table, plan, *args, **kwargs)

    monkeypatch.setattr(evaluation, "score_block", spied)
    options = {"ontology": given}
    runs = ("../q", "../r.run")
    there = tbdask.evaluate(*runs, ["MaxOntSim@1"], options=options, client=client)
    (opened,) = set(taken)
    assert os.path.isabs(opened) and os.path.samefile(opened, folder / "hp.obo")
    assert there.settings.ontology == given
    here = evaluate(*runs, ["MaxOntSim@1"], options=options)
    assert [r.summary for r in there.runs] == [r.summary for r in here.runs]
    assert here.runs[0].summary["maxontsim_1"] == 1.0


def test_a_parquet_shard_with_a_damaged_page_is_named(tmp_path, client):
    # its footer reads, a data page does not: Arrow's words alone ("Couldn't deserialize
    # thrift ...") were said, naming no file of the run's shards
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    rows = 2000
    table = pa.table(
        {
            "qid": [f"q{n % 7}" for n in range(rows)],
            "docno": [f"d{n}" for n in range(rows)],
            "score": [float(n) for n in range(rows)],
        }
    )
    pq.write_table(table, tmp_path / "p1.parquet")
    pq.write_table(table, tmp_path / "p2.parquet")
    data = bytearray((tmp_path / "p2.parquet").read_bytes())
    at = pq.ParquetFile(tmp_path / "p2.parquet").metadata.row_group(0).column(1).data_page_offset
    data[at + 20 : at + 220] = b"\xff" * 200
    (tmp_path / "p2.parquet").write_bytes(bytes(data))
    with pytest.raises(InputError) as raised:
        tbdask.evaluate(str(tmp_path / "qrels"), str(tmp_path / "p*.parquet"), client=client)
    assert raised.value.cli_line().startswith(
        f"{tmp_path / 'p2.parquet'}: not a readable Parquet file: "
    )


def test_a_worker_opens_link_dot_dot_as_the_system_resolves_it(tmp_path, monkeypatch):
    # os.path.abspath("link/../r.run") drops "link/.." unread: another file than the
    # one the client (and the system) opens, the link's target's parent's
    from trecbench.dask_files import worker_path

    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "client").mkdir()
    (tmp_path / "client" / "link").symlink_to(tmp_path / "deep" / "er")
    (tmp_path / "deep" / "r.run").write_text("theirs")
    (tmp_path / "client" / "r.run").write_text("decoy")
    monkeypatch.chdir(tmp_path / "client")
    opened = worker_path("link/../r.run")
    assert os.path.isabs(opened) and open(opened).read() == open("link/../r.run").read()
