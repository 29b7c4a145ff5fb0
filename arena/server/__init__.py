"""The competition server (`arena serve`): participants submit their bots over HTTP, the
submissions are built and validated in the sandbox, accepted ones join a running ladder,
and pages and JSON show the standings live (docs/server.md).

Nothing in arena.league, arena.referee or arena.publish imports this package; it imports them.
"""
