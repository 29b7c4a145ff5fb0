"""TrueSkill ratings replayed from stored game records, in fixture order, or updated one
game at a time (LiveRatings) in the order games are played.

Replaying in a fixed order (not the order games finished) makes a league's ratings a
function of the stored results alone: worker count and timing cannot change them. A
ladder has no fixed order: it rates games as they come, with the same update.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import trueskill

from arena.games.base import scores_from_ranking
from arena.record import GameRecord

from .config import RatingConfig

#: A stored game as ratings read it: (fixture key, fixture index, record), e.g. a StoredGame.
GameRow = tuple[str, int, GameRecord]
EXPOSE_SIGMAS = 3


@dataclass(frozen=True)
class HistoryPoint:
    """A bot's rating right after one of its games."""

    key: str        #: fixture key of the game
    mu: float
    sigma: float


@dataclass(frozen=True)
class Ratings:
    """Every bot's rating after all games, and its path there."""

    env: trueskill.TrueSkill
    ratings: Mapping[str, trueskill.Rating]
    history: Mapping[str, tuple[HistoryPoint, ...]]

    def exposed(self, bot: str) -> float:
        """The conservative estimate the leaderboard ranks by: mu - 3 sigma."""
        return exposed(self.ratings[bot])


def exposed(rating: trueskill.Rating) -> float:
    """mu - 3 sigma: a skill the bot very probably has, what leaderboards sort by.

    Not env.expose(), which subtracts (initial mu / initial sigma) sigmas: that is 3
    only with TrueSkill's default constants (and 0 for a league with mu: 0).
    """
    return float(rating.mu - EXPOSE_SIGMAS * rating.sigma)


def make_env(settings: RatingConfig) -> trueskill.TrueSkill:
    """A TrueSkill environment with the league's constants (never the global one)."""
    return trueskill.TrueSkill(mu=settings.mu, sigma=settings.sigma, beta=settings.beta,
                               tau=settings.tau, draw_probability=settings.draw_probability)


def standing_points(record: GameRecord, faults_count_as_losses: bool) -> tuple[float, ...] | None:
    """A game's points per seat as the standings count them: win 1, draw 1/2; of more than
    two seats, the share of the others each finished ahead of (a tie counting half), from
    the ranking. None for a game left out: aborted, or with a fault when faults do not
    count as losses."""
    if len(record.bots) <= 2:
        return record.outcome.points(faults_count_as_losses)
    ranking = record.rank_of()
    if ranking is None or (not faults_count_as_losses and (record.out or record.termination.is_fault)):
        return None
    return tuple(scores_from_ranking(ranking))


def compute_ratings(games: Iterable[GameRow], settings: RatingConfig,
                    bots: Sequence[str] | None = None) -> Ratings:
    """Replay games in the order given (Store.records() gives fixture order).

    With bots, only games between two of them are rated, and each of them gets a
    rating even without games; without, every bot met in the records is rated.
    """
    env = make_env(settings)
    wanted = set(bots) if bots is not None else None
    rated = []
    for key, _index, record in games:
        seats = tuple(bot.name for bot in record.bots)
        if wanted is not None and not wanted.issuperset(seats):
            continue
        result = standing_points(record, settings.faults_count_as_losses)
        if result is not None:
            rated.append((key, seats, result))
    ratings: dict[str, trueskill.Rating] = {name: env.create_rating() for name in bots or ()}
    final, history = _replay(env, rated)
    ratings.update(final)
    return Ratings(env=env, ratings=ratings,
                   history={name: tuple(history.get(name, ())) for name in ratings})


#: a game as TrueSkill rates it: fixture key, the bots by seat, their points
RatedRow = tuple[str, tuple[str, ...], tuple[float, ...]]


def replay(env: trueskill.TrueSkill, games: Iterable[RatedRow]) -> dict[str, list[HistoryPoint]]:
    """Every bot's rating after each of its games, the games rated in the order given."""
    return _replay(env, games)[1]


def _replay(env: trueskill.TrueSkill, games: Iterable[RatedRow]
            ) -> tuple[dict[str, trueskill.Rating], dict[str, list[HistoryPoint]]]:
    live = LiveRatings(env)
    for key, seats, result in games:
        live.update(key, seats, result)
    return live.ratings, live.history


class LiveRatings:
    """TrueSkill ratings kept up to date one game at a time, in the order games are given
    (a replay gives fixture order; a ladder, the order games are played)."""

    def __init__(self, env: trueskill.TrueSkill) -> None:
        self.env = env
        self.ratings: dict[str, trueskill.Rating] = {}
        self.history: dict[str, list[HistoryPoint]] = {}

    def update(self, key: str, seats: Sequence[str], result: Sequence[float]) -> None:
        """Rate one more game: its fixture key, the bots by seat, their points (more points,
        better placed). More than two seats: TrueSkill's free-for-all update, each bot a
        team of one ranked by its points, ties sharing a rank."""
        ratings, env = self.ratings, self.env
        for name in seats:
            if name not in ratings:
                ratings[name] = env.create_rating()
                self.history[name] = []
        ranks = [sum(other > mine for other in result) for mine in result]
        rated = env.rate([(ratings[name],) for name in seats], ranks=ranks)
        for name, (rating,) in zip(seats, rated):
            ratings[name] = rating
        for name in seats:
            self.history[name].append(HistoryPoint(key, ratings[name].mu, ratings[name].sigma))
