"""What a player does with the library, each a module of its own: ``session`` (a match at the
keyboard, saved and resumed), ``follow`` (a match played in the game, mirrored), ``simulate``
(tournaments), ``deckbuild`` (the deck builder), ``chart`` and ``chart_svg`` (the
basic-strategy chart and its picture). The commands are thin shells over these."""
