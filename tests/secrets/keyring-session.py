#!/usr/bin/env python3
"""Runs a test inside a private D-Bus session with a real, fresh GNOME Keyring.

    keyring-session.py [--marker TEXT]... -- COMMAND [ARGS...]

HOME and the XDG folders are made in a new temporary directory (TMPDIR too,
beside them), a session bus is started with dbus-run-session, and
gnome-keyring-daemon is started in it with --unlock, which creates a login
keyring unlocked with a test password. COMMAND runs there, with no display
(an unlock prompt must fail fast, not wait on a screen) and none of the
caller's keys or OpenWorker settings. Afterwards every file under HOME and
the XDG folders is searched for each marker (default: the one every test
secret contains); a hit fails the run, whatever COMMAND returned.

A missing gnome-keyring or D-Bus is a failure, not a skip: the suite's
install line has them, so their absence means the check did not happen.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DEFAULT_MARKER = "owtest-secret-Zq8"
PASSWORD = b"ow-test-password"
GREPPED = ("home", "config", "data", "cache", "state", "runtime")


def fail(message):
    print(f"keyring-session: {message}", file=sys.stderr)
    sys.exit(1)


def dbus_send(*args, timeout=10):
    return subprocess.run(["dbus-send", "--session", "--print-reply", *args],
                          capture_output=True, text=True, timeout=timeout)


def inner(command):
    """In the private bus: start the keyring, run the command, stop the keyring."""
    # The daemon is the machine's, not code under test: the test settings
    # (G_DEBUG=fatal-warnings, MALLOC_PERTURB_, sanitizer options) are not
    # its to honour, and fatal warnings would kill it mid-test.
    daemon_env = {k: v for k, v in os.environ.items()
                  if not (k.startswith("G_DEBUG") or k.startswith("MALLOC_") or k.endswith("SAN_OPTIONS"))}
    daemon = subprocess.run(["gnome-keyring-daemon", "--unlock", "--components=secrets"],
                            input=PASSWORD, capture_output=True, timeout=30, env=daemon_env)
    if daemon.returncode != 0:
        fail(f"gnome-keyring-daemon --unlock failed: {daemon.stderr.decode(errors='replace')}")
    env = dict(os.environ)
    for line in daemon.stdout.decode().splitlines():
        if "=" in line:
            name, value = line.split("=", 1)
            env[name] = value

    # The daemon forks; wait until it owns the Secret Service name.
    deadline = time.time() + 15
    while True:
        r = dbus_send("--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                      "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets")
        if "boolean true" in r.stdout:
            break
        if time.time() > deadline:
            fail("gnome-keyring-daemon did not take org.freedesktop.secrets on the session bus")
        time.sleep(0.05)
    r = dbus_send("--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                  "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.secrets")
    pid = int(r.stdout.split()[-1])
    # The fresh keyring must be the default collection, unlocked.
    r = dbus_send("--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                  "org.freedesktop.Secret.Service.ReadAlias", "string:default")
    if "/org/freedesktop/secrets/collection/" not in r.stdout:
        fail(f"the keyring has no default collection: {r.stdout} {r.stderr}")

    try:
        code = subprocess.run(command, env=env).returncode
    finally:
        # The daemon this script started, by its id.
        try:
            os.kill(pid, signal.SIGTERM)
            for _ in range(200):
                os.kill(pid, 0)
                time.sleep(0.025)
        except ProcessLookupError:
            pass
    return code


def find_markers(root, markers):
    hits, n = [], 0
    for sub in GREPPED:
        for folder, _, files in os.walk(os.path.join(root, sub)):
            for name in files:
                path = os.path.join(folder, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                n += 1
                with open(path, "rb") as f:
                    data = f.read()
                hits += [(path, m) for m in markers if m.encode() in data]
    return hits, n


def main(argv):
    if "--inner" in argv:
        sep = argv.index("--")
        sys.exit(inner(argv[sep + 1:]))

    if "--" not in argv:
        fail("usage: keyring-session.py [--marker TEXT]... -- COMMAND [ARGS...]")
    sep = argv.index("--")
    options, command = argv[1:sep], argv[sep + 1:]
    markers = [options[i + 1] for i, o in enumerate(options) if o == "--marker"] or [DEFAULT_MARKER]
    for tool, package in (("dbus-run-session", "dbus"), ("dbus-send", "dbus"),
                          ("gnome-keyring-daemon", "gnome-keyring")):
        if shutil.which(tool) is None:
            fail(f"{tool} is not installed (apt-get install {package}); the keyring tests cannot run without it")

    root = tempfile.mkdtemp(prefix="ow-keyring-")
    for sub in (*GREPPED, "tmp"):
        os.makedirs(os.path.join(root, sub), mode=0o700)

    # The grep must be able to find something: a positive control.
    probe = os.path.join(root, "home", "control")
    with open(probe, "w") as f:
        f.write(markers[0])
    if find_markers(root, markers[:1])[0] != [(probe, markers[0])]:
        fail("the marker search does not work")
    os.unlink(probe)

    env = {k: v for k, v in os.environ.items()
           if not (k.endswith("_API_KEY") or k.startswith("OPENWORKER_") or k.startswith("DBUS_")
                   or k.startswith("GNOME_KEYRING") or k in ("DISPLAY", "WAYLAND_DISPLAY", "SSH_AUTH_SOCK"))}
    env.update(HOME=os.path.join(root, "home"),
               XDG_CONFIG_HOME=os.path.join(root, "config"),
               XDG_DATA_HOME=os.path.join(root, "data"),
               XDG_CACHE_HOME=os.path.join(root, "cache"),
               XDG_STATE_HOME=os.path.join(root, "state"),
               XDG_RUNTIME_DIR=os.path.join(root, "runtime"),
               TMPDIR=os.path.join(root, "tmp"),
               OW_KEYRING_SESSION=root)

    code = subprocess.run(["dbus-run-session", "--", sys.executable, os.path.abspath(__file__), "--inner", "--",
                           *command], env=env).returncode

    hits, n = find_markers(root, markers)
    for path, marker in hits:
        print(f"keyring-session: a test secret ({marker}) is in {path}", file=sys.stderr)
    print(f"keyring-session: searched {n} files under HOME and the XDG folders for test secrets: "
          f"{len(hits)} found", file=sys.stderr)
    if os.environ.get("OW_KEEP_TMP"):
        print(f"keyring-session: kept {root}", file=sys.stderr)
    else:
        shutil.rmtree(root, ignore_errors=True)
    if hits:
        sys.exit(1)
    # 77 would read as "skipped": a failed test is a failure here.
    sys.exit(1 if code == 77 else code)


if __name__ == "__main__":
    main(sys.argv)
