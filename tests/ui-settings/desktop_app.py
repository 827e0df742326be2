"""The real openworker-desktop, started for a test, and what it shows on AT-SPI.

Shared by the tests in this folder that drive the whole program rather than
one widget: they run inside ui-session.py (a display, a private session
bus, HOME and the XDG folders in a temporary directory). The program gets
an OpenWorker home of its own, a key (so it opens on its window, not on
first-run Settings) and the accessibility bridge, which ui-session's
environment otherwise turns off.
"""
import os
import subprocess
import sys
import tempfile
import time

# libatspi warns (g_warning) when an application on the bus has no
# /org/a11y/atspi/cache, as GTK 4.8 does not; under the suite's
# G_DEBUG=fatal-warnings that would kill the test, not the program. The
# test process keeps criticals fatal. GLib reads G_DEBUG when it is loaded,
# so this runs before anything imports gi.
if "fatal-warnings" in os.environ.get("G_DEBUG", ""):
    os.environ["G_DEBUG"] = "fatal-criticals"

APP_ID = "com.openworker.OpenWorker"
APP_PATH = "/com/openworker/OpenWorker"


def fail(message):
    print(f"not ok: {message}", file=sys.stderr)
    sys.exit(1)


def wait_for(what, check, timeout=30.0, interval=0.1, between=None):
    """check()'s first true value, asked every @interval seconds; @between
    (optional) runs before each wait, e.g. one turn of a main loop."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        if between is not None:
            between()
        time.sleep(interval)
    fail(f"timed out waiting for {what}")


def gdbus_call(dest, path, method, *args, timeout=10):
    return subprocess.run(["gdbus", "call", "--session", "--dest", dest, "--object-path", path,
                           "--method", method, *args],
                          capture_output=True, text=True, timeout=timeout)


def name_has_owner(name):
    out = gdbus_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner", name)
    return out.returncode == 0 and "true" in out.stdout


def activate(action, param=None, path=APP_PATH):
    """Runs one of the program's actions over org.gtk.Actions, as a launcher or the tray would."""
    params = f"[{param}]" if param is not None else "[]"
    out = gdbus_call(APP_ID, path, "org.gtk.Actions.Activate", action, params, "{}")
    if out.returncode != 0:
        fail(f"activating {action} at {path}: {out.stderr.strip()}")


def check_environment(name):
    if not os.environ.get("OW_UI_SESSION") or not os.environ.get("DISPLAY"):
        print(f"{name} runs inside ui-session.py, with a display", file=sys.stderr)
        sys.exit(1)


