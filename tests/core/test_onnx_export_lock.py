"""Graph builds run one at a time in a process: on a fresh cache the encoder and the router are
built from two threads (each build holds the model's weights in memory)."""

from __future__ import annotations

import threading
import time

from core import onnx_cache, onnx_runtime


def test_two_threads_never_export_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(onnx_cache, "cache_dir", lambda: tmp_path)
    running, overlaps = [], []

    def build(out):
        running.append(out.name)
        if len(running) > 1:
            overlaps.append(list(running))
        time.sleep(0.2)  # long enough for the other thread to arrive while this one builds
        out.write_bytes(b"graph")
        running.remove(out.name)

    threads = [threading.Thread(target=onnx_runtime._ensure, args=(tmp_path / f"{name}.onnx", build))
               for name in ("encoder", "router")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [] and (tmp_path / "encoder.onnx").exists() and (tmp_path / "router.onnx").exists()
