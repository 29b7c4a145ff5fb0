"""The roster entry, the typed hand-off of a participant's bot from the server to the ladder
(arena/server/roster.py): what it writes, what it reads back, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server.process import SubmissionError
from arena.server.roster import RosterEntry


def test_an_entry_is_the_config_entry_the_ladder_reads_and_the_json_the_database_keeps():
    plain = RosterEntry(name="alice", command="python3 /subs/1/bot.py", dir=Path("/subs/1"))
    assert plain.config_entry() == {"name": "alice", "command": "python3 /subs/1/bot.py", "dir": "/subs/1"}
    spoken = RosterEntry(name="bob", command="./bot", dir=Path("/subs/2"), dialect="uci")
    assert list(spoken.config_entry()) == ["name", "command", "dir", "dialect"]
    for entry in (plain, spoken):
        assert RosterEntry.from_json(entry.to_json()) == entry
        assert RosterEntry.from_config(entry.config_entry()) == entry


@pytest.mark.parametrize("raw, said", [
    ({"name": "a", "command": "c", "dir": "/d", "build": "make"},
     "a roster entry has only name, command, dir, dialect; got build"),
    ({"name": "a", "command": "c"}, "a roster entry's dir must be text, got None"),
    ({"name": "a", "command": ["python3", "bot.py"], "dir": "/d"}, "a roster entry's command must be text"),
    ({"name": "a", "command": "c", "dir": "/d", "dialect": 3}, "a roster entry's dialect must be text, got 3"),
])
def test_an_entry_of_another_shape_is_refused_in_one_line(raw, said):
    with pytest.raises(SubmissionError, match="^" + said.replace("[", r"\[")):
        RosterEntry.from_config(raw)


def test_the_validation_and_the_roster_refuse_a_submitted_entry_in_the_same_words(tmp_path):
    # one check of a submission (admission.admit), whether it is validated or joins the roster
    from arena.server.sandboxed import validate, write_roster

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "bot.py").write_text("")
    config = tmp_path / "ladder.yaml"
    config.write_text("name: srv\ngame: ultimate\nschedule: ladder\nbots:\n  - {name: random, bot: random}\n"
                      "  - {name: other, bot: random}\n"
                      "store: results/srv.sqlite\n")
    entry = {"name": "alice", "command": "python3 sub/bot.py", "dir": "sub", "build": "make"}
    said = []
    for step in (lambda: validate(config, entry, "random", 2, tmp_path / "v"),
                 lambda: write_roster(config, [entry])):
        with pytest.raises(SubmissionError) as refused:
            step()
        said.append(str(refused.value))
    assert said == ["bot 'alice': a submission's build runs in the sandbox (build()), never as a league's "
                    "build: on the host; leave 'build' out of its entry"] * 2
    assert not (tmp_path / "v").exists() and not (tmp_path / ".ladder.serve.yaml").exists()
