#!/usr/bin/env python3
"""The layering of the source tree, checked: what each folder may include.

- enum/, verify/ and search/ (the stages) include nothing from each other;
- nothing in runtime/ includes a stage;
- each room of runtime/ (a sub-folder) includes only itself and the rooms its
  README.md names on its "May include:" line ("every other room" for the top one);
  those lines must describe an order (no two rooms may include each other);
- no source file sits in runtime/ outside a room;
- nothing in runtime/ or a stage includes python/ (the Python package, a
  top-level consumer like the binary: it may include any of them).

Usage: layering_test.py SOURCE_DIR. Prints one line per violation and exits 1.
"""
import pathlib
import re
import sys

STAGES = ("enum", "verify", "search")
CONSUMERS = ("python",)  # top-level folders above every stage and room
SOURCE_SUFFIXES = {".h", ".cc", ".cu"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    return INCLUDE.findall(path.read_text(errors="replace"))


def room_of(relative):
    """'runtime/exec/cuda/x.h' -> 'exec'; None outside a room."""
    parts = pathlib.PurePosixPath(relative).parts
    return parts[1] if len(parts) > 2 and parts[0] == "runtime" else None


def allowed_rooms(root, rooms, problems):
    allowed = {}
    for room in rooms:
        readme = root / "runtime" / room / "README.md"
        if not readme.exists():
            problems.append(f"runtime/{room}/: no README.md saying what it may include")
            continue
        m = re.search(r"^- May include: (.*)$", readme.read_text(), re.M)
        if not m:
            problems.append(f"runtime/{room}/README.md: no '- May include:' line")
            continue
        text = m.group(1)
        if text.startswith("every other room"):
            allowed[room] = set(rooms) - {room}
        else:
            named = set(re.findall(r"`([a-z_]+)/`", text))
            unknown = named - set(rooms)
            if unknown:
                problems.append(f"runtime/{room}/README.md: may include unknown rooms {sorted(unknown)}")
            allowed[room] = named
    for a in allowed:
        for b in allowed[a]:
            if a in allowed.get(b, ()):
                problems.append(f"runtime/{a}/ and runtime/{b}/ may include each other: no order")
    return allowed


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = []
    runtime = root / "runtime"
    rooms = sorted(p.name for p in runtime.iterdir() if p.is_dir())
    for p in runtime.iterdir():
        if p.is_file() and p.name not in ("CMakeLists.txt", "README.md"):
            problems.append(f"runtime/{p.name}: outside a room of runtime/")
    allowed = allowed_rooms(root, rooms, problems)
    checked = 0
    for top in ("runtime",) + STAGES:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES:
                continue
            checked += 1
            rel = path.relative_to(root).as_posix()
            room = room_of(rel)
            for inc in includes(path):
                head = inc.split("/")[0]
                if top in STAGES and head in STAGES and head != top:
                    problems.append(f"{rel}: includes {inc} (stage {top}/ may not include stage {head}/)")
                if top == "runtime" and head in STAGES:
                    problems.append(f"{rel}: includes {inc} (runtime/ may not include a stage)")
                if head in CONSUMERS:
                    problems.append(f"{rel}: includes {inc} ({top}/ may not include {head}/, which uses it)")
                if room and head == "runtime":
                    target = room_of(inc)
                    if target and target != room and target not in allowed.get(room, set()):
                        problems.append(f"{rel}: includes {inc} (runtime/{room}/ may not include "
                                        f"runtime/{target}/; see runtime/{room}/README.md)")
    for p in problems:
        print("FAIL:", p)
    print(f"layering: {checked} files checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
