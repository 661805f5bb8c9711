"""Which FalkorDB a command uses: an external one, the running serve's, or one started for it."""

from __future__ import annotations

import json

import pytest
from lighthouse_server.database import RUNNING, opened
from lighthouse_server.embedded import ServerError, start
from lighthouse_server.settings import Settings


def test_a_command_starts_the_embedded_one_briefly_and_saves_it(tmp_path):
    settings = Settings(data=str(tmp_path / "data"))
    with opened(settings) as db:
        db.select_graph("kept").query("CREATE (:Thing {name: 'x'})")
    with opened(settings) as db:  # the first one was stopped, its data saved
        assert db.select_graph("kept").ro_query("MATCH (t:Thing) RETURN t.name").result_set == [["x"]]


def test_a_command_uses_the_server_that_holds_the_data_directory(tmp_path):
    data = tmp_path / "data"
    with start(data_dir=data) as running:
        with (
            pytest.raises(ServerError, match="did not say where it listens"),
            opened(Settings(data=str(data))),
        ):
            pass
        (data / RUNNING).write_text(json.dumps({"host": running.host, "port": running.port}))
        with opened(Settings(data=str(data))) as db:
            db.select_graph("shared").query("CREATE (:Thing)")
        assert running.client().select_graph("shared").ro_query("MATCH (t) RETURN count(t)").result_set == [
            [1]
        ]


def test_an_external_falkordb_is_used_and_left_alone(tmp_path):
    with start() as external:
        settings = Settings(data=str(tmp_path / "unused"), falkordb_url=f"redis://127.0.0.1:{external.port}")
        with opened(settings) as db:
            db.select_graph("outside").query("CREATE (:Thing)")
        assert external.client().select_graph("outside").ro_query("MATCH (t) RETURN count(t)").result_set == [
            [1]
        ]
        assert not (tmp_path / "unused").exists()
    with (
        pytest.raises(ServerError, match="does not answer"),
        opened(Settings(falkordb_url="redis://127.0.0.1:1")),
    ):
        pass
