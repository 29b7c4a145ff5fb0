"""Helpers for the publish tests: real leagues of real games, and a headless Chromium."""
