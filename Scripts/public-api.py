#!/usr/bin/env python3
"""The public API of Roster's library products, as one line a declaration.

Reads the symbol graphs that `swift package dump-symbol-graph --minimum-access-level
public` writes, keeps the public declarations of the products' modules (Roster and
RosterUpdates; members that the compiler synthesizes or that come from a protocol's
default implementation are left out), and prints them, sorted, as `module: path:
declaration`.

  python3 Scripts/public-api.py --check   # exit 1, with a diff, if Docs/PublicAPI.md differs
  python3 Scripts/public-api.py --write   # rewrite the list in Docs/PublicAPI.md

The list in Docs/PublicAPI.md sits between the lines `<!-- api:begin -->` and
`<!-- api:end -->`; the page's other text is kept as it is.
"""
import difflib
import glob
import json
import os
import sys

MODULES = ["Roster", "RosterUpdates"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "Docs", "PublicAPI.md")
BEGIN, END = "<!-- api:begin -->", "<!-- api:end -->"


def symbol_lines():
    # The newest, should builds for more than one platform have left theirs.
    folders = sorted(glob.glob(os.path.join(ROOT, ".build", "*", "symbolgraph")), key=os.path.getmtime, reverse=True)
    if not folders:
        sys.exit("public-api: no symbol graphs under .build; run "
                 "`swift package dump-symbol-graph --minimum-access-level public` first")
    lines = set()
    for module in MODULES:
        files = glob.glob(os.path.join(folders[0], f"{module}.symbols.json"))
        files += glob.glob(os.path.join(folders[0], f"{module}@*.symbols.json"))
        if not files:
            sys.exit(f"public-api: no symbol graph for {module} in {folders[0]}")
        for path in files:
            with open(path) as handle:
                graph = json.load(handle)
            for symbol in graph["symbols"]:
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                    continue
                declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
                declaration = " ".join(declaration.split())
                lines.add(f"{module}: {'.'.join(symbol['pathComponents'])}: {declaration}")
    return sorted(lines)


def page_parts():
    with open(PAGE) as handle:
        text = handle.read()
    start, end = text.index(BEGIN), text.index(END)
    listed = text[start + len(BEGIN):end].strip("\n").split("\n")
    listed = [line for line in listed if line and not line.startswith("```")]
    return text[:start + len(BEGIN)], listed, text[end:]


def main():
    actual = symbol_lines()
    head, listed, tail = page_parts()
    if "--write" in sys.argv:
        with open(PAGE, "w") as handle:
            handle.write(head + "\n```\n" + "\n".join(actual) + "\n```\n" + tail)
        print(f"public-api: wrote {len(actual)} declarations to Docs/PublicAPI.md")
        return 0
    if actual == listed:
        print(f"public-api: {len(actual)} public declarations, as Docs/PublicAPI.md lists them")
        return 0
    print("public-api: the public API differs from Docs/PublicAPI.md "
          "(- listed there, + in the code); if the change is deliberate, run "
          "`python3 Scripts/public-api.py --write` and say why in CHANGELOG.md", file=sys.stderr)
    for line in difflib.unified_diff(listed, actual, "Docs/PublicAPI.md", "code", lineterm="", n=0):
        print(line, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
