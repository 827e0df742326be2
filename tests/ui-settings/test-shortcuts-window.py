#!/usr/bin/env python3
"""The keyboard shortcuts window of the real openworker-desktop.

    test-shortcuts-window.py OPENWORKER_DESKTOP

Runs inside ui-session.py. GtkApplication loads gtk/help-overlay.ui from
the program's resource base path and gives every window
win.show-help-overlay with Ctrl+?; a wrong base path or a broken file
leaves the action missing, and nothing else notices. The test opens the
window twice, read over AT-SPI: through the main window's
win.show-help-overlay (over org.gtk.Actions, as the main menu runs it),
and by typing Ctrl+? into the main window (xdotool). Both times it must
list the composer's shortcuts, Enter to send, Shift+Enter for a new line
and Esc to stop, each
key combination in the row of its title.
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_app as d  # noqa: E402

WANTED = {
    # title: the keys GtkShortcutLabel shows for it (Return is drawn as ⏎)
    "Send the message": (("⏎", "Enter", "Return"),),
    "Add a line": (("Shift",), ("⏎", "Enter", "Return")),
    "Stop the running turn": (("Escape", "Esc"),),
}


def shortcuts_window(app, before):
    for w in d.windows(app):
        if w not in before and d.role_name(w) in ("frame", "window", "dialog"):
            return w
    return None


def keys_of(shortcut_label):
    """The key names a GtkShortcutLabel shows, in order, without the "+"."""
    keys = []
    for node, _ in d.walk(shortcut_label):
        if node is shortcut_label:
            continue
        name = d.name_of(node)
        if name and name != "+" and not name.startswith("Gtk") and (not keys or keys[-1] != name):
            keys.append(name)
    return keys


def check_lists_composer_shortcuts(window, how):
    """Each wanted title's row (a GtkShortcutsShortcut: its keys, then its
    title) shows the wanted keys: the GtkShortcutLabel met last before the
    title, in the tree's order, holds them."""
    rows = {}
    last_keys = None
    for node, _ in d.walk(window):
        name = d.name_of(node)
        if name == "GtkShortcutLabel":
            last_keys = node
        elif name in WANTED and name not in rows and last_keys is not None:
            rows[name] = keys_of(last_keys)
    for title, keys in WANTED.items():
        if title not in rows:
            d.fail(f"the shortcuts window opened {how} does not list {title!r}")
        shown = rows[title]
        if len(shown) != len(keys) or any(k not in choices for k, choices in zip(shown, keys)):
            d.fail(f"the shortcuts window opened {how} shows {title!r} as {shown}, "
                   f"not {[c[0] for c in keys]}")
        print(f"# {how}: {title!r} is {' + '.join(shown)}")


def close(window, app, how):
    Atspi = d.atspi()
    # The shortcuts window closes with Escape; tell it through the window
    # manager-free way: the window's own close action is not on AT-SPI, so
    # press the key into it.
    subprocess.run(["xdotool", "key", "Escape"], check=False)
    d.wait_for(f"the shortcuts window opened {how} to close",
               lambda: window not in d.windows(app) or not d.has_state(window, Atspi.StateType.SHOWING),
               timeout=10)


def deliverables_shown(root):
    """The header's deliverables toggle is pressed (it and the panel are one state)."""
    Atspi = d.atspi()
    for node, _ in d.walk(root):
        if d.name_of(node) == "Show the deliverables":
            return d.has_state(node, Atspi.StateType.PRESSED) or d.has_state(node, Atspi.StateType.CHECKED)
    return False


def check_deliverables_key(app, main_window, xwin):
    """Shift+Ctrl+D shows the deliverables; GtkWindow binds the same keys
    to the GTK Inspector, which must not open."""
    Atspi = d.atspi()
    subprocess.run(["xdotool", "windowfocus", "--sync", xwin], check=False, timeout=10)
    before = [w for w in d.windows(app) if d.has_state(w, Atspi.StateType.SHOWING)]
    if deliverables_shown(main_window):
        d.fail("the deliverables were showing before Shift+Ctrl+D")
    subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+shift+d"], check=True, timeout=10)
    d.wait_for("the deliverables after Shift+Ctrl+D", lambda: deliverables_shown(main_window), timeout=10)
    time.sleep(1.0)
    opened = [w for w in d.windows(app) if w not in before and d.has_state(w, Atspi.StateType.SHOWING)]
    if opened:
        d.fail(f"Shift+Ctrl+D opened a window ({d.name_of(opened[0])!r}), the GTK Inspector?")
    print("# Shift+Ctrl+D shows the deliverables and opens no other window")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d.check_environment("test-shortcuts-window")
    exe = argv[1]

    desktop = d.Desktop(exe)
    try:
        desktop.start()
        app = d.find_application(desktop.proc.pid)
        main_window = d.wait_for("the main window", lambda: d.windows(app))[0]
        time.sleep(0.5)

        before = d.windows(app)
        d.activate("show-help-overlay", path=d.APP_PATH + "/window/1")
        window = d.wait_for("the shortcuts window (win.show-help-overlay)", lambda: shortcuts_window(app, before))
        time.sleep(0.5)
        check_lists_composer_shortcuts(window, "by win.show-help-overlay")
        close(window, app, "by win.show-help-overlay")

        xwin = d.wait_for("the main window on X", lambda: subprocess.run(
            ["xdotool", "search", "--onlyvisible", "--pid", str(desktop.proc.pid)],
            capture_output=True, text=True).stdout.split())[0]
        subprocess.run(["xdotool", "windowfocus", "--sync", xwin], check=False, timeout=10)
        before = [w for w in d.windows(app) if d.has_state(w, d.atspi().StateType.SHOWING)]
        subprocess.run(["xdotool", "key", "--clearmodifiers", "ctrl+question"], check=True, timeout=10)
        window = d.wait_for("the shortcuts window (Ctrl+?)", lambda: shortcuts_window(app, before), timeout=15)
        time.sleep(0.5)
        check_lists_composer_shortcuts(window, "by Ctrl+?")
        close(window, app, "by Ctrl+?")
        check_deliverables_key(app, main_window, xwin)
        del main_window

        code = desktop.quit()
        if code != 0:
            d.fail(f"openworker-desktop exited {code}")
    finally:
        desktop.stop()
    print("ok: the shortcuts window opens by its action and by Ctrl+?, and lists the composer's keys; "
          "Shift+Ctrl+D shows the deliverables")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
