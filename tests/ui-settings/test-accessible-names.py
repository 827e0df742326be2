#!/usr/bin/env python3
"""Every control of the real openworker-desktop has an accessible name.

    test-accessible-names.py OPENWORKER_DESKTOP
    test-accessible-names.py --fixture        (the self-check's window)

Runs inside ui-session.py. The program is started on a home with one
session and one approval parked in the inbox, with the accessibility bridge
on, and its tree is read over AT-SPI, as a screen reader reads it: the main
window as it opens, on the inbox page, on the session, on a new session,
then every page of Settings (opened through app.settings, as the menu
does), the dialogs those pages open (a model's settings, the sites, a
custom credential), the About window and the main menu — each reached by
pressing its button through AT-SPI's Action interface, as a screen reader
user would. Every focusable push button, toggle button, check box, radio
button, switch, text entry or text view, combo box, spin button, slider,
menu item and list row whose name is empty fails the test, listed with its
place in the tree and its tooltip. GTK 4.8 gives a nameless widget its type
name ("GtkToggleButton") over AT-SPI, so such a name counts as empty. A
drop-down's own button is named by the drop-down around it. A list row with
no name but text inside is reported as a note only: GTK 4.8 does not name
rows from their content, and screen readers read the text.

Before looking at the program, the detector is tried on a window of its
own (--fixture) holding controls with and without names: it must flag
exactly the nameless ones, so a pass is never a detector that sees nothing.
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_app as d  # noqa: E402

TYPE_NAME = re.compile(r"(Gtk|Gdk|Ow|Adw)[A-Z][A-Za-z]*")
SETTINGS_PAGES = ("models", "sandbox", "approvals", "machines", "general")


def control_roles():
    R = d.atspi().Role
    names = ("PUSH_BUTTON", "TOGGLE_BUTTON", "CHECK_BOX", "RADIO_BUTTON", "ENTRY", "TEXT", "PASSWORD_TEXT",
             "COMBO_BOX", "SPIN_BUTTON", "SLIDER", "MENU_ITEM", "CHECK_MENU_ITEM", "RADIO_MENU_ITEM", "LINK",
             "SWITCH")
    return {getattr(R, n) for n in names if hasattr(R, n)}


def is_unnamed(name):
    return name.strip() == "" or TYPE_NAME.fullmatch(name.strip()) is not None


def description(node):
    try:
        return node.get_description() or ""
    except Exception:
        return ""


def audit(window):
    """([(path, tooltip)] of nameless controls, [(path, text)] of rows named by content only)."""
    Atspi = d.atspi()
    roles = control_roles()
    missing, notes, checked = [], [], []

    def visit(node, path, named_combo, tooltip):
        role = node.get_role()
        name = d.name_of(node)
        step = f"{d.role_name(node)} '{name}'"
        here = path + (step,)
        tip = description(node) or tooltip
        focusable = d.has_state(node, Atspi.StateType.FOCUSABLE)
        is_row = role == Atspi.Role.LIST_ITEM or name in ("GtkListItemWidget", "GtkListBoxRow", "GtkFlowBoxChild")
        if focusable and (role in roles or is_row):
            checked.append(step)
        if focusable and is_unnamed(name):
            if is_row:
                text = [t for t in d.text_under(node) if not is_unnamed(t)]
                if text:
                    notes.append((" > ".join(here), " / ".join(text)[:80]))
                elif not named_combo:
                    missing.append((" > ".join(here), tip))
            elif role in roles and not named_combo:
                missing.append((" > ".join(here), tip))
        if role == Atspi.Role.COMBO_BOX and not is_unnamed(name):
            named_combo = True
        for i in range(node.get_child_count()):
            child = node.get_child_at_index(i)
            if child is not None:
                visit(child, here, named_combo, tip)

    visit(window, (), False, "")
    audit.checked = checked
    return missing, notes


# ---- The self-check -------------------------------------------------------------

def run_fixture():
    """A window of controls, each tooltip saying whether it should be flagged."""
    import gi
    gi.require_version("Gtk", "4.0")
    from gi.repository import Gtk

    def build(app):
        win = Gtk.ApplicationWindow(application=app, title="a11y-fixture")
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        win.set_child(box)

        def add(widget, expect):
            widget.set_tooltip_text(expect)
            box.append(widget)
            return widget

        add(Gtk.Button(icon_name="edit-delete-symbolic"), "expect-missing icon-only button")
        named_icon = add(Gtk.Button(icon_name="edit-copy-symbolic"), "expect-named icon button with a label")
        named_icon.update_property([Gtk.AccessibleProperty.LABEL], ["Copy"])
        add(Gtk.Button(label="Save"), "expect-named labelled button")
        add(Gtk.ToggleButton(icon_name="view-pin-symbolic"), "expect-missing icon-only toggle")
        add(Gtk.CheckButton(label="Remember"), "expect-named check box")
        add(Gtk.Entry(), "expect-missing bare entry")
        entry = add(Gtk.Entry(), "expect-named entry with a label")
        entry.update_property([Gtk.AccessibleProperty.LABEL], ["Search"])
        add(Gtk.Switch(), "expect-missing bare switch")
        add(Gtk.DropDown.new_from_strings(["One", "Two"]), "expect-missing bare drop-down")
        dropdown = add(Gtk.DropDown.new_from_strings(["One", "Two"]), "expect-named drop-down with a label")
        dropdown.update_property([Gtk.AccessibleProperty.LABEL], ["Count"])
        win.present()

    app = Gtk.Application(application_id="com.openworker.A11yFixture")
    app.connect("activate", build)
    return app.run([])


def self_check():
    env = dict(os.environ)
    env.pop("NO_AT_BRIDGE", None)
    # The fixture is a plain GTK program; on a loaded machine its start can
    # fail before it shows anything (seen once in CI: no display yet). That
    # says nothing about the detector, so such a start is tried again, at
    # most three times, and said.
    for attempt in range(3):
        fixture = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--fixture"], env=env)
        d.wait_for("the fixture on the accessibility bus, or its exit",
                   lambda: fixture.poll() is not None or d.lookup_application(fixture.pid) is not None)
        if fixture.poll() is None:
            break
        print(f"# self-check: the fixture exited ({fixture.returncode}) before it showed a window; starting it again",
              file=sys.stderr)
    else:
        d.fail("the fixture window could not be started three times")
    try:
        app = d.find_application(fixture.pid)
        window = d.wait_for("the fixture's window", lambda: d.windows(app))[0]
        time.sleep(0.5)
        missing, _ = audit(window)
        flagged = sorted(tip for _, tip in missing)
        wanted = sorted({description(n) for n, _ in d.walk(window)} - {""})
        wanted = [t for t in wanted if t.startswith("expect-missing")]
        # The drop-down's tooltip is on the combo box and on nothing inside,
        # so its flagged toggle carries it by inheritance; count each once.
        if sorted(set(flagged)) != sorted(set(wanted)) or len(flagged) != len(set(flagged)):
            for path, tip in missing:
                print(f"#   flagged: {path} ({tip})", file=sys.stderr)
            d.fail(f"the detector flagged {sorted(set(flagged))}, not {sorted(set(wanted))}")
        print(f"# self-check: the detector flags exactly the {len(wanted)} nameless controls of the fixture")
    finally:
        fixture.terminate()
        fixture.wait(timeout=10)


# ---- The program ------------------------------------------------------------------

def new_windows(app, before):
    return [w for w in d.windows(app) if w not in before]


def has_action(node):
    try:
        return node.get_action_iface() is not None and d.atspi().Action.get_n_actions(node) > 0
    except Exception:
        return False


def find_button(root, name, prefix=False):
    """The control named @name under @root that offers an action; for a menu
    button, named on the outside, the toggle inside it. (GTK 4.8 does not
    keep "showing" current for the pages of a stack, so it is not asked.)"""
    for node, _ in d.walk(root):
        here = d.name_of(node)
        if here == name or (prefix and here.startswith(name)):
            for inner, _ in d.walk(node):
                if has_action(inner):
                    return inner
    return None


def press(root, name, prefix=False):
    """Presses the button named @name (or named starting so) under @root, as
    a screen reader does."""
    button = d.wait_for(f"a button named '{name}'", lambda: find_button(root, name, prefix))
    if not d.atspi().Action.do_action(button, 0):
        d.fail(f"pressing '{name}' did nothing")


def close_window(app, window, before, button):
    """Closes a dialog with its own button (Escape would go wherever the
    focus is, and Xvfb has no window manager to give it) and waits for it to go."""
    press(window, button)
    d.wait_for("the dialog to close", lambda: window not in d.windows(app) or len(d.windows(app)) <= len(before))


def main(argv):
    if len(argv) == 2 and argv[1] == "--fixture":
        return run_fixture()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d.check_environment("test-accessible-names")
    exe = argv[1]

    self_check()

    home, session = d.prepare_home(exe)
    # The sandbox page shows its options (network, sites, shared logins)
    # only while a sandbox is on; this home is the test's own.
    os.makedirs(os.path.join(home, "config"), exist_ok=True)
    with open(os.path.join(home, "config", "config.toml"), "a") as f:
        f.write('\nsandbox_provider = "linux"\n')
    desktop = d.Desktop(exe, home=home)
    missing, notes = {}, {}

    def look(where, window):
        time.sleep(1.0)   # let the page settle: GTK builds rows on idle
        m, n = audit(window)
        for path, tip in m:
            missing.setdefault(path, (where, tip))
        for path, text in n:
            notes.setdefault(path, (where, text))
        print(f"# {where}: {len(audit.checked)} focusable controls, {len(m)} nameless: "
              + ", ".join(sorted(set(c for c in audit.checked if not c.endswith("'GtkToggleButton'")))))

    try:
        desktop.start()
        app = d.find_application(desktop.proc.pid)
        main_window = d.wait_for("the main window", lambda: d.windows(app))[0]
        look("main window", main_window)
        d.activate("inbox")
        look("main window, inbox", main_window)
        d.activate("open-session", f"<'{session}'>")
        look("main window, session", main_window)
        d.activate("new-session")
        look("main window, new session", main_window)

        # Settings is one window: asking for another page brings it forward
        # on that page rather than opening a second one.
        before = d.windows(app)
        d.activate("settings", f"<'{SETTINGS_PAGES[0]}'>")
        settings_window = d.wait_for("the Settings window", lambda: new_windows(app, before))[0]
        for page in SETTINGS_PAGES:
            d.activate("settings", f"<'{page}'>")
            time.sleep(0.3)
            if len(d.windows(app)) != len(before) + 1:
                d.fail(f"asking for Settings on {page} opened another window")
            look(f"Settings, {page}", settings_window)

        # The dialogs behind Settings, each opened by its own button.
        for page, button, title in (("models", "Settings for ", "model settings"),
                                    ("sandbox", "Choose Sites…", "sites")):
            d.activate("settings", f"<'{page}'>")
            before = d.windows(app)
            press(settings_window, button, prefix=True)
            dialog = d.wait_for(f"the {title} dialog", lambda: new_windows(app, before))[0]
            look(f"Settings, {page}, {title} dialog", dialog)
            close_window(app, dialog, before, "Cancel")
        d.activate("settings", "<'sandbox'>")
        press(settings_window, "Add config or keys to share")
        look("Settings, sandbox, add popover", settings_window)
        before = d.windows(app)
        press(settings_window, "A File or Folder…")
        dialog = d.wait_for("the credential dialog", lambda: new_windows(app, before))[0]
        look("Settings, sandbox, credential dialog", dialog)
        close_window(app, dialog, before, "Cancel")

        # The About window and the main menu.
        before = d.windows(app)
        d.activate("about")
        about = d.wait_for("the About window", lambda: new_windows(app, before))[0]
        look("About", about)
        close_window(app, about, before, "Close")
        d.activate("present")
        press(main_window, "Main menu")
        look("main window, main menu", main_window)
        press(main_window, "Main menu")   # and closed again

        code = desktop.quit()
        if code != 0:
            d.fail(f"openworker-desktop exited {code}")
    finally:
        desktop.stop()

    for path, (where, text) in sorted(notes.items()):
        print(f"# note ({where}): a row named only by its content ({text}): {path}")
    if missing:
        for path, (where, tip) in sorted(missing.items()):
            print(f"nameless ({where}): {path}" + (f" [tooltip: {tip}]" if tip else ""), file=sys.stderr)
        d.fail(f"{len(missing)} focusable control(s) have no accessible name")
    print("ok: every focusable control of the main window, Settings, its dialogs, About and the main menu "
          "has an accessible name")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
