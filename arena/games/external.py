"""A game whose rules live in a referee process (docs/referees.md): the arena knows of it only
what its config says (its name, the referee's command and directory, its players, the protocol
the referee speaks, whether it takes a seed, its limits); the referee plays the rules, and the
arena relays lines between it and the seats (arena.referee.relay). Pure data: nothing here
starts a process or reads a file."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .base import Game, GameError, GameInfo, State

#: the protocols a referee may speak: cg-brutaltester's `###` protocol (its old mode, `-o`)
PROTOCOLS = ("brutaltester",)
#: how many players a referee game may seat
PLAYERS = (2, 3, 4)


@dataclass(frozen=True)
class RefereeSpec:
    """A referee game: the referee's command and where it runs, what it plays, its limits,
    and once its run built it, its fingerprint (a changed referee is a new game version)."""

    name: str
    command: str                     #: as the config wrote it
    argv: tuple[str, ...]            #: its words, the paths they name made absolute
    dir: str                         #: where it runs and what it may read (absolute)
    players: int
    protocol: str = PROTOCOLS[0]
    #: it takes a seed (`###Seed`): the games of a seat-swapped pair (or of a rotation) play
    #: the same map; never sent to a referee that does not say so (one would read it as a move)
    seed: bool = False
    build: str | None = None         #: run in dir before a run, as a bot's build
    readable: tuple[str, ...] = ()   #: more paths it may read (absolute)
    startup_ms: int = 30_000         #: wall time to its first command (its start-up)
    step_ms: int = 10_000            #: wall time from a reply written to its next command
    game_ms: int = 600_000           #: wall time of a whole game
    #: a run stops after this many games in a row that the referee failed (void games)
    referee_faults: int = 3
    #: its sandbox limits (arena.sandbox.Limits fields) other than the defaults
    limits: tuple[tuple[str, int], ...] = ()
    fingerprint: str = ""            #: of its files, command and build, once a run took it

    def identity(self) -> dict[str, Any]:
        """What makes the game the game it is, as a league's identity keeps it (its limits
        are not: changed, the games stay the same league's)."""
        return {"name": self.name, "command": self.command, "protocol": self.protocol,
                "players": self.players, "seed": self.seed}

    def info(self) -> GameInfo:
        """The game's facts as the arena shows them."""
        seeded = "takes a seed (a seat-swapped pair plays one map)" if self.seed else \
            "takes no seed (every game is its own)"
        return GameInfo(name=self.name, summary=f"played by the referee process `{self.command}`",
                        rules=f"the referee `{self.command}` (in {self.dir}) plays the rules for "
                              f"{self.players} players, speaking the {self.protocol} protocol; it "
                              f"{seeded} (docs/referees.md)",
                        max_length=10**9, move_count=0,
                        seat_names=tuple(f"seat {seat}" for seat in range(self.players)))

    def fingerprinted(self, fingerprint: str) -> RefereeSpec:
        return replace(self, fingerprint=fingerprint)

    def record_entry(self, seed: int | None) -> dict[str, Any]:
        """What a game's record keeps of its referee (GameRecord.referee), before the game."""
        return {"name": self.name, "protocol": self.protocol, "fingerprint": self.fingerprint,
                "players": self.players, "seed": seed, "errors": [], "stderr": ""}


class ExternalGame(Game):
    """A game played by a referee process: no states here, only its facts (info, seats) and
    its RefereeSpec, which the relay plays it by. A plugin registers one as a class made by
    referee_game_class(); a league config's `game:` mapping makes one from its spec."""

    info = GameInfo(name="referee", summary="a game played by a referee process",
                    rules="its referee plays the rules", max_length=10**9, move_count=0)
    spec: RefereeSpec

    def __init__(self, spec: RefereeSpec | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.spec = spec if spec is not None else type(self).spec
        self.info = self.spec.info()

    def __reduce__(self) -> tuple[Any, ...]:
        # a plugin's class is made at run time: a worker gets the plain class and the spec
        return (ExternalGame, (self.spec,))

    @property
    def seats(self) -> int:
        return self.spec.players

    def initial_state(self) -> State:
        raise GameError(f"the rules of {self.spec.name} live in its referee process: the arena "
                        "holds no position of it")

    def parse_state(self, text: str) -> State:
        return self.initial_state()


def referee_game_class(spec: RefereeSpec) -> type[ExternalGame]:
    """An ExternalGame class for a registry (a plugin's arena_register_games), its spec fixed."""
    return type(f"RefereeGame_{spec.name}", (ExternalGame,), {"spec": spec, "info": spec.info()})
