"""Shards served by Ray actors: `search`, `ask` and `eval --engine ray` on a sharded index.

Each shard is held open by one actor (ShardServer: an Index of the shard's folder, in the actor's
process, wherever Ray places it); the driver's ShardedIndex reads it through a RemoteShard, whose
stores forward each method call to the actor. The merge, the global BM25 statistics and the
version groups stay in the driver, exactly as for shards opened in the driver's own process
(stores/sharded.py), so the ranking is the same.

Placement: a node started with the resource `ragchain-<shard name>` (`ray start --resources
'{"ragchain-shard-000": 1}'`: the node that holds shard-000's files) gets that shard's actor;
without such a resource Ray places the actor anywhere, and the shard's folder must be readable
there at the driver's path (a shared file system, or one machine).

A lost actor (its process killed, its node gone) is restarted by Ray (MAX_RESTARTS) and the call
that hit it is retried once; a call that still fails raises ShardUnavailable naming the shard.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import RagchainError, ShardUnavailable

MAX_RESTARTS = 3
PARTS = ("docstore", "lexical", "documents", "vectors")


class ShardServer:
    """The actor: one shard's Index, open for the actor's lifetime."""

    def __init__(self, folder: str) -> None:
        from ..offline import cli_process
        from .index import Index

        cli_process()  # offline, one BLAS thread: what the CLI's own process runs with
        self.index = Index(Path(folder))

    def call(self, part: str, method: str, args: tuple):
        target = self.index if part == "index" else getattr(self.index, part)
        return getattr(target, method)(*args)

    def value(self, part: str, name: str):
        return getattr(getattr(self.index, part), name)

    def pid(self) -> int:
        import os

        return os.getpid()


class RemotePart:
    """One store of a remote shard: every method called on it runs in the shard's actor."""

    def __init__(self, shard: "RemoteShard", part: str) -> None:
        self._shard, self._part = shard, part

    def __getattr__(self, method: str):
        if method.startswith("_"):
            raise AttributeError(method)
        return lambda *args: self._shard.call(self._part, method, *args)


class RemoteShard:
    """The parts of an Index that a ShardedIndex reads, served by the shard's actor."""

    def __init__(self, ray, actor, folder: Path) -> None:
        self.ray, self.actor, self.root = ray, actor, Path(folder)
        self.docstore, self.lexical, self.documents, self.vectors = (RemotePart(self, part) for part in PARTS)
        self.vectors.dim = self._get(actor.value.remote("vectors", "dim"))

    def call(self, part: str, method: str, *args):
        return self._get(self.actor.call.remote(part, method, args))

    def _get(self, ref):
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as exc:  # the shard's own error (a mismatch, ...): raised here
            cause = getattr(exc, "cause", None)
            if isinstance(cause, RagchainError):
                raise cause from None
            raise
        except self.ray.exceptions.RayActorError as exc:
            raise ShardUnavailable(f"the shard {self.root.name} stopped answering ({_first_line(exc)})",
                                   f"check that its folder {self.root} is readable where Ray runs it, "
                                   "then ask again") from None

    def manifest(self) -> dict[str, str]:
        return self.call("index", "manifest")

    def require_analyzer(self) -> None:
        self.call("index", "require_analyzer")

    def has_documents(self) -> bool:
        return self.call("index", "has_documents")

    def check(self):
        return self.call("index", "check")

    def close(self) -> None:
        self.ray.kill(self.actor, no_restart=True)


def serve(ray, folders: list[Path]) -> list[RemoteShard]:
    """One actor per shard folder (placed on the node that declares the shard's resource, if any)."""
    declared = ray.cluster_resources()
    server = ray.remote(num_cpus=0, max_restarts=MAX_RESTARTS, max_task_retries=1)(ShardServer)
    actors = []
    for folder in folders:
        label = f"ragchain-{folder.name}"
        placed = server.options(resources={label: 0.001}) if label in declared else server
        actors.append((placed.remote(str(folder)), folder))
    return [RemoteShard(ray, actor, folder) for actor, folder in actors]


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0][:200] if lines else type(exc).__name__


__all__ = ["RemoteShard", "ShardServer", "serve"]
