"""Watch bots play a whole game in the terminal:

    python -m app.engine.play --seats 3 --seed 7 [--bots greedy,random,greedy] [--moves]
"""
from __future__ import annotations

import argparse
import random

from . import cards
from .bots import choose
from .describe import describe
from .rules import apply_action, new_game, to_act
from .views import view


def card_text(card: dict) -> str:
    if card["id"] is None:
        return "[??]"
    return f"[{card['value']:>2} {cards.name(card['id'])}]"


def village_lines(v: dict, names: list[str]) -> list[str]:
    return [f"  {names[s]:<10} " + " ".join(card_text(c) for c in vil)
            for s, vil in enumerate(v["villages"])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--bots", default="", help="comma-separated greedy|random per seat (default greedy)")
    parser.add_argument("--moves", action="store_true", help="print every move in words")
    args = parser.parse_args(argv)
    kinds = (args.bots.split(",") if args.bots else []) + ["greedy"] * args.seats
    names = [f"{kinds[s].capitalize()}-{s + 1}" for s in range(args.seats)]
    rng = random.Random(args.seed)
    st = new_game(args.seats, args.seed)
    print(f"Silver Eye: {args.seats} seats, seed {args.seed}. Round 1.")
    while st.phase != "over":
        seat = to_act(st)[0]
        before = view(st, None)
        st, events = apply_action(st, seat, choose(kinds[seat], st, seat, rng))
        for event in events:
            if args.moves or event["type"] in ("call", "round_end", "round_scored", "game_over"):
                if event["type"] == "round_end":
                    print(f"\nRound {event['round']} ends ({'deck ran out' if event['reason'] == 'deck' else 'vote'}). Villages:")
                    shown = dict(before, villages=[[c for c in vil] for vil in event["villages"]])
                    shown["villages"] = [[{"id": c["id"], "value": c["value"], "faceup": True} for c in vil]
                                         for vil in event["villages"]]
                    print("\n".join(village_lines(shown, names)))
                else:
                    print(describe(event, names))
                if event["type"] == "round_scored" and event["round"] < 4:
                    print(f"\nRound {event['round'] + 1}.")
    final = view(st, None)
    print("\nTotals: " + ", ".join(f"{names[s]} {t}" for s, t in enumerate(final["totals"])))
    print(f"Winner: {names[final['winner']]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
