#!/usr/bin/env python3
"""Runs a UI test with a display, a private D-Bus session and a fresh GNOME Keyring.

    ui-session.py [--no-display] [--no-keyring] [--marker TEXT]... -- COMMAND [ARGS...]

The display is a private Xvfb this script starts, else $DISPLAY when one
is set (xvfb-run, a desktop); with neither, the test is skipped (77)
with a message, as TESTING.md asks of the ui suite. --no-display runs
without one (the tray speaks D-Bus only).

HOME and the XDG folders are made in a new temporary directory. The session
bus and the keyring are tests/secrets/keyring-session.py's: this script runs
its inner part under dbus-run-session (a real gnome-keyring-daemon, unlocked
with a test password, owning org.freedesktop.secrets), and afterwards uses
its search to look in every file under HOME and the XDG folders for the test
secrets: a hit fails the run, whatever the test returned.
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KEYRING_SESSION = os.path.join(HERE, "..", "secrets", "keyring-session.py")

spec = importlib.util.spec_from_file_location("keyring_session", KEYRING_SESSION)
keyring_session = importlib.util.module_from_spec(spec)
spec.loader.exec_module(keyring_session)


def say(message):
    print(f"ui-session: {message}", file=sys.stderr)


def start_xvfb():
    """A private X server on a free display; (process, ":N") or (None, None)."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        return None, None
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(write_fd), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                            pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write_fd)
    with os.fdopen(read_fd) as f:
        number = f.readline().strip()
    if not number:
        proc.kill()
        proc.wait()
        return None, None
    return proc, ":" + number


def main(argv):
    if "--" not in argv:
        say("usage: ui-session.py [--no-display] [--no-keyring] [--marker TEXT]... -- COMMAND [ARGS...]")
        return 2
    sep = argv.index("--")
    options, command = argv[1:sep], argv[sep + 1:]
    markers = [options[i + 1] for i, o in enumerate(options) if o == "--marker"] or [keyring_session.DEFAULT_MARKER]
    want_display = "--no-display" not in options
    want_keyring = "--no-keyring" not in options

    for tool in ("dbus-run-session",) + (("gnome-keyring-daemon",) if want_keyring else ()):
        if shutil.which(tool) is None:
            say(f"{tool} is not installed; the install line in TESTING.md has it")
            return 1

    xvfb, display = None, None
    if want_display:
        # A display of its own whenever Xvfb is there, even under xvfb-run:
        # tests side by side on one display share its root window, where each
        # session's AT-SPI bus launcher writes its bus address (AT_SPI_BUS)
        # and every AT-SPI registry looks first. One test's registry then
        # served another's bus, and GTK's registration on its own bus timed
        # out after 25 s ("Unable to register the application").
        xvfb, display = start_xvfb()
        if not display:
            display = os.environ.get("DISPLAY")
        if not display:
            say("no display: $DISPLAY is unset and Xvfb is not installed; skipping")
            return 77

    root = tempfile.mkdtemp(prefix="ow-ui-")
    for sub in (*keyring_session.GREPPED, "tmp"):
        os.makedirs(os.path.join(root, sub), mode=0o700)
    # Nothing of the person's own session reaches the test: no keys, no
    # OpenWorker home, no bus or keyring. The tool runner's path is the
    # build's own (meson sets it), so it is kept, and so is the switch that
    # keeps the title call from taking a scripted model turn.
    env = {k: v for k, v in os.environ.items()
           if k in ("OPENWORKER_TOOL_RUNNER", "OPENWORKER_AUTO_TITLE")
           or not (k.endswith("_API_KEY") or k.startswith("OPENWORKER_") or k.startswith("DBUS_")
                   or k.startswith("GNOME_KEYRING") or k in ("WAYLAND_DISPLAY", "SSH_AUTH_SOCK", "DISPLAY"))}
    env.update(HOME=os.path.join(root, "home"),
               XDG_CONFIG_HOME=os.path.join(root, "config"),
               XDG_DATA_HOME=os.path.join(root, "data"),
               XDG_CACHE_HOME=os.path.join(root, "cache"),
               XDG_STATE_HOME=os.path.join(root, "state"),
               XDG_RUNTIME_DIR=os.path.join(root, "runtime"),
               TMPDIR=os.path.join(root, "tmp"),
               GDK_BACKEND="x11",
               OW_UI_SESSION=root)
    if display:
        env["DISPLAY"] = display
    else:
        env["GDK_BACKEND"] = "none"

    try:
        if want_keyring:
            inner = [sys.executable, KEYRING_SESSION, "--inner", "--", *command]
        else:
            inner = command
        code = subprocess.run(["dbus-run-session", "--", *inner], env=env).returncode
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait()

    hits, n = keyring_session.find_markers(root, markers)
    for path, marker in hits:
        say(f"a test secret ({marker}) is in {path}")
    say(f"searched {n} files under HOME and the XDG folders for test secrets: {len(hits)} found")
    if os.environ.get("OW_KEEP_TMP"):
        say(f"kept {root}")
    else:
        shutil.rmtree(root, ignore_errors=True)
    if hits:
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
