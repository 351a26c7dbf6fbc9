#!/usr/bin/python3
"""Checks a reproduction script's output: the CSV has ROWS data rows with the
given columns, no row failed (FAILED / FAIL), and the PNG is a real image of
at least 10 KB.
  reproduce_check.py CSV ROWS PNG COLUMN..."""
import csv
import os
import sys

path, rows_expected, png = sys.argv[1], int(sys.argv[2]), sys.argv[3]
columns = sys.argv[4:]
rows = list(csv.DictReader(open(path)))
if len(rows) != rows_expected:
    sys.exit(f"FAIL: {path} has {len(rows)} rows, expected {rows_expected}")
for c in columns:
    if c not in rows[0]:
        sys.exit(f"FAIL: {path} has no column {c}")
for r in rows:
    bad = [k for k, v in r.items() if v in ("FAILED", "FAIL")]
    if bad:
        sys.exit(f"FAIL: {path}: a run failed: {r}")
with open(png, "rb") as f:
    if f.read(8) != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"FAIL: {png} is not a PNG")
size = os.path.getsize(png)
if size < 10_000:
    sys.exit(f"FAIL: {png} is only {size} bytes")
print(f"reproduce_check: ok ({len(rows)} rows, {size} byte PNG)")
