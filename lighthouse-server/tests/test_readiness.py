"""An embedder or a model configured but unusable is refused before serve starts anything (the local
embedder without its extra is refused in test_wheels.py, in a venv where the extra is not installed)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from lighthouse_server.readiness import check, unmet
from lighthouse_server.settings import Settings, SettingsError
from service_process import environment


def test_a_usable_configuration_has_nothing_unmet():
    assert unmet(Settings()) == []
    assert unmet(Settings(embedder="local")) == []  # the extra is installed in the repository's environment
    assert unmet(Settings(embedder="http", embeddings_url="http://127.0.0.1:9", embeddings_model="m")) == []
    assert unmet(Settings(model_url="http://127.0.0.1:9")) == []  # a model without a name writes as "unnamed"
    assert unmet(Settings(model_url="http://127.0.0.1:9", model_name="m")) == []
    check(Settings(embedder="local"))


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        ({"embedder": "http"}, ["needs embeddings_url", "needs embeddings_model"]),
        ({"embedder": "http", "embeddings_url": "http://127.0.0.1:9"}, ["needs embeddings_model"]),
        ({"embeddings_url": "http://127.0.0.1:9"}, ["the embedder is empty"]),
        ({"embedder": "local", "embeddings_model": "m"}, ["the embedder is local"]),
        ({"model_name": "m"}, ["model_url (LIGHTHOUSE_MODEL_URL) is empty"]),
    ],
)
def test_what_cannot_work_is_said_with_what_to_change(settings, said):
    found = unmet(Settings(**settings))
    assert len(found) == len(said) and all(words in line for words, line in zip(said, found, strict=True))
    with pytest.raises(SettingsError, match="cannot start"):
        check(Settings(**settings))


def test_serve_refuses_to_start_in_one_line_and_exits_2(tmp_path):
    refused = subprocess.run(  # refused before the port (1, not ours to take) is even tried
        [
            sys.executable,
            "-m",
            "lighthouse_server.command",
            "serve",
            "--data",
            str(tmp_path / "data"),
            "--port",
            "1",
        ],
        env=environment(LIGHTHOUSE_EMBEDDER="http"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "embeddings_url (LIGHTHOUSE_EMBEDDINGS_URL)" in refused.stderr
    assert not (tmp_path / "data").exists()  # nothing was started
