#!/usr/bin/env python3
"""Checks that po/POTFILES.in lists every file with translatable strings, sorted.

    check-potfiles.py SOURCE_ROOT [--print]

A file has translatable strings when it is under app/, ui/ or data/ and uses
gettext: _(" N_(" C_(" NC_(" g_dngettext ngettext, translatable="yes" in a
.ui file, or is a .desktop.in / .metainfo.xml.in file. The engine is GTK-free
and untranslated (its messages are English sentences), so it is not searched.
--print writes the list POTFILES.in should hold.
"""
import os
import re
import sys

SEARCHED = ("app", "ui", "data")
MARKERS = re.compile(r'(?<![A-Za-z0-9_])(?:N?C?_|g_dngettext|ngettext|g_dpgettext2?)\s*\(\s*"|translatable="yes"')


def wanted(root):
    out = []
    for top in SEARCHED:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in files:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                if name.endswith((".desktop.in", ".metainfo.xml.in")):
                    out.append(rel)
                elif name.endswith((".c", ".ui")):
                    with open(path, encoding="utf-8", errors="replace") as f:
                        if MARKERS.search(f.read()):
                            out.append(rel)
    return sorted(out)


def main(argv):
    root = argv[1]
    expected = wanted(root)
    if "--print" in argv:
        print("\n".join(expected))
        return 0
    with open(os.path.join(root, "po", "POTFILES.in"), encoding="utf-8") as f:
        listed = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    ok = True
    if listed != sorted(listed):
        print("po/POTFILES.in is not sorted", file=sys.stderr)
        ok = False
    for missing in sorted(set(expected) - set(listed)):
        print(f"po/POTFILES.in does not list {missing}, which has translatable strings", file=sys.stderr)
        ok = False
    for gone in sorted(set(listed) - set(expected)):
        if not os.path.exists(os.path.join(root, gone)):
            print(f"po/POTFILES.in lists {gone}, which does not exist", file=sys.stderr)
            ok = False
    print(f"check-potfiles: {len(listed)} files listed, {len(expected)} with translatable strings")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
