#!/usr/bin/env python3
"""One OpenWorker per person: a second launch hands over to the first.

    test-single-instance.py OPENWORKER_DESKTOP

Runs inside ui-session.py (a display, a private session bus, a fresh
keyring, HOME and the XDG folders in a temporary directory). The real
openworker-desktop is started on an OpenWorker home of its own and waited
for on the bus (com.openworker.OpenWorker). A second launch with no
argument must exit at once and leave one window; a second launch with a
folder must exit at once too, and the first instance must have made a
session in that folder (read from its state database). The first instance
is then asked to quit through its own "quit" action, as the tray does.
"""
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

APP_ID = "com.openworker.OpenWorker"
APP_PATH = "/com/openworker/OpenWorker"


def fail(message):
    print(f"not ok: {message}", file=sys.stderr)
    sys.exit(1)


def wait_for(what, check, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    fail(f"timed out waiting for {what}")


def name_has_owner():
    out = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus",
                          "--object-path", "/org/freedesktop/DBus",
                          "--method", "org.freedesktop.DBus.NameHasOwner", APP_ID],
                         capture_output=True, text=True)
    return out.returncode == 0 and "true" in out.stdout


def visible_windows(pid):
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid)],
                         capture_output=True, text=True)
    return [w for w in out.stdout.split() if w.strip()]


def sessions_in(db_path, folder):
    if not os.path.exists(db_path):
        return []
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        return con.execute("SELECT session_id FROM sessions WHERE workspace = ?", (folder,)).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def second_launch(exe, env, *args):
    start = time.monotonic()
    try:
        done = subprocess.run([exe, *args], env=env, timeout=30, capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        fail(f"a second launch {list(args)} did not hand over and exit")
    if done.returncode != 0:
        fail(f"a second launch {list(args)} exited {done.returncode}: {done.stderr.strip()}")
    return time.monotonic() - start


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe = argv[1]
    if not os.environ.get("OW_UI_SESSION") or not os.environ.get("DISPLAY"):
        print("test-single-instance runs inside ui-session.py, with a display", file=sys.stderr)
        return 1

    home = tempfile.mkdtemp(prefix="ow-single-", dir=os.environ["HOME"])
    folder = os.path.join(os.environ["HOME"], "project")
    os.makedirs(folder)
    env = dict(os.environ, OPENWORKER_HOME=home, G_DEBUG="fatal-criticals",
               # A key, so the app opens on its window rather than first-run
               # Settings; it carries the marker ui-session.py looks for on disk.
               OPENAI_API_KEY="sk-owtest-secret-Zq8-single-instance",
               OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    db_path = os.path.join(home, "data", "openworker.db")

    first = subprocess.Popen([exe], env=env)
    try:
        wait_for("the first instance on the bus", lambda: first.poll() is None and name_has_owner())
        windows = wait_for("the first instance's window", lambda: visible_windows(first.pid))
        print(f"# first instance {first.pid}: {len(windows)} window(s)")

        took = second_launch(exe, env)
        print(f"# a second launch handed over in {took:.2f} s")
        if first.poll() is not None:
            fail("the first instance went away when the second launched")
        time.sleep(0.5)
        now = visible_windows(first.pid)
        if len(now) != len(windows):
            fail(f"a second launch changed the windows: {len(windows)} before, {len(now)} after")

        if sessions_in(db_path, folder):
            fail("a session was in the folder before it was asked for")
        took = second_launch(exe, env, folder)
        print(f"# a second launch with a folder handed over in {took:.2f} s")
        rows = wait_for("a session in the folder given to the second launch", lambda: sessions_in(db_path, folder))
        if len(rows) != 1:
            fail(f"{len(rows)} sessions in {folder}, not one")
        print(f"# session {rows[0][0]} opened in {folder}")
        if len(visible_windows(first.pid)) != len(windows):
            fail("the folder opened a window of its own")

        subprocess.run(["gdbus", "call", "--session", "--dest", APP_ID, "--object-path", APP_PATH,
                        "--method", "org.gtk.Actions.Activate", "quit", "[]", "{}"],
                       capture_output=True, timeout=10)
        try:
            code = first.wait(timeout=20)
        except subprocess.TimeoutExpired:
            fail("the first instance did not quit through its quit action")
        if code != 0:
            fail(f"the first instance exited {code}")
    finally:
        if first.poll() is None:
            first.terminate()
            try:
                first.wait(timeout=10)
            except subprocess.TimeoutExpired:
                first.kill()
    print("ok: one instance; a second launch presents it, a folder opens a session there")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
