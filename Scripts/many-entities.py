#!/usr/bin/env python3
"""Prints a `roster run` script that defines N entities and watches each with a live query.

    python3 Scripts/many-entities.py 1000 > many.jsonl              # entity, query, entity, query, …
    python3 Scripts/many-entities.py 1000 --grouped > many.jsonl    # every entity, then every query
    time .build/release/roster run many.jsonl > /dev/null

The figure in Docs/Performance.md ("Many entities") is the wall time of the second command
for N = 1,000, in a release build. Each entity is `E<i>(id string key, title string, rank
integer)`; each query `q<i>` lists its entity by rank and prints an empty snapshot.
"""
import sys


def main():
    if len(sys.argv) < 2 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__)
    count = int(sys.argv[1])
    grouped = "--grouped" in sys.argv[2:]
    entity = '{"op":"entity","name":"E%d","key":"id","attributes":{"id":"string","title":"string","rank":"integer"}}'
    query = '{"op":"query","name":"q%d","entity":"E%d","sort":[["rank","asc"]]}'
    if grouped:
        lines = [entity % i for i in range(count)] + [query % (i, i) for i in range(count)]
    else:
        lines = [line for i in range(count) for line in (entity % i, query % (i, i))]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
