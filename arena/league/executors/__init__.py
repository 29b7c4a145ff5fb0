"""Executors: where and how a league's games are played (local processes, Ray)."""
