"""A small client of ``pazaak engine`` (docs/protocol.md): a `random` seat plays a match against
the game's own `kotor` opponent, and asks the engine for advice at its first decision.

    python docs/examples/engine_client.py [SEED]

Any language that can start a process and read and write lines can do the same.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


class Engine:
    """A ``pazaak engine`` child process: one request a line, one reply a line."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pazaak_cli", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.next_id = 0

    def ask(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return its result; raise on an error reply."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        self.process.stdin.write(json.dumps({"id": self.next_id, "cmd": cmd, **fields}) + "\n")
        self.process.stdin.flush()
        reply = json.loads(self.process.stdout.readline())
        assert reply["id"] == self.next_id
        if not reply["ok"]:
            raise RuntimeError(f"{reply['error']['code']}: {reply['error']['message']}")
        result: dict[str, Any] = reply["result"]
        return result

    def close(self) -> int:
        self.ask("quit")
        return self.process.wait()


def main(seed: int) -> int:
    engine = Engine()
    print("engine", engine.ask("hello")["version"])
    game = engine.ask(
        "new", decks=["kotor1-starter", "kotor1-average"], seats=["random", "kotor"], seed=seed
    )
    name = game["game"]
    advised = False
    while game["winner"] is None:
        if game["to_act"] == 1 and not advised:
            advice = engine.ask("advise", game=name, time=1)
            best = advice["moves"][0]
            print(f"advice ({advice['exactness']}): {best['card'] or ''} {best['then']}".strip())
            advised = True
        game = engine.ask("play-opponent", game=name)
        print(f"seat {game['events'][0]['by']}: {game['events'][0]['text']}")
    print(f"seat {game['winner']} wins {game['sets_won'][0]}-{game['sets_won'][1]}")
    return engine.close()


if __name__ == "__main__":
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and not sys.argv[1].isdigit()):
        sys.exit("usage: engine_client.py [SEED] (SEED a whole number from 0; default 1)")
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1))
