"""The HPO loader: bundled hpo3 release and trecbench's own hp.obo / hp.json parsers."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

import pytest

from trecbench.errors import InputError
from trecbench.ontology import load_ontology, parse_obo, parse_obographs

# A tiny DAG whose shortest depths make a common ancestor deeper than a term (the
# maxontsim quirk): X is a child of the root *and* of C, so δ(X) = 1 although its ancestor
# C has δ = 3.
#
#   HP:0000001 root (δ0)
#   ├── HP:0000002 A (δ1) ── HP:0000003 B (δ2) ── HP:0000004 C (δ3) ──┐
#   └───────────────────────────────────────────── HP:0000005 X (δ1) ◀┘
#                                                  └── HP:0000006 Y (δ2)
#   HP:0000007 obsolete (replaced by B); HP:0000009 is an alt_id of B;
#   HP:0000008 hangs off a term that is not in the file: unreachable, so unknown.
OBO = """format-version: 1.2
data-version: hp/releases/2099-01-31
ontology: hp

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000002
name: Alpha
is_a: HP:0000001 ! All

[Term]
id: HP:0000003
name: Beta
alt_id: HP:0000009
synonym: "Second letter" EXACT []
is_a: HP:0000002 ! Alpha

[Term]
id: HP:0000004
name: Gamma
is_a: HP:0000003 ! Beta

[Term]
id: HP:0000005
name: Xi
is_a: HP:0000001 ! All
is_a: HP:0000004 {source="x"} ! Gamma
relationship: part_of HP:0000002 ! ignored: not is_a

[Term]
id: HP:0000006
name: Ypsilon
is_a: HP:0000005 ! Xi

[Term]
id: HP:0000007
name: obsolete Old
is_obsolete: true
replaced_by: HP:0000003

[Term]
id: HP:0000008
name: Orphan
is_a: HP:0001234

