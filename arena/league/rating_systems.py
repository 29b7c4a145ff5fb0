"""Rating systems: how a league rates its bots from game outcomes, and how the ratings read.

A rating system is registered by name through the `arena_register_rating_systems` hook
(TrueSkill by arena's own default plugin, arena.league.plugin) and a league names the one
it is rated by in `rating.system` (RatingConfig.system). The leaderboard, its text
formats and the site take their rating columns, legend and chart from the system a
league is rated with, so a plugin system shows everywhere TrueSkill does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Protocol

from arena.plugins import Plugins, plugins_or_loaded
from arena.record import GameRecord
from arena.stats.trueskill_ep import SkillFit

from .config import DEFAULT_RATING_SYSTEM, RatingConfig
from .ratings import LiveRatings, make_env, replay, standing_points

__all__ = ["DEFAULT_RATING_SYSTEM", "TRUESKILL_EP", "PathRater", "RatedGame", "Rater", "Rating",
           "RatingColumn", "RatingSystem", "RatingWords", "TrueSkill", "TrueSkillEP", "los_between",
           "path_rater", "rated_game", "rater", "rating_system"]

#: the registered name of TrueSkill fitted to all games at once
TRUESKILL_EP = "trueskill-ep"


@dataclass(frozen=True)
class RatedGame:
    """A game as a rating system reads it: fixture key, the bots by seat, their points
    (win 1, draw 1/2; of more than two seats, the share of the others each finished ahead
    of, a tie counting half: the higher, the better placed; games left out of the
    standings never reach a rating system)."""

    key: str
    bots: tuple[str, ...]
    points: tuple[float, ...]


def rated_game(key: str, record: GameRecord, faults_count_as_losses: bool) -> RatedGame | None:
    """A stored game as rating systems read it; None for one left out of the standings (a
    game of more seats with a fault in it, when faults do not count as losses)."""
    points = standing_points(record, faults_count_as_losses)
    if points is None:
        return None
    return RatedGame(key, tuple(bot.name for bot in record.bots), points)


@dataclass(frozen=True)
class Rating:
    """A bot's rating as its system shows it."""

    value: float                   #: what the table ranks by, higher first
    figures: tuple[float, ...]     #: one for each of the system's columns
    band: float | None = None      #: the top of the band charts draw above the value, if any


@dataclass(frozen=True)
class RatingColumn:
    """A figure of a rating: its name in csv, json and the text table, and on the site."""

    key: str                #: csv and json field, text table heading: "mu"
    label: str              #: the site's column heading (HTML): "μ"
    help: str               #: the site's tooltip: "TrueSkill mean"
    ranks: bool = False     #: the figure the table is ranked by (shown strong)


@dataclass(frozen=True)
class RatingWords:
    """What a system's ratings mean, in the words each output needs."""

    legend: str              #: under the text table, before the other columns' meanings
    caption: str             #: the site's leaderboard caption, first sentence (HTML)
    ranked_by: str           #: "exposed rating": the site's rank column help says "by ..."
    chart_axis: str          #: the rating charts' vertical axis (what line and band are)
    #: the bot page's figures: (label, str.format template over the rating's figures)
    bot_page: tuple[tuple[str, str], ...]
    #: where LOS > next comes from, ending the sentence "LOS>next: the chance, ..., that a
    #: bot is stronger than the next one down"; "" for a system without a `los` of its own
    los: str = ""


class RatingSystem(Protocol):
    """How to rate a list of game outcomes, and how to show a rating.

    A system may also have `los(a: Rating, b: Rating) -> float`, the probability from its
    own posteriors that a's skill is above b's: the table's LOS > next then comes from the
    model that orders it (see `los_between`); without one that column stays empty.
    """

    @property
    def columns(self) -> Sequence[RatingColumn]:
        """A rating's figures, in the order Rating.figures holds them."""
        ...

    @property
    def words(self) -> RatingWords:
        """What the figures mean."""
        ...

    def prior(self, settings: RatingConfig) -> Rating:
        """The rating of a bot without games."""
        ...

    def rate(self, games: Sequence[RatedGame], settings: RatingConfig) -> Mapping[str, Sequence[Rating]]:
        """Every bot's rating after each of its games, replaying the games in the order given
        (fixture order: the ratings are a function of the stored results alone)."""
        ...


