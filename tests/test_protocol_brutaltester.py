"""cg-brutaltester's referee protocol as the arena reads it (docs/referees.md): every line a
real referee writes, the places of ###End with ties, and each line that breaks it named."""

import pytest

from arena.protocol.brutaltester import (
    SEED_RANGE,
    End,
    Error,
    Input,
    Output,
    RefereeProtocolError,
    command,
    error_of,
    is_command,
    ranking,
    referee_seed,
    start_lines,
)


def test_the_arena_tells_a_seed_only_to_a_referee_that_takes_one():
    assert start_lines(3, None) == ["###Start 3"]
    assert start_lines(2, 2**62 + 5) == [f"###Seed {(2**62 + 5) % SEED_RANGE}", "###Start 2"]
    assert 0 <= referee_seed(2**63 - 1) < 2**31 - 1


@pytest.mark.parametrize("line, expected", [
    ("###Input 1", Input(1)),
    ("###Input 0\r", Input(0)),                  # a referee's \r\n
    ("###Output 0 11", Output(0, 11)),           # Game of Drones asks 11 lines
    ("###End 1 0", End(((1,), (0,)))),
    ("###End 01", End(((0, 1),))),
    ("###End 0 23 1", End(((0,), (2, 3), (1,)))),
    ("###Error 1 invalid move", Error(1, "invalid move")),
    ("###Error", Error(None, "")),
    ("###Error 7 about a seat that is none", Error(None, "7 about a seat that is none")),
])
def test_each_command_a_referee_writes(line, expected):
    assert command(line, 4) == expected


@pytest.mark.parametrize("line, said", [
    ("###Input 4", "seat 4 is none of the game's 4 seats (0 to 3)"),
    ("###Output 5 1", "seat 5 is none"),
    ("###Output 0 0", "a reply is 1 to 1000 lines"),
    ("###Warning 0 slow", "no command of the brutaltester protocol"),
    ("hello", "where a command (###Input, ###Output, ###End) was due"),
    ("###Input", "no command"),
])
def test_a_line_that_breaks_the_protocol_says_how(line, said):
    with pytest.raises(RefereeProtocolError) as raised:
        command(line, 4)
    assert said in str(raised.value)


def test_end_places_ties_share_a_rank():
    assert ranking(End(((1,), (0,))), 2) == [1, 0]
    assert ranking(End(((0, 1),)), 2) == [0, 0]
    assert ranking(End(((0,), (2, 3), (1,))), 4) == [0, 3, 1, 1]
    assert ranking(End(((0, 1), (2,))), 3) == [0, 0, 2]


@pytest.mark.parametrize("end, said", [
    (End(((0,),)), "it does not place seat 1"),
    (End(((0,), (0, 1))), "it places seat 0 twice"),
    (End(((0,), (1,), (2,))), "seat 2 is none of the game's 2"),
    (End(()), "it does not place seat 0"),
])
def test_an_end_that_does_not_place_every_seat_once_is_the_referees_fault(end, said):
    with pytest.raises(RefereeProtocolError) as raised:
        ranking(end, 2)
    assert said in str(raised.value)


def test_stderr_lines_are_its_log_but_its_errors():
    assert error_of("###Error 0 InvalidInput Invalid action : garbage", 2) == \
        Error(0, "InvalidInput Invalid action : garbage")
    assert error_of("Exception in thread main", 2) is None
    assert is_command("###Output 0 1") and not is_command("  ###Output 0 1")