[Typedef]
id: part_of
name: part of
"""

DEPTHS = {
    "HP:0000001": 0,
    "HP:0000002": 1,
    "HP:0000003": 2,
    "HP:0000004": 3,
    "HP:0000005": 1,
    "HP:0000006": 2,
}


UBERON = "http://purl.obolibrary.org/obo/UBERON_0000001"


def _obographs(path):
    iri = "http://purl.obolibrary.org/obo/HP_{}".format
    nodes = [
        {"id": iri(t[3:]), "lbl": f"term {t}", "type": "CLASS"} for t in [*DEPTHS, "HP:0000008"]
    ]
    nodes.append({"id": iri("0000007"), "type": "CLASS", "meta": {"deprecated": True}})
    nodes.append({"id": "http://purl.obolibrary.org/obo/UBERON_0000001", "type": "CLASS"})
    edges = [
        ("HP:0000002", "HP:0000001"),
        ("HP:0000003", "HP:0000002"),
        ("HP:0000004", "HP:0000003"),
        ("HP:0000005", "HP:0000001"),
        ("HP:0000005", "HP:0000004"),
        ("HP:0000006", "HP:0000005"),
        ("HP:0000008", "HP:0001234"),
    ]
    doc = {
        "graphs": [
            {
                "id": "http://purl.obolibrary.org/obo/hp.json",
                "meta": {
                    "version": "http://purl.obolibrary.org/obo/hp/releases/2099-02-28/hp.json"
                },
                "nodes": nodes,
                "edges": [{"sub": iri(s[3:]), "pred": "is_a", "obj": iri(o[3:])} for s, o in edges]
                + [{"sub": iri("0000005"), "pred": "BFO_0000050", "obj": iri("0000002")}],
            }
        ]
    }
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def obo_file(tmp_path):
    path = tmp_path / "hp.obo"
    path.write_text(OBO)
    return path


def _check_tiny(onto):
    assert {t: onto.depth(t) for t in DEPTHS} == DEPTHS
    assert len(onto) == 6 and onto.max_depth == 3
    # ancestors include the term itself; Y reaches the root through X and through C.
    assert onto.ancestors("HP:0000006") == {
        "HP:0000006",
        "HP:0000005",
        "HP:0000004",
        "HP:0000003",
        "HP:0000002",
        "HP:0000001",
    }
    assert onto.ancestors("HP:0000001") == {"HP:0000001"}
    assert set(onto.parents("HP:0000005")) == {"HP:0000001", "HP:0000004"}
    assert onto.parents("HP:0000001") == () and onto.parents("HP:0000008") == ()
    assert onto.status(["HP:0000003", "HP:0000007", "HP:0000009", "HP:0000008", "x"]) == {
        "HP:0000003": "known",
        "HP:0000007": "obsolete",
        "HP:0000009": "unknown",  # alternate id
        "HP:0000008": "unknown",  # not reachable from the root
        "x": "unknown",
    }
    assert not onto.is_active("HP:0000007") and onto.depth("HP:0000007") is None
    assert onto.ancestors("HP:0000007") == frozenset()
    assert list(onto.indices(["HP:0000001", "HP:0000007", ""])) == [0, -1, -1]


def test_obo_parser_hand_checked_depths(obo_file):
    onto = parse_obo(obo_file)
    _check_tiny(onto)
    assert onto.release == "2099-01-31"
    assert onto.label("HP:0000003") == "Beta"
    assert onto.synonyms["HP:0000003"] == ["Second letter"]
    assert onto.replaced_by == {"HP:0000007": "HP:0000003"}
    assert onto.source == str(obo_file)
    assert onto.sha256 == hashlib.sha256(obo_file.read_bytes()).hexdigest()


def test_the_ancestor_sets_are_built_when_first_asked_for(obo_file, monkeypatch):
    """Issue 31: checking ids (``convert hpo``'s ``status``) needs no ancestor sets, which
    take 0.04 s on HPO; they are built on first use, the same as built at once."""
    from trecbench.ontology import terms

    built, sets = [], terms.ancestor_sets
    monkeypatch.setattr(terms, "ancestor_sets", lambda *a: built.append(1) or sets(*a))
    onto = parse_obo(obo_file)
    assert onto.status(["HP:0000003", "x"]) == {"HP:0000003": "known", "x": "unknown"}
    assert onto.depth("HP:0000006") == 2 and built == []
    _check_tiny(onto)  # ancestors, among others: as hand-checked
    assert built == [1]


def test_obographs_parser_same_graph(tmp_path):
    onto = parse_obographs(_obographs(tmp_path / "hp.json"))
    _check_tiny(onto)
    assert onto.release == "2099-02-28"


def test_load_ontology_detects_format_and_caches(obo_file, tmp_path):
    json_file = _obographs(tmp_path / "other.json")
    assert load_ontology(obo_file).release == "2099-01-31"
    assert load_ontology(json_file).release == "2099-02-28"
    assert load_ontology(obo_file) is load_ontology(str(obo_file))


def test_a_file_rewritten_is_read_again_though_its_size_and_time_are_set_back(obo_file):
    """The cache was keyed by path, size and modification time: a file rewritten with one
    is_a changed, its size kept and its time set back (os.utime), kept the old graph."""
    before = load_ontology(obo_file)
    assert before.depth("HP:0000006") == 2
    stat = os.stat(obo_file)
    text = obo_file.read_text().replace("is_a: HP:0000005 ! Xi", "is_a: HP:0000001 ! Xi")
    obo_file.write_text(text)
    os.utime(obo_file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert os.stat(obo_file).st_size == stat.st_size
    assert load_ontology(obo_file).depth("HP:0000006") == 1


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("e.json", b"", "empty file"),
        ("e.obo", b"  \n\n", "empty file"),
        ("nj.json", b"not json", "invalid JSON: Expecting value at column 1"),
        ("nj.json.gz", gzip.compress(b"format-version: 1.2\n"), "invalid JSON"),
    ],
)
def test_an_empty_ontology_or_one_named_json_that_is_not_is_said_so(tmp_path, name, data, said):
    """An empty --ontology was 'no [Term] stanza found: not an OBO ontology', where every
    other input says 'empty file'; an hp.json holding no JSON was read as OBO ('expected
    tag: value'): a file named as JSON is read as JSON."""
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as error:
        load_ontology(path)
    assert said in error.value.message


@pytest.mark.parametrize("name", ["hp.json.obo", "hp.json", "hp.json.gz", "hp.obo.json.x"])
def test_an_obo_file_is_read_as_obo_whatever_its_name(obo_file, tmp_path, name):
    """A name holding .json anywhere (hp.json.obo) was read as JSON and refused; an OBO
    file named hp.json loads as it did (the content decides; the name only words an
    error)."""
    data = obo_file.read_bytes()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    assert load_ontology(path).release == "2099-01-31"


def test_an_obographs_file_with_a_byte_order_mark_is_read_as_json(tmp_path):
    # sniffed as OBO (the mark before its '{') and refused: no [Term] stanza found
    plain = _obographs(tmp_path / "hp.json")
    marked = tmp_path / "bom.json"
    marked.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    onto = load_ontology(marked)
    _check_tiny(onto)
    assert onto.release == "2099-02-28"


def test_an_obo_file_with_a_byte_order_mark_or_bad_bytes(tmp_path, obo_file):
    marked = tmp_path / "bom.obo"
    marked.write_bytes(b"\xef\xbb\xbf" + obo_file.read_bytes())
    _check_tiny(parse_obo(marked))
    bad = tmp_path / "bad.obo"
    bad.write_bytes(obo_file.read_bytes() + b"\nname: caf\xe9\n")
    with pytest.raises(InputError, match="not UTF-8") as info:
        parse_obo(bad)
    assert info.value.line == OBO.count("\n") + 2


def test_bad_ontology_files(tmp_path):
    with pytest.raises(InputError, match="cannot read ontology"):
        load_ontology(tmp_path / "missing.obo")
    bad = tmp_path / "bad.obo"
    bad.write_text("[Term]\nid: HP:0000001\nthis line has no colon\n")
    with pytest.raises(InputError) as info:
        parse_obo(bad)
    assert info.value.line == 3
    # a tag's colon left out where the value holds one: 'is_a HP' was a tag, skipped as
    # unknown, and the edge lost without a word (MaxOntSim 0.35 where it is 0.5)
    for line in ("is_a HP:0000002", "is_a : HP:0000002", ": HP:0000002"):
        bad.write_text(OBO.replace("is_a: HP:0000003 ! Beta", line))
        with pytest.raises(InputError, match="expected 'tag: value'") as info:
            parse_obo(bad)
        assert info.value.line == 1 + OBO[: OBO.index("is_a: HP:0000003")].count("\n")
    empty = tmp_path / "empty.obo"
    empty.write_text("format-version: 1.2\n")
    with pytest.raises(InputError, match="no \\[Term\\]"):
        parse_obo(empty)
    notjson = tmp_path / "bad.json"
    notjson.write_text("{ not json")
    with pytest.raises(InputError, match="bad.json:1: invalid JSON"):
        load_ontology(notjson)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"graphs": {}}', r"hp.json:1: graphs: expected an array, found an object"),
        ('{"graphs": []}', r"graphs: no graph"),
        ('{"graphs": [7]}', r"graphs\[0\]: expected an object, found a number"),
        ('{"graphs": [{"nodes": [1]}]}', r"graphs\[0\].nodes\[0\]: expected an object"),
        (
            '{"graphs": [{"nodes": [{"id": "HP:0000001", "meta": []}]}]}',
            r"graphs\[0\].nodes\[0\].meta: expected an object, found an array",
        ),
        (
            '{"graphs": [{"nodes": [{"id": "HP:0000001", "meta": {"deprecated": true, '
            '"basicPropertyValues": ["x"]}}]}]}',
            r"basicPropertyValues\[0\]: expected an object",
        ),
        ('{"graphs": [{"nodes": [], "edges": ["x"]}]}', r"edges\[0\]: expected an object"),
        ('{"graphs": [{"meta": 3}]}', r"graphs\[0\].meta: expected an object"),
        ('{"graphs": ' + "[" * 100_000, r"hp.json:1: JSON nested deeper than 100 levels"),
    ],
)
def test_malformed_obographs_get_one_line_errors(tmp_path, text, message):
    """Shapes that crashed the parser with AttributeError or RecursionError (issue 9.7)."""
    path = tmp_path / "hp.json"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_ontology(path)


