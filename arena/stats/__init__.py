"""Statistics of results: pairwise estimates, the SPRT, and Elo ratings of a whole league.

Pure functions over counts, no I/O and nothing from the rest of arena: the league and
the CLI turn stored games into counts (arena.league.pairs) and call these.
"""

from .bradley_terry import EloFit, fit_elo
from .pairwise import (
    DEFAULT_PRIOR_GAMES,
    NELO_PER_T,
    PAIR_SCORES,
    Z95,
    MatchResults,
    Pentanomial,
    Summary,
    Trinomial,
    expected_score,
    logistic_elo,
    los,
    prior_units,
    score_stderr,
    summarize,
)
from .sprt import MODELS, Decision, SprtSpec, SprtState, check, llr

__all__ = [
    "DEFAULT_PRIOR_GAMES", "MODELS", "NELO_PER_T", "PAIR_SCORES", "Z95", "Decision", "EloFit",
    "MatchResults", "Pentanomial", "SprtSpec", "SprtState", "Summary", "Trinomial", "check",
    "expected_score", "fit_elo", "llr", "logistic_elo", "los", "prior_units", "score_stderr",
    "summarize",
]