class Desktop:
    """One openworker-desktop process on a fresh OpenWorker home."""

    def __init__(self, exe, accessibility=True, home=None, extra_env=None):
        self.exe = exe
        self.home = home or tempfile.mkdtemp(prefix="ow-desktop-", dir=os.environ["HOME"])
        self.env = dict(os.environ, OPENWORKER_HOME=self.home, G_DEBUG="fatal-criticals",
                        OPENAI_API_KEY="sk-owtest-secret-Zq8-desktop-app",
                        OPENAI_BASE_URL="http://127.0.0.1:9/v1")
        # The private session bus can start xdg-desktop-portal, whose GTK
        # backend dies under Xvfb; libadwaita reads the portal's settings
        # with blocking calls at start-up, each waiting for that start to
        # fail. The appearance is tested against a portal of the test's own
        # (test-settings-window); these tests do not need one.
        self.env["ADW_DISABLE_PORTAL"] = "1"
        if accessibility:
            self.env.pop("NO_AT_BRIDGE", None)
            self.env.pop("GTK_A11Y", None)
        self.env.update(extra_env or {})
        self.proc = None

    @property
    def db_path(self):
        return os.path.join(self.home, "data", "openworker.db")

    def start(self, *args):
        self.proc = subprocess.Popen([self.exe, *args], env=self.env)
        wait_for("openworker-desktop on the bus", lambda: self.proc.poll() is None and name_has_owner(APP_ID))
        return self

    def quit(self, timeout=20):
        """Asks the program to quit through its own action; returns its exit status."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        activate("quit")
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            fail("openworker-desktop did not quit through its quit action")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ---- AT-SPI -------------------------------------------------------------------

_atspi = None


def atspi():
    global _atspi
    if _atspi is None:
        import gi
        gi.require_version("Atspi", "2.0")
        from gi.repository import Atspi
        _atspi = Atspi
    return _atspi


def lookup_application(pid):
    """The accessible application of process @pid, or None (yet)."""
    desktop = atspi().get_desktop(0)
    for i in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(i)
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:
            continue
    return None


def find_application(pid, timeout=30.0):
    return wait_for(f"process {pid} on the accessibility bus", lambda: lookup_application(pid),
                    timeout=timeout, interval=0.25)


def windows(app):
    out = []
    for i in range(app.get_child_count()):
        child = app.get_child_at_index(i)
        if child is not None:
            out.append(child)
    return out


def role_name(acc):
    try:
        return acc.get_role_name()
    except Exception:
        return "?"


def name_of(acc):
    try:
        return acc.get_name() or ""
    except Exception:
        return ""


def has_state(acc, state):
    try:
        return acc.get_state_set().contains(state)
    except Exception:
        return False


def walk(acc, path=(), depth=0):
    """Yields (accessible, path) for @acc and everything under it; path is the
    chain of "role 'name'" steps from the window down."""
    step = f"{role_name(acc)} '{name_of(acc)}'"
    here = path + (step,)
    yield acc, here
    if depth > 60:
        return
    try:
        n = acc.get_child_count()
    except Exception:
        return
    for i in range(n):
        try:
            child = acc.get_child_at_index(i)
        except Exception:
            continue
        if child is not None:
            yield from walk(child, here, depth + 1)


def text_under(acc, limit=400):
    """All the names and text under @acc, for matching what a window shows."""
    Atspi = atspi()
    parts = []
    for node, _ in walk(acc):
        name = name_of(node)
        if name:
            parts.append(name)
        try:
            text = node.get_text_iface() if hasattr(node, "get_text_iface") else None
            if text is not None:
                count = Atspi.Text.get_character_count(text)
                if count:
                    parts.append(Atspi.Text.get_text(text, 0, min(count, limit)))
        except Exception:
            pass
    return parts


# ---- A home with a session and an ask waiting in the inbox ---------------------

def sessions_in(db_path, folder):
    import sqlite3
    if not os.path.exists(db_path):
        return []
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)
    try:
        return [r[0] for r in con.execute("SELECT session_id FROM sessions WHERE workspace = ?", (folder,))]
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def prepare_home(exe):
    """An OpenWorker home with one session (made by the program, from a folder
    on its command line) and one approval parked in its inbox, written to
    openworker.db while the program is not running, the way another process
    parks one. Returns (home, session_id)."""
    import json
    import sqlite3
    folder = tempfile.mkdtemp(prefix="project-", dir=os.environ["HOME"])
    first = Desktop(exe, accessibility=False)
    try:
        first.start(folder)
        session = wait_for("the session made from the command line",
                           lambda: sessions_in(first.db_path, folder))[0]
        code = first.quit()
        if code != 0:
            fail(f"openworker-desktop exited {code} after making a session")
    finally:
        first.stop()
    data = {"tool": "run_command", "arguments": {"command": "make check"}, "risk": "runs a command",
            "safety_check": False}
    con = sqlite3.connect(first.db_path, timeout=10)
    try:
        con.execute("INSERT INTO inbox_items (id, session_id, call_id, kind, title, body, data) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    ("a11ytest0001", session, "call-a11y-1", "approval", "Run make check",
                     "The coworker wants to run a command.", json.dumps(data)))
        con.commit()
    finally:
        con.close()
    return first.home, session