@dataclass(frozen=True)
class TrueSkill:
    """Microsoft's TrueSkill (the `trueskill` package), ranked by mu - 3 sigma."""

    columns: Sequence[RatingColumn] = (
        RatingColumn("mu", "μ", "TrueSkill mean"),
        RatingColumn("sigma", "σ", "TrueSkill uncertainty"),
        RatingColumn("exposed", "μ − 3σ", "exposed rating: what the table is ranked by", ranks=True))
    words: RatingWords = RatingWords(
        legend=("Ranked by exposed = mu - 3 sigma (TrueSkill's cautious rating: the skill is above "
                "it with about 99.9% probability); mu: estimated skill, sigma: its uncertainty;"),
        caption="Ranked by exposed rating μ − 3σ (TrueSkill): a skill each bot very probably has.",
        ranked_by="exposed rating",
        chart_axis="μ − 3σ (line, ranks) · band up to μ",
        bot_page=(("Rating μ ± σ", "{0:.2f} <small>± {1:.2f}</small>"), ("μ − 3σ", "{2:.2f}")),
        los="from TrueSkill's mu and sigma, the model the table is ranked by")

    def prior(self, settings: RatingConfig) -> Rating:
        return _shown(settings.mu, settings.sigma)

    def rate(self, games: Sequence[RatedGame], settings: RatingConfig) -> Mapping[str, Sequence[Rating]]:
        paths = replay(make_env(settings), ((g.key, g.bots, g.points) for g in games))
        return {name: [_shown(p.mu, p.sigma) for p in path] for name, path in paths.items()}

    def los(self, a: Rating, b: Rating) -> float:
        """P(a's skill > b's) from the two posteriors: Phi((mu_a - mu_b) / sqrt(sa^2 + sb^2))."""
        (mu_a, sigma_a, *_), (mu_b, sigma_b, *_) = a.figures, b.figures
        return skill_los(mu_a, sigma_a, mu_b, sigma_b)

    def rater(self, settings: RatingConfig) -> Rater:
        """TrueSkill's own update, one game at a time (the same as rate's, game by game)."""
        return _TrueSkillRater(self, settings)


@dataclass(frozen=True)
class TrueSkillEP(TrueSkill):
    """TrueSkill's model fitted to all the games at once (arena.stats.trueskill_ep): every
    game counts as much whenever it was played, and the ratings are the same in any order.
    Ranked by mu - 3 sigma, as TrueSkill; the skills do not drift (tau is not used). A game
    of more than two seats is read as a game between every two of its seats."""

    words: RatingWords = RatingWords(
        legend=("Ranked by exposed = mu - 3 sigma, TrueSkill's model fitted to all games at once "
                "(expectation propagation: the order games were played in does not count); mu: "
                "estimated skill, sigma: its uncertainty;"),
        caption=("Ranked by exposed rating μ − 3σ (TrueSkill fitted to all games at once): a skill "
                 "each bot very probably has."),
        ranked_by="exposed rating",
        chart_axis="μ − 3σ (line, ranks) · band up to μ",
        bot_page=(("Rating μ ± σ", "{0:.2f} <small>± {1:.2f}</small>"), ("μ − 3σ", "{2:.2f}")),
        los="from mu and sigma of TrueSkill fitted to all games, the model the table is ranked by")

    def rate(self, games: Sequence[RatedGame], settings: RatingConfig) -> Mapping[str, Sequence[Rating]]:
        """Each bot's rating after each of its games as they came (each game's message sent
        once), its last one the fit of all the games."""
        fit = _skill_fit(settings)
        paths: dict[str, list[Rating]] = {}
        for game in games:
            for first, second, points in _two_seat_games(game):
                fit.add(first, second, points)
            for name in dict.fromkeys(game.bots):
                paths.setdefault(name, []).append(_shown(*fit.rating(name)))
        fit.converge()
        for name, (mu, sigma) in fit.ratings().items():
            paths[name][-1] = _shown(mu, sigma)
        return paths

    def rater(self, settings: RatingConfig) -> Rater:
        """The fit kept up to date game by game (converged again once the games have grown
        by a twentieth; exactly when asked: Rater.settled)."""
        return _TrueSkillEPRater(self, settings)


class Rater:
    """A league's ratings kept up to date as games come (a ladder's, in the order they are
    played), beside rate's replay of a whole list. This one serves any system by rating
    every game so far again when asked; a system with an update of its own gives a
    subclass from a `rater(settings)` method (TrueSkill does)."""

    def __init__(self, system: RatingSystem, settings: RatingConfig) -> None:
        self.system, self.settings = system, settings
        self.games: list[RatedGame] = []

    def update(self, key: str, record: GameRecord) -> bool:
        """Rate one more game; False when it counts for no rating (left out of the standings)."""
        game = rated_game(key, record, self.settings.faults_count_as_losses)
        if game is None:
            return False
        self.add(game)
        return True

    def add(self, game: RatedGame) -> None:
        """Rate one more game, as a rating system reads it."""
        self.games.append(game)

    def current(self) -> dict[str, Rating]:
        """Every rated bot's rating now."""
        paths = self.system.rate(self.games, self.settings)
        return {name: path[-1] for name, path in paths.items() if path}

    def settled(self) -> dict[str, Rating]:
        """Every rated bot's rating now, as the system's full rating of the games gives it
        (a rater may answer current() from a fit a few games behind)."""
        return self.current()


class _TrueSkillRater(Rater):
    def __init__(self, system: RatingSystem, settings: RatingConfig) -> None:
        super().__init__(system, settings)
        self._live = LiveRatings(make_env(settings))

    def add(self, game: RatedGame) -> None:
        self._live.update(game.key, game.bots, game.points)

    def current(self) -> dict[str, Rating]:
        return {name: _shown(r.mu, r.sigma) for name, r in self._live.ratings.items()}


