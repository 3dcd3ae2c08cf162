"""ir_metadata blocks at the top of a run: found, parsed, refused at their line, written."""

from __future__ import annotations

import pytest

from trecbench.errors import InputError
from trecbench.inputs import ir_metadata

BLOCK = (
    b"# ir_metadata.start\n"
    b"# tag: bm25\n"
    b"# method:\n"
    b"#   retrieval:\n"
    b"#     - name: bm25\n"
    b"#       k1: 0.9\n"
    b"# ir_metadata.end\n"
)
LINE = b"301 Q0 d1 1 2.5 bm25\n"


def test_a_block_is_found_with_its_lines_and_yaml():
    block = ir_metadata.find_block(BLOCK + LINE, "run")
    assert (block.lines, block.size) == (7, len(BLOCK))
    assert ir_metadata.parse(block, "run") == {
        "tag": "bm25",
        "method": {"retrieval": [{"name": "bm25", "k1": 0.9}]},
    }


@pytest.mark.parametrize("text", [LINE, b"# ir_metadata.started\n" + LINE, b"#ir_metadata.start\n"])
def test_text_without_a_block_has_none(text):
    assert ir_metadata.find_block(text, "run") is None


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (BLOCK.replace(b"# ir_metadata.end\n", b""), 7, "has no '# ir_metadata.end' before"),
        (BLOCK.replace(b"#       k1", b"        k1"), 6, "has no '# ir_metadata.end' before"),
        (BLOCK.replace(b"#   retrieval:", b"# retrieval: [unclosed"), 5, "not valid YAML"),
        (b"# ir_metadata.start\n# - a list\n# ir_metadata.end\n", 2, "not a mapping"),
    ],
)
def test_malformed_blocks_are_refused_at_their_line(text, line, message):
    with pytest.raises(InputError) as caught:
        block = ir_metadata.find_block(text + LINE, "run.txt")
        ir_metadata.parse(block, "run.txt")
    assert caught.value.line == line
    assert message in str(caught.value)


def test_a_block_at_the_end_of_the_text_without_its_end_marker_never_ends():
    with pytest.raises(InputError, match="never ends"):
        ir_metadata.find_block(b"# ir_metadata.start\n# tag: x\n", "run")


def test_a_written_block_reads_back():
    metadata = {"tag": "rrf", "inputs": ["a.run", "b.run"], "note": "k: 60 # not a comment"}
    text = ir_metadata.block_text(metadata).encode()
    block = ir_metadata.find_block(text + LINE, "run")
    assert block.size == len(text)
    assert ir_metadata.parse(block, "run") == metadata
