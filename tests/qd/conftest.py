"""Fixtures shared by the qd tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ga_resumes_from_every_generation(tmp_path, monkeypatch):
    """Check that a GA resumed from the checkpoint of any generation gives the uninterrupted result.

    ``check(cfg)`` runs the GA once, keeping the checkpoint written after every generation, then
    resumes from each of them and compares; it returns the checkpoints' texts.
    """
    import qd.ga as ga

    def check(cfg) -> list[str]:
        saved: list[str] = []
        real = ga.save_ga_checkpoint

        def keep(path, *args):
            real(path, *args)
            saved.append(Path(path).read_text())

        monkeypatch.setattr(ga, "save_ga_checkpoint", keep)
        full = ga.run_ga(cfg, progress=False, checkpoint=tmp_path / "full.json").as_dict()
        monkeypatch.undo()
        assert len(saved) == cfg.generations
        for k, text in enumerate(saved):
            part = tmp_path / f"gen{k}.json"
            part.write_text(text)
            assert ga.run_ga(cfg, progress=False, checkpoint=part, resume=True).as_dict() == full
        return saved

    return check
