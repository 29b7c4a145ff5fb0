"""The generalized sequential probability ratio test (GSPRT) of fishtest and fastchess.

H0: the Elo difference is elo0; H1: it is elo1 (elo1 > elo0), in logistic or normalized
Elo. After each new sample (a game pair for pentanomial counts, a game for trinomial
ones) the log-likelihood ratio of the two hypotheses is compared with the bounds
log(beta / (1 - alpha)) and log((1 - beta) / alpha). The likelihood of each hypothesis
is that of the multinomial distribution closest to the observed one (its maximum-
likelihood estimate) among those whose expected score (logistic) or t-value
(normalized) is the hypothesis's: M. Van den Bergh's construction, used by fishtest.
Formulas and sources: docs/statistics.md.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from .pairwise import NELO_PER_T, Pentanomial, Trinomial, expected_score

MODELS = ("logistic", "normalized")
#: what an empty bin counts as, so no outcome has probability 0 (fishtest's regularize)
EMPTY_BIN = 1e-3
_KEYS = ("elo0", "elo1", "alpha", "beta", "model")


class Decision(str, enum.Enum):
    """Where a test stands."""

    CONTINUE = "continue"
    H0 = "H0 accepted"      #: elo0 (no better than elo0)
    H1 = "H1 accepted"      #: elo1 (at least elo1 better)


@dataclass(frozen=True)
class SprtSpec:
    """The hypotheses and error rates of a test."""

    elo0: float
    elo1: float
    alpha: float = 0.05     #: chance to accept H1 when H0 is true
    beta: float = 0.05      #: chance to accept H0 when H1 is true
    model: str = "logistic"  #: "logistic" or "normalized" Elo

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError(f"elo1 must be above elo0, not elo0={self.elo0:g} elo1={self.elo1:g}")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be above 0 and below 0.5, not {value:g}")
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}, not {self.model!r}")

    @property
    def lower(self) -> float:
        """At or below this LLR, H0 is accepted: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this LLR, H1 is accepted: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        """'elo0=0,elo1=10,alpha=0.05,beta=0.05,model=logistic': the spec as parse reads it
        (and `arena match --sprt` takes it)."""
        return (f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g},"
                f"model={self.model}")

    @classmethod
    def parse(cls, text: str) -> SprtSpec:
        """A spec from 'elo0=0,elo1=10,alpha=0.05,beta=0.05,model=logistic' (elo0, elo1 needed)."""
        values: dict[str, str] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in _KEYS:
                raise ValueError(f"{item!r} is not KEY=VALUE with KEY one of {', '.join(_KEYS)}")
            values[key] = value.strip()
        missing = [key for key in ("elo0", "elo1") if key not in values]
        if missing:
            raise ValueError(f"{text!r} lacks {' and '.join(missing)}; e.g. elo0=0,elo1=10")
        numbers: dict[str, float] = {}
        for key in ("elo0", "elo1", "alpha", "beta"):
            if key in values:
                try:
                    numbers[key] = float(values[key])
                except ValueError:
                    raise ValueError(f"{key}={values[key]!r} is not a number") from None
        return cls(**numbers, model=values.get("model", "logistic"))


@dataclass(frozen=True)
class SprtState:
    """The test after the samples seen so far."""

    llr: float
    lower: float
    upper: float
    samples: int            #: pairs (pentanomial) or games (trinomial)
    decision: Decision


def check(spec: SprtSpec, counts: Pentanomial | Trinomial) -> SprtState:
    """The LLR of counts and the decision it gives against the spec's bounds."""
    value = llr(spec, counts)
    decision = (Decision.H1 if value >= spec.upper else
                Decision.H0 if value <= spec.lower else Decision.CONTINUE)
    samples = counts.pairs if isinstance(counts, Pentanomial) else counts.games
    return SprtState(value, spec.lower, spec.upper, samples, decision)


def llr(spec: SprtSpec, counts: Pentanomial | Trinomial) -> float:
    """Generalized log-likelihood ratio of H1 against H0 (0 without samples)."""
    values, probs, n = _distribution(counts)
    if n == 0:
        return 0.0
    if spec.model == "logistic":
        mle0, mle1 = (_mle_with_mean(values, probs, expected_score(e))
                      for e in (spec.elo0, spec.elo1))
    else:
        # a pair's points over 2 spread sqrt(2) times less than a game's: t per pair
        per_sample = math.sqrt(2) if isinstance(counts, Pentanomial) else 1.0
        mle0, mle1 = (_mle_with_t(values, probs, e / NELO_PER_T * per_sample)
                      for e in (spec.elo0, spec.elo1))
    return n * sum(p * (math.log(q1) - math.log(q0)) for p, q0, q1 in zip(probs, mle0, mle1))


def _distribution(counts: Pentanomial | Trinomial) -> tuple[list[float], list[float], float]:
    """(points per game of each bin, its observed probability, samples), empty bins at 1e-3."""
    bins = list(counts.bins())
    size = 2 if isinstance(counts, Pentanomial) else 1
    if not sum(n for _points, n in bins):
        return [], [], 0
    weights = [n or EMPTY_BIN for _points, n in bins]
    total = sum(weights)
    return [points / size for points, _n in bins], [w / total for w in weights], total


def _secular(probs: list[float], shifts: list[float]) -> float:
    """The x in (-1/max shift, -1/min shift) with sum p b / (1 + x b) = 0 (Newton, bracketed)."""
    low, high = -1 / max(shifts), -1 / min(shifts)
    x = 0.0
    for _ in range(200):
        f = sum(p * b / (1 + x * b) for p, b in zip(probs, shifts))
        slope = -sum(p * b * b / (1 + x * b) ** 2 for p, b in zip(probs, shifts))
        if f > 0:       # f falls with x: the root is above x
            low = x
        else:
            high = x
        step = x - f / slope if slope else (low + high) / 2
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - x) <= 1e-15 * max(1.0, abs(x)):
            return step
        x = step
    return x


def _mle_with_mean(values: list[float], probs: list[float], mean: float) -> list[float]:
    """The distribution on values nearest (max likelihood) to probs whose mean is `mean`."""
    shifts = [a - mean for a in values]
    x = _secular(probs, shifts)
    return [p / (1 + x * b) for p, b in zip(probs, shifts)]


def _mle_with_t(values: list[float], probs: list[float], t: float,
                reference: float = 0.5) -> list[float]:
    """The nearest distribution whose t-value (mean - 1/2) / sd is t (fixed-point iteration)."""
    mle = [1 / len(values)] * len(values)
    for _ in range(100):
        mean = sum(q * a for q, a in zip(mle, values))
        sd = math.sqrt(sum(q * (a - mean) ** 2 for q, a in zip(mle, values)))
        shifts = [a - reference - t * sd * (1 + ((mean - a) / sd) ** 2) / 2 for a in values]
        x = _secular(probs, shifts)
        new = [p / (1 + x * b) for p, b in zip(probs, shifts)]
        done = max(abs(a - b) for a, b in zip(new, mle)) < 1e-12
        mle = new
        if done:
            break
    return mle
