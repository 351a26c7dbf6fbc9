#!/usr/bin/python3
"""Whether one minimal rule set derives another (issue 20, representatives only).

minimal_union.py BASE.h5 OTHER.h5 OUT.h5 writes OUT.h5: BASE's minimal set
(its verified rules after `superopt derive`) as verified, then OTHER's
minimal-set rules that BASE lacks as candidates, no derivations. Running
`superopt derive OUT.h5` then derives the OTHER rules that BASE's minimal set
implies; those left `candidate` are the ones it does not (within derive's
bounds). Prints how many of OTHER's minimal rules BASE already holds."""
import sys

import h5py
import numpy as np

VERIFIED, CANDIDATE = 1, 0


def minimal(path):
    with h5py.File(path, "r") as f:
        r = f["rules"]
        keep = r["status"][:] == VERIFIED
        return {name: r[name][:][keep] for name in r}


def main(base_path, other_path, out_path):
    base, other = minimal(base_path), minimal(other_path)
    have = set(zip(base["source"], base["target"]))
    extra = np.array([(s, t) not in have for s, t in zip(other["source"], other["target"])], dtype=bool)
    with h5py.File(base_path, "r") as src, h5py.File(out_path, "w") as out:
        for key, value in src.attrs.items():
            out.attrs[key] = value
        for group in ("stages",):
            src.copy(group, out)
        rules = out.create_group("rules")
        for name, dataset in src["rules"].items():
            column = np.concatenate([base[name], other[name][extra]])
            if name == "status":
                column[:] = CANDIDATE
                column[: len(base[name])] = VERIFIED
            if name in ("derivation", "note"):
                column[:] = b""
            made = rules.create_dataset(name, data=column, dtype=dataset.dtype)
            for key, value in dataset.attrs.items():
                made.attrs[key] = value
    print(f"{base_path}: {len(base['status'])} minimal rules; {other_path}: {len(other['status'])} minimal rules, "
          f"{int((~extra).sum())} of them in both, {int(extra.sum())} to derive")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: minimal_union.py BASE.h5 OTHER.h5 OUT.h5")
    main(*sys.argv[1:])
