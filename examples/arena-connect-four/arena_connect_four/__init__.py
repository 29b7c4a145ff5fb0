"""Connect Four as a bot-arena plugin: rules (game.py), bots (bots.py), declarations (plugin.py)."""
