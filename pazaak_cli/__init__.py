"""pazaak: play, solve and validate Pazaak, the card game of Star Wars: KOTOR I and II."""

__version__ = "0.1.0"
