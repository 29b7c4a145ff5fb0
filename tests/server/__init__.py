"""Helpers of the server's tests: hostile uploads as data (hostile.py)."""