def test_bundled_release_matches_hpo3_and_published_facts():
    from pyhpo import pyhpo as extension

    onto = load_ontology()
    # maxontsim.md: HPO 2025-11-24 in hpo3, 19,393 active terms, D = 14.
    assert onto.release == "2025-11-24"
    assert len(onto) == 19393 and onto.max_depth == 14
    assert onto.source.startswith("hpo3 ")
    # the checksum is of the extension module that embeds the data
    assert onto.sha256 == hashlib.sha256(Path(extension.__file__).read_bytes()).hexdigest()
    assert onto.depth("HP:0000001") == 0
    # independent source: hpo3's own shortest_path_to_root and all_parents, every term.
    from pyhpo import Ontology as HPO

    checked = 0
    for term in HPO:
        if term.is_obsolete:
            assert onto.status([term.id])[term.id] == "obsolete"
            continue
        assert onto.depth(term.id) == term.shortest_path_to_root(), term.id
        if int(term) % 7 == 0:  # ancestor sets are slower to compare; a seventh suffices
            assert onto.ancestors(term.id) == {p.id for p in term.all_parents} | {term.id}
        checked += 1
    assert checked == 19393


# An is_a cycle, a term defined twice, two ids in one stanza: each refused with its line
# (they made the terms on a cycle "unknown" and MaxOntSim@10 drop to 0.0, exit 0).
_CYCLE = OBO.replace("name: Alpha\nis_a: HP:0000001 ! All", "name: Alpha\nis_a: HP:0000004")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            _CYCLE,
            _CYCLE[: _CYCLE.index("is_a: HP:0000002 ! Alpha")].count("\n") + 1,
            r"is_a cycle: 'HP:0000002' -> 'HP:0000004' -> 'HP:0000003' -> 'HP:0000002'",
        ),
        (
            OBO + "\n[Term]\nid: HP:0000003\nname: Beta again\n",
            OBO.count("\n") + 2,
            r"term 'HP:0000003' defined twice \(first in the stanza at line 14\)",
        ),
        (
            OBO.replace("id: HP:0000006\n", "id: HP:0000006\nid: HP:0000016\n"),
            OBO[: OBO.index("id: HP:0000006")].count("\n") + 2,
            r"a second id in one \[Term\] stanza \(the first: 'HP:0000006'\)",
        ),
        (
            OBO.replace("name: Xi\n", "name: Xi\nis_a: HP:0000005\n"),
            OBO[: OBO.index("name: Xi")].count("\n") + 2,
            r"is_a cycle: 'HP:0000005' -> 'HP:0000005'",
        ),
    ],
)
def test_obo_cycles_and_duplicates_are_refused_with_the_line(tmp_path, text, line, message):
    path = tmp_path / "hp.obo"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as info:
        load_ontology(path)
    assert info.value.line == line


