"""Options shared by several subcommands give one-line usage errors, never a traceback."""

from __future__ import annotations

import pytest

from duelbound.cli import main

COMMANDS = [
    ["simulate", "--example", "cyclic", "--algorithms", "uniform"],
    ["sweep", "--example", "cyclic", "--algorithms", "uniform", "--store", "unused.sqlite"],
    ["verify", "uniform"],
]


@pytest.mark.parametrize("bad", ["inf", "nan", "0", "-3", "1.5", "abc"])
@pytest.mark.parametrize("argv", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_bad_horizon_is_one_line_usage_error(capsys, argv, bad):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--T", bad])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--T" in err and "Traceback" not in err
