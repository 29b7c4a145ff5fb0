"""bot-arena: run bot competitions with a sandboxed referee, leagues and ratings."""

__version__ = "0.1.0"
