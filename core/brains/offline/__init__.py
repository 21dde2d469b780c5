"""The offline brain: PaperPilot's deterministic, embedded default (see :mod:`.brain`)."""

from core.brains.offline.brain import OfflineBrain

__all__ = ["OfflineBrain"]
