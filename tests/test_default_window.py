"""The window of a question that names no period is the dbt var default_window_days (DESIGN.md §8;
issue 25: the var was read nowhere and the parser hard-coded 7)."""

from __future__ import annotations

from datetime import date

import wag_cli.settings as settings


def test_no_period_uses_the_dbt_var(monkeypatch):
    from wag_cli.query.offline import parse_offline
    from wag_cli.query.periods import parse_window

    monkeypatch.setattr(settings, "dbt_vars", lambda: {"default_window_days": 10})
    assert parse_window("How are my steps?") == (10, 0, "")
    parsed = parse_offline("How were my steps?", date(2020, 1, 20))
    assert parsed.window_days == 10 and parsed.period.start == date(2020, 1, 11)


def test_the_shipped_default_is_seven_days():
    from wag_cli.query.offline import parse_offline

    parsed = parse_offline("How were my steps?", date(2020, 1, 20))
    assert parsed.window_days == settings.dbt_vars()["default_window_days"] == 7
