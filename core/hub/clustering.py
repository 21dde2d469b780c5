"""Seeded spherical k-means and the cosine silhouette that picks k (numpy only, deterministic).

Rows are unit vectors (pooled MiniLM embeddings), so similarity is a dot product. The same input
always gives the same clusters: k-means++ seeding from a fixed ``numpy`` generator, several
restarts, ties broken by index.
"""

from __future__ import annotations

import math

import numpy as np

SEED = 14
RESTARTS = 8
ITERATIONS = 60
SILHOUETTE_SAMPLE = 2000  # rows the silhouette looks at (seeded sample above that)


def normalize(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def kmeans(x: np.ndarray, k: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """(labels, unit centroids) of the best of RESTARTS seeded runs (lowest total cosine distance)."""
    rng = np.random.default_rng(seed)
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for _ in range(RESTARTS):
        centres = _seed(x, k, rng)
        labels = np.zeros(len(x), dtype=np.int64)
        for _ in range(ITERATIONS):
            labels = np.argmax(x @ centres.T, axis=1)
            moved = np.stack([x[labels == j].mean(0) if (labels == j).any() else centres[j] for j in range(k)])
            moved = normalize(moved)
            if np.allclose(moved, centres, atol=1e-7):
                break
            centres = moved
        cost = float((1.0 - np.sum(x * centres[labels], axis=1)).sum())
        if best is None or cost < best[0] - 1e-9:
            best = (cost, labels, centres)
    assert best is not None
    return best[1], best[2]


def _seed(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++: each next centre drawn with probability proportional to its distance."""
    chosen = [int(rng.integers(len(x)))]
    for _ in range(1, k):
        dist = np.clip(1.0 - np.max(x @ x[chosen].T, axis=1), 0.0, None)
        total = float(dist.sum())
        chosen.append(int(rng.choice(len(x), p=dist / total)) if total > 0 else int(rng.integers(len(x))))
    return x[chosen].copy()


def silhouette(x: np.ndarray, labels: np.ndarray, seed: int = SEED) -> float:
    """Mean cosine silhouette (a point alone in its cluster scores 0)."""
    if len(x) > SILHOUETTE_SAMPLE:
        pick = np.sort(np.random.default_rng(seed).choice(len(x), SILHOUETTE_SAMPLE, replace=False))
        x, labels = x[pick], labels[pick]
    dist = 1.0 - x @ x.T
    ks = np.unique(labels)
    if len(ks) < 2:
        return 0.0
    member = labels[:, None] == ks[None, :]  # n × k
    counts = member.sum(0)
    sums = dist @ member  # n × k: summed distance to each cluster
    own = np.searchsorted(ks, labels)
    n_own = counts[own] - 1
    a = np.where(n_own > 0, sums[np.arange(len(x)), own] / np.maximum(n_own, 1), 0.0)
    other = sums / counts
    other[np.arange(len(x)), own] = np.inf
    b = other.min(1)
    s = np.where(n_own > 0, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def k_range(n: int) -> range:
    """The numbers of clusters tried for n documents: about sqrt(n/2) to sqrt(2n).

    The silhouette of short-text embeddings is flat and favours 2 on small sets, so the search is
    bounded to the sizes a topic list is useful at (14 documents: 3-5 topics; 45: 5-9).
    """
    if n < 3:
        return range(1, 2)
    if n < 6:
        return range(2, n)
    low = max(2, round(math.sqrt(n / 2)))
    return range(low, max(low, min(n - 1, round(math.sqrt(2 * n)))) + 1)


def cluster(x: np.ndarray, seed: int = SEED) -> tuple[np.ndarray, np.ndarray, float]:
    """(labels, centroids, silhouette) for the k in :func:`k_range` with the best silhouette."""
    x = normalize(np.asarray(x, dtype=np.float64))
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for k in k_range(len(x)):
        if k == 1:
            return np.zeros(len(x), dtype=np.int64), normalize(x.mean(0, keepdims=True)), 0.0
        labels, centres = kmeans(x, k, seed)
        score = silhouette(x, labels, seed)
        if best is None or score > best[0] + 1e-9:
            best = (score, labels, centres)
    assert best is not None
    return best[1], best[2], best[0]
