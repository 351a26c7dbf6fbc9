"""Writes HDF5 files whose data lies in other files, for the tests that they are
refused (issue 37, item 2):
    make_hdf5_external_fixtures.py RULES COSTS OUTDIR
Into OUTDIR, each a copy of RULES (a rule database) or COSTS (a cost table)
with one item changed:
  rules_external_storage.h5   /rules/note kept in /etc/passwd (HDF5 external storage)
  rules_virtual.h5            /rules/note a virtual dataset over secret.h5
  rules_external_link.h5      /rules/note an external link to secret.h5
  rules_group_link.h5         /rules an external link to the group in a plain copy
  rules_soft_link.h5          /rules/note a soft link to /secret, which is an external link
  costs_external_storage.h5   /cost_ms kept in costs.bin (HDF5 external storage)
Run with /usr/bin/python3 (h5py, numpy)."""
import os
import shutil
import sys

import h5py
import numpy as np

rules, costs, out = (os.path.abspath(p) for p in sys.argv[1:4])
os.makedirs(out, exist_ok=True)
os.chdir(out)

# The file the links and the virtual dataset point into.
with h5py.File("secret.h5", "w") as f:
    f["note"] = np.array([b"secret"] * 4, dtype="S64")
shutil.copyfile(rules, "rules_plain.h5")


def changed_copy(source, name, change):
    shutil.copyfile(source, name)
    with h5py.File(name, "r+") as f:
        change(f)


def note_rows(f):
    rows = f["rules/note"].shape[0]
    del f["rules/note"]
    return rows


def external_storage(f):
    rows = note_rows(f)
    f.create_dataset("rules/note", (rows,), dtype="S64", external=[("/etc/passwd", 0, h5py.h5f.UNLIMITED)])


def virtual(f):
    rows = note_rows(f)
    layout = h5py.VirtualLayout(shape=(rows,), dtype="S64")
    layout[:] = h5py.VirtualSource("secret.h5", "note", shape=(rows,))
    f.create_virtual_dataset("rules/note", layout)


def external_link(f):
    note_rows(f)
    f["rules/note"] = h5py.ExternalLink("secret.h5", "/note")


def group_link(f):
    del f["rules"]
    f["rules"] = h5py.ExternalLink("rules_plain.h5", "/rules")


def soft_link(f):
    note_rows(f)
    f["secret"] = h5py.ExternalLink("secret.h5", "/note")
    f["rules/note"] = h5py.SoftLink("/secret")


changed_copy(rules, "rules_external_storage.h5", external_storage)
changed_copy(rules, "rules_virtual.h5", virtual)
changed_copy(rules, "rules_external_link.h5", external_link)
changed_copy(rules, "rules_group_link.h5", group_link)
changed_copy(rules, "rules_soft_link.h5", soft_link)


def external_costs(f):
    values = f["cost_ms"][:]
    values.astype("<f8").tofile("costs.bin")
    del f["cost_ms"]
    f.create_dataset("cost_ms", values.shape, dtype="<f8", external=[("costs.bin", 0, h5py.h5f.UNLIMITED)])


changed_copy(costs, "costs_external_storage.h5", external_costs)
