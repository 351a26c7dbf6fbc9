#!/usr/bin/env python3
# Writes an HDF5 file of ours (rule database, cost table) as the JSON text the
# HDF5 fuzz harnesses read (hdf5_from_json.h), for their seed corpus:
#   h5_to_fuzz_json.py FILE.h5 > FILE.json
# {"attributes": [[NAME, TYPE, VALUE], ...], "datasets": [[PATH, TYPE, [VALUES], ENUM_NAMES?], ...]}
# TYPE: str, i64, u64, i32, f64, enum (uint8 with names).
import json
import sys

import h5py
import numpy


def type_name(dtype):
    if h5py.check_string_dtype(dtype) or dtype.kind == "O":
        return "str"
    if h5py.check_enum_dtype(dtype):
        return "enum"
    return {"i8": "i64", "u8": "u64", "i4": "i32", "f8": "f64"}[dtype.kind + str(dtype.itemsize)]


def plain(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, numpy.generic):
        return value.item()
    return value


f = h5py.File(sys.argv[1], "r")
out = {"attributes": [], "datasets": []}
for name in f.attrs:
    out["attributes"].append([name, type_name(f.attrs.get_id(name).dtype), plain(f.attrs[name])])


def visit(path, obj):
    if isinstance(obj, h5py.Dataset):
        entry = [path, type_name(obj.dtype), [plain(v) for v in obj[()]]]
        enum = h5py.check_enum_dtype(obj.dtype)
        if enum:
            entry.append(sorted(enum, key=enum.get))
        out["datasets"].append(entry)


f.visititems(visit)
json.dump(out, sys.stdout, indent=0)
