"""run_map_elites checks every setting once, at the top, before any work: a bad one is named
and nothing is made (the folder included); good ones reach the run as given."""

from __future__ import annotations

import json

import pytest

from qd.config import get_config
from qd.run import run_map_elites

BAD = [
    ("workers", 0, ValueError),
    ("stop_after", 0, ValueError),
    ("resume", "yes", TypeError),
    ("progress", 1, TypeError),
    ("measures", "ab", TypeError),
    ("backend", "serial", TypeError),
    ("wait", None, TypeError),
    ("adopt", 1, TypeError),
]


@pytest.mark.parametrize(("field", "value", "error"), BAD)
def test_a_bad_setting_is_named_before_the_folder_is_made(tmp_path, field, value, error):
    out = tmp_path / "run"
    config = get_config("quick", candidates=4, random_candidates=4, games=1)
    with pytest.raises(error, match=field):
        run_map_elites(config, out, progress=False, **{field: value})
    assert not out.exists()


def test_good_settings_reach_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    config = get_config(
        "quick", candidates=4, random_candidates=4, batch_size=2, games=1, reeval_games=0
    )
    loop, summary = run_map_elites(config, out, workers=1, progress=False, stop_after=2)
    assert summary == {}  # stopped early: checkpointed, no outputs
    assert not loop.done
    assert json.loads((out / "checkpoint.json").read_text())
    # resume=True continues from it, to the end
    loop, summary = run_map_elites(config, out, resume=True, workers=1, progress=False)
    assert loop.done
    assert summary["candidates"] == 4
    assert summary["workers"] == 1