def test_obographs_cycles_and_duplicates_are_refused(tmp_path):
    path = _obographs(tmp_path / "hp.json")
    doc = json.loads(path.read_text())
    graph = doc["graphs"][0]
    iri = "http://purl.obolibrary.org/obo/HP_{}".format
    graph["edges"].append({"sub": iri("0000002"), "pred": "is_a", "obj": iri("0000006")})
    path.write_text(json.dumps(doc, indent=1))
    with pytest.raises(InputError, match=r"graphs\[0\]\.edges\[\d\]: is_a cycle: ") as info:
        load_ontology(path)
    assert info.value.line is not None
    graph["edges"].pop()
    graph["nodes"].append(dict(graph["nodes"][2]))
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"nodes\[9\]: class 'HP:0000003' defined twice"):
        load_ontology(path)


# An ontology without the root HP:0000001 (a GO file, a fragment of HPO) was read as one
# with no active term: every MaxOntSim credit 0, exit 0. Now refused in one line.
_NO_ROOT = "[Term]\nid: HP:0000002\nname: x\n\n[Term]\nid: HP:0000003\nis_a: HP:0000002\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("noroot.obo", _NO_ROOT, r"^noroot\.obo: no HP:0000001 root: not an HPO ontology$"),
        ("go.obo", "[Term]\nid: GO:0000001\nname: a\n", r"^go\.obo: no HP:0000001 root: "),
        (
            "old.obo",
            OBO.replace("name: All\n", "name: All\nis_obsolete: true\n", 1),
            r"^old\.obo: no HP:0000001 root \(it is marked obsolete\): not an HPO ontology$",
        ),
    ],
)
def test_an_ontology_without_the_root_is_refused(tmp_path, monkeypatch, name, text, message):
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(text)
    with pytest.raises(InputError, match=message):
        load_ontology(name)


