"""Ray, for the two things ragchain spreads over a cluster: ingest (`--engine ray`,
ingest/ray_engine.py, ingest/sharded.py) and a sharded index's shards at query time
(stores/shard_actors.py): importing it with a clear error, and joining or starting a cluster.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

from .errors import DependencyMissing, RagchainError


class ClusterError(RagchainError):
    """The Ray cluster named by --ray-address cannot be joined."""


def import_ray(data: bool = True):
    """Ray (with Ray Data when `data`: what ingest needs), or DependencyMissing."""
    try:
        import ray

        if data:
            import ray.data  # noqa: F401
    except ImportError:
        raise DependencyMissing("--engine ray needs Ray, the optional `ray` extra",
                                "from the checkout: pip install -e '.[ray]' (./install.sh --dev has it); "
                                "or run with --engine local") from None
    return ray


@contextmanager
def session(ray, address: str):
    """The caller's Ray when it is already connected (library use, tests); else join `address`
    ("auto" as Ray reads it, or host:port), or start a local Ray for this run and stop it after."""
    if ray.is_initialized():
        yield
        return
    # "local" is a new Ray for this run: without it ray.init() joins whatever cluster `ray start` (or a
    # stale /tmp/ray/ray_current_cluster) names, and waits on a dead one
    options = {"address": address} if address else {"address": "local", "include_dashboard": False}
    try:
        ray.init(logging_level=logging.WARNING, **options)
    except (ConnectionError, ValueError) as exc:
        raise ClusterError(f"cannot join the Ray cluster at {address!r}: {exc}",
                           "check --ray-address (or RAY_ADDRESS with 'auto'), or leave it out to run "
                           "Ray on this machine") from None
    try:
        yield
    finally:
        ray.shutdown()


__all__ = ["ClusterError", "import_ray", "session"]
