#!/usr/bin/env python3
"""How each player of a dchess PGN spent its clock: the mean seconds of its
first MOVES moves (default 20) and the clock left when the game ended, from
the {score/depth seconds} comments dchess writes after every move. Games
without a TimeControl of BASE+INC are skipped. A FILE ending in .jsonl is a
match task's journal (NAME-0000-of-0002/journal.jsonl), read while the task
runs or after it was stopped.

    scripts/studies/clock-use.py gauntlet.pgn [MOVES]
    scripts/studies/clock-use.py clock-000*/journal.jsonl
"""
import json
import re
import statistics
import sys
from collections import defaultdict

MOVE_TIME = re.compile(r"\{[^}]*?/\d+ ([\d.]+)s\}")


def games(text):
    for chunk in text.split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', chunk))
        body = chunk[chunk.find("\n\n"):]
        yield tags, [float(t) for t in MOVE_TIME.findall(body)]


def read(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        sys.exit(f"clock-use.py: {e.filename}: {e.strerror}")
    if not path.endswith(".jsonl"):
        return text
    pgns = []
    for line in text.splitlines():
        try:
            pgns.append(json.loads(line)["pgn"])
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a killed task, or not a game
    return "\n\n".join(pgns)


def main():
    args = sys.argv[1:]
    moves = 20
    if len(args) > 1 and args[-1].isdigit():
        moves = int(args.pop())
    if not args:
        sys.exit("usage: clock-use.py FILE... [MOVES]   (PGN files or match journals, *.jsonl)")
    early, left, count = defaultdict(list), defaultdict(list), defaultdict(list)
    for tags, times in games("\n\n".join(read(path) for path in args)):
        clock = re.fullmatch(r"([\d.]+)\+([\d.]+)", tags.get("TimeControl", ""))
        if not clock:
            continue
        base, inc = float(clock[1]), float(clock[2])
        # The side to move of the game's first position plays the first timed move.
        white_first = tags.get("FEN", "startpos w").split()[1] == "w"
        first, second = (tags["White"], tags["Black"]) if white_first else (tags["Black"], tags["White"])
        for name, own in ((first, times[0::2]), (second, times[1::2])):
            early[name].append(sum(own[:moves]))
            left[name].append(base + inc * len(own) - sum(own))
            count[name].append(len(own))
    if not early:
        sys.exit(f"clock-use.py: {' '.join(args)}: no game with a TimeControl of BASE+INC")
    for name in sorted(early):
        print(f"{name}: {len(early[name])} games, first {moves} moves {statistics.mean(early[name]):.2f} s, "
              f"{statistics.mean(count[name]):.1f} moves a game, clock left at the end {statistics.mean(left[name]):.2f} s")


if __name__ == "__main__":
    main()