def test_obographs_without_the_root_are_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = _obographs(Path("hp.json"))
    doc = json.loads(path.read_text())
    doc["graphs"][0]["nodes"].pop(0)  # the root's node; its edges stay, dangling
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"^hp\.json: no HP:0000001 root: not an HPO ontology$"):
        load_ontology(path)


def test_terms_left_out_of_the_active_set_are_warned_of(obo_file, tmp_path):
    """HP:0000008's is_a names an id the file does not define: left out without a word."""
    from trecbench import input_warnings

    orphan = OBO.index("id: HP:0000008")
    warning = (
        f"{obo_file}: 1 is_a edge to an id the file does not define, left out (the first: "
        f"'HP:0000008' is_a 'HP:0001234', line {OBO[:orphan].count(chr(10)) + 3}); 1 term "
        "without an is_a path to HP:0000001: unknown to MaxOntSim (0 against any other id; "
        f"the first: 'HP:0000008', line {OBO[:orphan].count(chr(10))})"
    )
    assert parse_obo(obo_file).warnings == (warning,)
    for _ in range(2):  # read once, cached; carried by every call
        with input_warnings.collected() as said:
            load_ontology(obo_file)
        assert said == [warning]
    onto = parse_obographs(_obographs(tmp_path / "hp.json"))
    assert len(onto.warnings) == 1
    assert "1 is_a edge to an id the file does not define" in onto.warnings[0]
    assert "1 term without an is_a path" in onto.warnings[0]
    # an is_a edge whose obj is another ontology's, no text or missing: left out without a
    # word, where OBO's reader says it of an is_a line; now each is one of the edges said
    path = _obographs(tmp_path / "odd.json")
    doc = json.loads(path.read_text())
    sub = "http://purl.obolibrary.org/obo/HP_0000006"
    # (UBERON_0000001 is a node of the file: another ontology's class it defines, left out
    # as OBO's reader leaves out an is_a to its stanza)
    objs = ["http://purl.obolibrary.org/obo/UPHENO_0000001", 7, UBERON, None]
    doc["graphs"][0]["edges"] += [{"sub": sub, "pred": "is_a", "obj": obj} for obj in objs]
    doc["graphs"][0]["edges"][-1].pop("obj")
    path.write_text(json.dumps(doc))
    (said,) = parse_obographs(path).warnings
    assert "4 is_a edges to an id the file does not define" in said
    assert UBERON not in said
    # a node whose id is no text (a list) names nothing: it was an internal error, exit 70
    doc["graphs"][0]["nodes"].append({"id": ["x"]})
    path.write_text(json.dumps(doc))
    assert parse_obographs(path).warnings == (said,)
    assert parse_obographs(path).depth("HP:0000006") == DEPTHS["HP:0000006"]  # as it was
    # a complete file says nothing
    complete = tmp_path / "complete.obo"
    complete.write_text(OBO[: OBO.index("[Term]\nid: HP:0000008")])
    assert parse_obo(complete).warnings == ()


def test_a_json_array_is_refused_as_no_obo_graphs_not_parsed_as_obo(tmp_path):
    # a Phentrieve cases file given to --ontology was read as OBO: "expected 'tag: value'"
    cases = tmp_path / "cases.json"
    cases.write_text('\n  [{"case_id": "1", "expected_hpo_ids": ["HP:0000118"]}]\n')
    with pytest.raises(InputError) as refused:
        load_ontology(cases)
    assert str(refused.value) == (
        f"{cases}:2: not an OBO Graphs JSON (such as hp.json): a JSON array"
    )