class _TrueSkillEPRater(Rater):
    #: current() fits all games again once those added since make this share of them
    REFIT_SHARE = 0.05

    def __init__(self, system: RatingSystem, settings: RatingConfig) -> None:
        super().__init__(system, settings)
        self._fit = _skill_fit(settings)

    def add(self, game: RatedGame) -> None:
        for first, second, points in _two_seat_games(game):
            self._fit.add(first, second, points)

    def current(self) -> dict[str, Rating]:
        # a full fit costs a sweep or more over every game: once per twentieth more games,
        # each new game's message sent once meanwhile
        if self._fit.unsettled > self.REFIT_SHARE * len(self._fit.sites):
            self._fit.converge()
        return {name: _shown(mu, sigma) for name, (mu, sigma) in self._fit.ratings().items()}

    def settled(self) -> dict[str, Rating]:
        if self._fit.unsettled:
            self._fit.converge()
        return self.current()


def _skill_fit(settings: RatingConfig) -> SkillFit:
    return SkillFit(settings.mu, settings.sigma, settings.beta, settings.draw_probability)


def _two_seat_games(game: RatedGame) -> list[tuple[str, str, float]]:
    """A game as games of two seats: itself, or one for every two seats of a game of more
    (the better placed winning, equal points a draw)."""
    return [(game.bots[i], game.bots[j],
             1.0 if game.points[i] > game.points[j] else 0.5 if game.points[i] == game.points[j] else 0.0)
            for i in range(len(game.bots)) for j in range(i + 1, len(game.bots))]


class PathRater:
    """Every bot's rating after each of its games (what rate() gives), kept as games come,
    for a leaderboard kept up to date: this one rates every game so far again when asked;
    TrueSkill's own update carries on from the last game (path_rater)."""

    def __init__(self, system: RatingSystem, settings: RatingConfig) -> None:
        self.system, self.settings = system, settings
        self.games: list[RatedGame] = []
        self._paths: Mapping[str, Sequence[Rating]] | None = None

    def add(self, game: RatedGame) -> None:
        """Rate one more game (in the order rate() reads them)."""
        self.games.append(game)
        self._paths = None

    def paths(self) -> Mapping[str, Sequence[Rating]]:
        """Every bot's rating after each of its games so far: rate() of the games added."""
        if self._paths is None:
            self._paths = self.system.rate(self.games, self.settings)
        return self._paths


class _TrueSkillPaths(PathRater):
    """TrueSkill's paths game by game: its rate() replays the games so, one update each."""

    def __init__(self, system: RatingSystem, settings: RatingConfig) -> None:
        super().__init__(system, settings)
        self._live = LiveRatings(make_env(settings))
        self._grown: dict[str, list[Rating]] = {}

    def add(self, game: RatedGame) -> None:
        self._live.update(game.key, game.bots, game.points)
        for name in game.bots:
            rating = self._live.ratings[name]
            self._grown.setdefault(name, []).append(_shown(rating.mu, rating.sigma))

    def paths(self) -> Mapping[str, Sequence[Rating]]:
        return self._grown


def path_rater(system: RatingSystem, settings: RatingConfig) -> PathRater:
    """A PathRater for the system: TrueSkill's, whose rate() is its update game after game,
    carries on from the last game; any other's (TrueSkill fitted to all games at once, a
    plugin's) asks rate() again."""
    if isinstance(system, TrueSkill) and type(system).rate is TrueSkill.rate:
        return _TrueSkillPaths(system, settings)
    return PathRater(system, settings)


def rater(system: RatingSystem, settings: RatingConfig) -> Rater:
    """Ratings updated one game at a time: the system's own rater when it has one, else a
    Rater that rates every game so far again when asked."""
    make = getattr(system, "rater", None)
    return make(settings) if callable(make) else Rater(system, settings)


def skill_los(mu_a: float, sigma_a: float, mu_b: float, sigma_b: float) -> float:
    """The likelihood that a's skill is above b's, from two normal posteriors:
    Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2)). No beta: beta is the spread of one
    game's performance, not doubt about the skill."""
    spread = (sigma_a ** 2 + sigma_b ** 2) ** 0.5
    if spread == 0:
        return 0.5 if mu_a == mu_b else float(mu_a > mu_b)
    return NormalDist().cdf((mu_a - mu_b) / spread)


def los_between(system: RatingSystem, a: Rating, b: Rating) -> float | None:
    """The chance, from the system's own posteriors, that a is stronger than b; None for a
    system that gives none."""
    los = getattr(system, "los", None)
    return float(los(a, b)) if callable(los) else None


def _shown(mu: float, sigma: float) -> Rating:
    exposed = mu - 3 * sigma
    return Rating(value=exposed, figures=(mu, sigma, exposed), band=mu)


def rating_system(settings: RatingConfig, plugins: Plugins | None = None) -> RatingSystem:
    """The rating system the settings name, of the plugins (by default the loaded ones);
    UnknownNameError if none is registered so."""
    return plugins_or_loaded(plugins).rating_systems.require(settings.system)
