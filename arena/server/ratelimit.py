"""Token buckets per key, for the server's limits: a user's requests a second, an
address's wrong tokens."""

from __future__ import annotations

import threading
import time

#: keys kept before the idle ones (their buckets full again) are forgotten
MAX_BUCKETS = 10_000


class RateLimiter:
    """A token bucket per key (a user, or an address without one): rate a second, burst at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def wait(self, key: str) -> float:
        """0 if a request of key may go now (and count it), else the seconds until one may."""
        now = time.monotonic()
        with self._lock:
            if len(self._buckets) > MAX_BUCKETS:   # forget the keys that have refilled
                full = now - self.burst / self.rate
                self._buckets = {k: v for k, v in self._buckets.items() if v[1] > full}
            tokens, then = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - then) * self.rate)
            if tokens >= 1:
                self._buckets[key] = (tokens - 1, now)
                return 0.0
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate

    def blocked(self, key: str) -> float:
        """The seconds until key may go again (0: now), counting nothing."""
        now = time.monotonic()
        with self._lock:
            tokens, then = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) * self.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate


__all__ = ["MAX_BUCKETS", "RateLimiter"]
