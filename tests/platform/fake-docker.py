#!/usr/bin/env python3
"""A stand-in for `docker`, answering the two questions the OpenShell backend
asks it: is the base image here, and does the kernel have Landlock.
Calls are recorded in FAKE_OPENSHELL_DIR/docker.jsonl; FAKE_OPENSHELL_MODE
may hold no-image and no-landlock."""

import json
import os
import sys

MODE = set(filter(None, os.environ.get("FAKE_OPENSHELL_MODE", "").split(",")))
args = sys.argv[1:]
with open(os.path.join(os.environ["FAKE_OPENSHELL_DIR"], "docker.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps({"argv": args}) + "\n")
if args[:2] == ["image", "inspect"]:
    if "no-image" in MODE:
        print(f"Error: No such image: {args[-1]}", file=sys.stderr)
        sys.exit(1)
    print("sha256:0123456789abcdef")
elif args[:1] == ["run"] and args[-1] == "/sys/kernel/security/lsm":
    print("lockdown,capability,yama,apparmor" if "no-landlock" in MODE else "lockdown,capability,landlock,yama,apparmor")
else:
    print(f"fake docker: unexpected {args}", file=sys.stderr)
    sys.exit(2)
