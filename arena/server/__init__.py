"""arena serve: participants submit bots over HTTP, a running ladder plays them (docs/server.md)."""
