#!/usr/bin/env python3
"""Turns the JSON lines of `roster bench --json` into the tables and plots of Docs/Performance.md.

    python3 Scripts/performance-page.py table Docs/Performance/sqlite.jsonl Docs/Performance/window.jsonl Docs/Performance/server.jsonl Docs/Performance/entities.jsonl Docs/Performance/observed.jsonl
    python3 Scripts/performance-page.py plots Docs/Performance/sqlite.jsonl   # needs matplotlib
    python3 Scripts/performance-page.py check Docs/Performance/sqlite.jsonl Docs/Performance/window.jsonl Docs/Performance/server.jsonl Docs/Performance/entities.jsonl Docs/Performance/observed.jsonl

`table` prints the "What to expect" table (Markdown) on standard output: one row for each
figure and size, with median, p99 and max, the baseline measured in the same run and the
ratio between them. `check` fails unless Docs/Performance.md holds that table as it is
drawn (CI runs it, so the page's table and the measurements committed beside it agree). `plots` draws the page's images into Docs/ (performance-*.png). Each input file
is one run of `roster bench`, its first line added by hand as Docs/Performance.md
("Measuring") says: `{"commit": …, "run": …}`, the commit measured and the command that ran.
"""
import json
import os
import sys

# What the table shows: (scenario, what, Roster's metric, the baseline's metric or None,
# the baseline's name, how to read the ratio). A metric names durations recorded as
# .median/.p99/.max, or a single value when it has no such children. The ratio is the
# baseline's median over Roster's ("faster": a baseline Roster replaces), or Roster's over
# the baseline's ("floor": the least the work can cost; "one": the same work for one query),
# or their difference ("added": what a layer over the baseline adds to it).
ROWS = [
    ("fetch", "performFetch, whole results", "roster.perform_fetch", "floor.fetch", "raw scan floor", "floor"),
    ("commit", "one-row insert", "insert.roster.commit_to_batch", "insert.baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("commit", "one-row delete", "delete.roster.commit_to_batch", "delete.baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("commit", "one-row move within a section", "move_within_section.roster.commit_to_batch", "move_within_section.baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("commit", "one-row move to another section", "move_to_other_section.roster.commit_to_batch", "move_to_other_section.baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("commit", "one-row update in place", "update_in_place.roster.commit_to_batch", "update_in_place.baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("feed", "feed re-sync of 500 posts", "resync.roster.commit_to_batch", "resync.baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("feed", "the same re-sync again, nothing changed", "unchanged.roster.after_commit", "unchanged.baseline.refresh", "re-fetch and diff", "faster"),
    ("queries", "100 live queries, one-row commit → all batches", "hundred_queries.commit_to_all_batches", "one_query.commit_to_all_batches", "one live query", "one"),
    ("displayed", "write to a column 100 queries do not display", "hundred_displaying.commit_to_all_batches", "one_displaying.commit_to_all_batches", "one live query", "one"),
    ("bulk", "one commit changing 10 % of the rows", "roster.commit_to_batch", "baseline.commit_to_batch", "re-fetch and diff", "faster"),
    ("live", "LiveResults: takeChange() of a one-row commit", "live_results.take_change", None, None, None),
    ("observed", "ObservedResults: one-row commit to a window of 100 → published", "observed_results.refresh", "live_results.take_change", "LiveResults, the same commit", "added"),
    ("window", "window of 100: one-row commit", "window_commit.roster", "window_commit.refetch", "window re-fetch", "faster"),
    ("window", "… the same commits, the CPU time of the writing thread", "window_commit_cpu.roster", None, None, None),
    ("window", "window of 100: move one screen", "window_move.roster", "window_move.refetch", "window re-fetch", "faster"),
    ("window", "window of 100: resume after 1,000 edits that place no row", "resume.roster", "resume.refetch", "window re-fetch", "faster"),
    ("window", "… the same resume, against a relaunched app's re-fetch", "resume_relaunched.roster", "resume_relaunched.refetch", "window re-fetch on a new connection", "faster"),
    ("window", "… Roster's reads alone: the log since the token and the rows the window showed", "resume_placing_floor.roster", "resume_placing_floor.refetch", "window re-fetch", "faster"),
    ("window", "… SQLite's own floor: the log, the window's rows by the serving index", "resume_sqlite_floor.roster", "resume_sqlite_floor.refetch", "window re-fetch", "faster"),
    ("window", "window of 100: resume after 1,000 edits that re-sort rows", "resume_resorting.roster", "resume_resorting.refetch", "window re-fetch", "faster"),
    ("window", "… Roster's reads alone: the log since the token and its 1,000 rows", "resume_resorting_floor.roster", "resume_resorting_floor.refetch", "window re-fetch", "faster"),
    ("window", "… SQLite's own floor: the log, the 1,000 rows, the window's rows", "resume_resorting_sqlite_floor.roster", "resume_resorting_sqlite_floor.refetch", "window re-fetch", "faster"),
    ("window", "window of 100: cold open, offset", "cold_open_offset.roster", "cold_open_offset.refetch", "whole fetch", "faster"),
    ("window", "window of 100: cold open, anchored", "cold_open_anchored.roster", "cold_open_anchored.refetch", "whole fetch", "faster"),
    ("unread", "unread counts: mark one read → batch + counts", "with_aggregates.commit_to_batch_and_counts", "baseline.refetch_diff_group_by", "re-fetch, diff, GROUP BY", "faster"),
    ("unread", "unread counts: rename a feed of 100", "rename.commit_to_batch_and_counts", "rename.baseline.refetch_diff_group_by", "re-fetch, diff, GROUP BY", "faster"),
    ("cross-process", "another process commits → change here", "watching.commit_to_change", "polling.commit_to_change", "polling every 100 ms", "faster"),
    ("server", "PostgreSQL: another process commits → batch", "watching.commit_to_change", "refetch.commit_to_change", "re-fetch and diff on the server", "faster"),
    ("server", "PostgreSQL: 20 clients hear one commit", "fanout20.commit_to_all", None, None, None),
    ("entities", "N entities: define (one batch) and watch each", "roster.define_and_watch", "floor.ddl", "SQLite, the same DDL in one transaction", "floor"),
]


def load(paths):
    """Each file's header and its measurements, as {(scenario, N, metric): value}."""
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            lines = [json.loads(line) for line in handle if line.strip()]
        if not lines or not {"commit", "run"} <= lines[0].keys():
            sys.exit(f"{path}: the first line must be {{\"commit\": …, \"run\": …}}")
        values = {}
        for line in lines[1:]:
            values[(line["scenario"], line["N"], line["metric"])] = line["value"]
        runs.append((lines[0], values))
    return runs


def number(value, unit="ms"):
    """A figure as the page writes it: three significant digits, thousands separated."""
    if value is None:
        return "–"
    if unit == "x":
        return f"{value:,.0f}×" if value >= 100 else f"{value:.2g}×" if value < 10 else f"{value:.1f}×"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    if value >= 0.1:
        return f"{value:.3f}"
    return f"{value:.4f}"


def summary(values, scenario, size, metric):
    """Median, p99 and max of a duration metric; a lone value counts as its median."""
    get = lambda suffix: values.get((scenario, size, metric + suffix))
    median = get(".median") if get(".median") is not None else get("")
    return median, get(".p99"), get(".max")


def table(paths):
    print("\n".join(table_rows(paths)))


def table_rows(paths):
    """The "What to expect" table, a line a row."""
    rows = []
    rows.append("| what | N | median ms | p99 | max | baseline (median ms) | ratio | scenario | commit |")
    rows.append("| --- | ---: | ---: | ---: | ---: | --- | ---: | --- | --- |")
    for header, values in load(paths):
        sizes = sorted({size for (_, size, _) in values})
        for scenario, what, metric, base, base_name, reading in ROWS:
            for size in sizes:
                median, p99, worst = summary(values, scenario, size, metric)
                if median is None:
                    continue
                base_cell, ratio_cell = "–", "–"
                if base:
                    base_median, _, _ = summary(values, scenario, size, base)
                    if base_median is not None:
                        base_cell = f"{base_name}: {number(base_median)}"
                        ratio_cell = {
                            "faster": lambda: number(base_median / median, "x") + " faster",
                            "floor": lambda: number(median / base_median, "x") + " the floor",
                            "one": lambda: number(median / base_median, "x") + " one query",
                            "added": lambda: ("+" if median >= base_median else "−") + number(abs(median - base_median)) + " ms at p50",
                        }[reading]()
                rows.append(f"| {what} | {size:,} | {number(median)} | {number(p99)} | {number(worst)} | {base_cell} "
                      f"| {ratio_cell} | `{scenario}` | {header['commit']} |")
    return rows


def check(paths):
    rows = table_rows(paths)
    page = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Docs", "Performance.md")
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    missing = [row for row in rows if row not in text]
    if missing:
        sys.exit("Docs/Performance.md does not hold these rows as the measurements draw them "
                 "(run `table` and paste its output):\n" + "\n".join(missing))
    if "\n".join(rows) not in text:
        sys.exit("Docs/Performance.md holds the table's rows, but not as one table in this order")
    print(f"Docs/Performance.md: the table's {len(rows) - 2} rows match {', '.join(paths)}")


def plots(paths):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    values = {}
    commits = set()
    for header, run in load(paths):
        values.update(run)
        commits.add(header["commit"])
    stamp = "measured at " + ", ".join(sorted(commits)) + " (release build, 2 cores)"
    # Beside the page, where GitHub and DocC (through the catalog's links to them) find them.
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Docs")

    # 1. One-row commits against N: Roster grows like log N, re-fetch and diff like N.
    figure, axis = plt.subplots(figsize=(7, 4.2))
    sizes = sorted({size for (scenario, size, _) in values if scenario == "commit"})
    for kind, label in [("insert", "insert"), ("move_to_other_section", "move to another section")]:
        axis.plot(sizes, [values.get(("commit", n, f"{kind}.roster.commit_to_batch.median")) for n in sizes],
                  marker="o", label=f"Roster, {label} (median)")
        axis.plot(sizes, [values.get(("commit", n, f"{kind}.roster.commit_to_batch.p99")) for n in sizes],
                  marker=".", linestyle=":", label=f"Roster, {label} (p99)")
    axis.plot(sizes, [values.get(("commit", n, "insert.baseline.commit_to_batch.median")) for n in sizes],
              marker="s", color="black", label="re-fetch and diff (median)")
    window = sorted({size for (scenario, size, _) in values if scenario == "window"})
    axis.plot(window, [values.get(("window", n, "window_commit.roster.median")) for n in window],
              marker="^", label="Roster, window of 100 (median)")
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("rows in the results (N)")
    axis.set_ylabel("commit → batch ready, ms (log)")
    axis.set_title("A one-row commit: cost against the size of the results")
    axis.grid(True, which="major", alpha=0.3)
    axis.legend(fontsize=7)
    figure.text(0.99, 0.01, stamp, ha="right", fontsize=6, color="gray")
    figure.tight_layout()
    figure.savefig(os.path.join(out, "performance-one-row-commit.png"), dpi=110)

    # 2. Commits that change a share of the rows: the three paths and the one chosen.
    crossover_sizes = sorted({size for (scenario, size, _) in values if scenario == "crossover"})
    figure, axes = plt.subplots(1, len(crossover_sizes), figsize=(4 * len(crossover_sizes), 4), squeeze=False)
    for axis, size in zip(axes[0], crossover_sizes):
        shares = sorted({float(metric.split("share_")[1].rsplit(".", 1)[0])
                         for (scenario, n, metric) in values
                         if scenario == "crossover" and n == size and ".share_" in metric and metric.endswith(".median")})
        for name, label, style in [("row_by_row", "row by row", "o-"), ("refetch", "re-fetch", "s-"),
                                   ("resort", "re-sort", "^-"), ("chosen", "chosen by cost", "k--")]:
            points = [(share, values.get(("crossover", size, f"{name}.share_{share:g}.median"))) for share in shares]
            points = [(share, value) for share, value in points if value is not None]
            if points:
                axis.plot([share for share, _ in points], [value for _, value in points], style,
                          label=label, markersize=4)
        # The floor, raw sqlite3 stepping the ORDER BY in the same rounds, is recorded as the
        # re-fetch's ratio to it.
        floor = [(share, values[("crossover", size, f"refetch.share_{share:g}.median")]
                  / values[("crossover", size, f"refetch_over_floor.share_{share:g}")])
                 for share in shares if ("crossover", size, f"refetch_over_floor.share_{share:g}") in values]
        if floor:
            axis.plot([share for share, _ in floor], [value for _, value in floor], ":", color="gray",
                      label="raw scan floor")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_title(f"N = {size:,}")
        axis.set_xlabel("share of the rows changed, % (log)")
        axis.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("commit → batch, ms (log)")
    axes[0][0].legend(fontsize=7)
    figure.suptitle("A bulk commit: row by row, re-sort and merge, re-fetch — and the path chosen by cost")
    figure.text(0.99, 0.01, stamp, ha="right", fontsize=6, color="gray")
    figure.tight_layout()
    figure.savefig(os.path.join(out, "performance-bulk-commit-paths.png"), dpi=110)


if __name__ == "__main__":
    commands = {"table": table, "check": check, "plots": plots}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2:])
