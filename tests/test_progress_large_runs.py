"""What a run scored in blocks tells ``progress`` (reviewer 402): a scattered run held
whole is scored in parts on a bar with its total, a spilled or streamed run's topics have
a total (an ETA), every job is timed from its start (it tells 0 done first), and --dask
refuses --memory and --jobs, which it would ignore."""

from __future__ import annotations

import pytest

from trecbench import evaluate, memory

TOPICS, DOCS = 6, 20
# the values per topic are compared whole: official's summaries (num_q, gm_map, runid),
# which have none, are left out of to_long(per_query=True) as they should be, with a word
pytestmark = pytest.mark.filterwarnings("ignore::trecbench.errors.PerTopicWarning")


def _write(tmp_path, scattered: bool):
    lines = [f"q{t} Q0 d{d} {d + 1} {100 - d} tag\n" for t in range(TOPICS) for d in range(DOCS)]
    if scattered:  # the topics in turns: each in DOCS stretches
        lines = [lines[t * DOCS + d] for d in range(DOCS) for t in range(TOPICS)]
    (tmp_path / "run").write_text("".join(lines))
    judged = [f"q{t} 0 d{d} {(d + t) % 3}\n" for t in range(TOPICS) for d in range(0, DOCS, 2)]
    (tmp_path / "qrels").write_text("".join(judged))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _scored(qrels, run, mib, calls=None):
    told = None if calls is None else lambda *call: calls.append(call)
    result = evaluate(qrels, run, ["official"], memory=mib, progress=told)
    topics = [call[1:] for call in calls or () if call[0] == "scoring topics"]
    return result.to_long(per_query=True).to_dict("records"), topics


@pytest.mark.parametrize(
    ("scattered", "mib"),
    [(True, 4096), (True, 1), (False, 4096)],
    ids=["scattered-held-whole", "scattered-spilled", "streamed"],
)
def test_a_run_in_blocks_tells_its_topics_with_a_total(tmp_path, monkeypatch, scattered, mib):
    qrels, run = _write(tmp_path, scattered)
    expected, _ = _scored(qrels, run, None)  # scored as one block: the same numbers
    monkeypatch.setattr(memory, "BLOCK_LINES", 2 * DOCS)  # two topics a block
    assert memory.Budget(mib).in_blocks(run)
    got, topics = _scored(qrels, run, mib, [])
    assert got == expected
    # timed from the start (told 0 done first), then scored in several steps, each with
    # the total: the held-whole run told nothing until it was over, "6 topics" with no total
    assert topics[0][0] == 0 and topics[-1] == (TOPICS, TOPICS)
    steps = [call for call in topics if call[0] > 0]
    assert len(steps) >= 2 and all(total is not None for _, total in steps), topics
    if scattered:  # all the topics known before the first is scored
        assert all(total == TOPICS for _, total in steps), topics
        # and scored once all are read: timed from then (the reading was no scoring, and
        # counted in its rate gave an inflated ETA), a 0 told with the total first
        assert topics[: topics.index((0, TOPICS))] == [(0, None)], topics


def test_dask_partitions_are_timed_from_the_start():
    from trecbench.dask_tasks import Told

    calls = []
    told = Told(lambda *call: calls.append(call), None, 4)
    told("scored", 0)
    assert calls == [("scoring partitions", 0, 4), ("scoring partitions", 1, 4)]


def test_dask_partitions_are_drawn_after_the_files_read(tmp_path):
    # review 721: an empty "scoring partitions 0/4" bar came first, then the files' bar
    from trecbench.cli.progress import TaskProgress
    from trecbench.dask_tasks import Told

    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1 t\n")
    progress = TaskProgress()
    told = Told(progress, [str(tmp_path / "r.run")], 4)
    assert progress.label is None and "scoring partitions" in progress.starts
    told("facts", 0)
    assert progress.label == f"reading {tmp_path / 'r.run'}"
    progress.close()


@pytest.mark.parametrize("option", [["--memory", "512"], ["--jobs", "2"]])
def test_dask_refuses_memory_and_jobs(tmp_path, capsys, option):
    from trecbench.cli import run

    qrels, run_file = _write(tmp_path, False)
    code = run(["score", "--dask", "local:1", *option, qrels, run_file])
    err = capsys.readouterr().err
    assert code != 0 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "--memory and --jobs" in err and "--dask" in err, err


def test_a_spilled_block_scored_in_parts_tells_the_run_s_total(tmp_path, monkeypatch):
    # reviewer 420: a spilled block larger than a block is scored in parts, which told
    # their own block's end as the run's (the bar said 255/255 100%, then .../2000)
    qrels, run = _write(tmp_path, True)
    expected, _ = _scored(qrels, run, None)
    monkeypatch.setattr(memory, "BLOCK_LINES", 3 * DOCS)  # a spill's blocks: ~3 topics
    monkeypatch.setattr(memory.Budget, "block_lines", property(lambda _: DOCS))
    assert memory.Budget(1).in_blocks(run)
    got, topics = _scored(qrels, run, 1, [])
    assert got == expected
    scored = [call for call in topics if call[0] > 0]
    assert len(scored) > 3 and all(total == TOPICS for _, total in scored), topics


def test_a_job_that_tells_0_done_again_is_timed_from_then(monkeypatch):
    from trecbench.cli import progress as bars

    now = [100.0]
    monkeypatch.setattr(bars.time, "monotonic", lambda: now[0])
    tasks = bars.TaskProgress(delay=1000)  # nothing drawn
    tasks("scoring topics", 0, None)  # told as a spilled run starts to be read
    now[0] = 160.0  # read and spilled for a minute: no topic scored
    tasks("scoring topics", 0, TOPICS)  # its scoring starts
    now[0] = 161.0
    tasks("scoring topics", 3, TOPICS)
    assert tasks.starts["scoring topics"] == 160.0  # 3 topics/s, not 3 in 61 s
    tasks("scoring topics", TOPICS, TOPICS)
    assert tasks.starts["scoring topics"] == 160.0
    # a streamed run's first block: timed from the 0 told at its start
    tasks = bars.TaskProgress(delay=1000)
    tasks("scoring topics", 0, None)
    now[0] = 170.0
    tasks("scoring topics", 2, 8)
    assert tasks.starts["scoring topics"] == 161.0


@pytest.mark.parametrize("option", [{"memory": 256}, {"jobs": 2}, {"memory": 256, "jobs": 2}])
def test_the_dask_api_refuses_memory_and_jobs(tmp_path, option):
    # reviewer 420: trecbench.dask.evaluate took them and ignored them (the CLI refused)
    from trecbench import dask as tbdask
    from trecbench.errors import UsageError

    qrels, run_file = _write(tmp_path, False)
    words = "memory and jobs bound the scoring in this process; Dask scores the runs on"
    with pytest.raises(UsageError, match=f"^{words}") as refused:  # before a cluster starts
        tbdask.evaluate(qrels, run_file, ["P.5"], client="local:1", **option)
    assert "\n" not in str(refused.value) and "--" not in str(refused.value)
