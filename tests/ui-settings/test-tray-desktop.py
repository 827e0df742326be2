#!/usr/bin/env python3
"""The tray of the real openworker-desktop, seen by a panel on the session bus.

    test-tray-desktop.py OPENWORKER_DESKTOP

Runs inside ui-session.py. test-tray checks the tray object on its own;
this checks it wired into the program: started on a home with one ask
parked in its inbox, openworker-desktop must register a
StatusNotifierItem with the watcher this test plays (as a panel would run
one), the item must ask for attention, and its com.canonical.dbusmenu
menu must hold Open, Inbox with the count, New session, Pause automations
and Quit. Clicking Quit in that menu (the Event a panel sends) must end
the process, with status 0.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_app as d  # noqa: E402

import gi  # noqa: E402
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

WATCHER_XML = """
<node><interface name='org.kde.StatusNotifierWatcher'>
  <method name='RegisterStatusNotifierItem'><arg name='service' type='s' direction='in'/></method>
  <method name='RegisterStatusNotifierHost'><arg name='service' type='s' direction='in'/></method>
  <property name='RegisteredStatusNotifierItems' type='as' access='read'/>
  <property name='IsStatusNotifierHostRegistered' type='b' access='read'/>
  <property name='ProtocolVersion' type='i' access='read'/>
</interface></node>"""


class Watcher:
    """A StatusNotifierWatcher on a connection of its own, as a panel runs."""

    def __init__(self):
        self.bus = Gio.DBusConnection.new_for_address_sync(
            Gio.dbus_address_get_for_bus_sync(Gio.BusType.SESSION, None),
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        self.items = []     # (service, sender)
        self.owned = False
        info = Gio.DBusNodeInfo.new_for_xml(WATCHER_XML).interfaces[0]
        self.bus.register_object("/StatusNotifierWatcher", info, self._method, self._get, None)
        Gio.bus_own_name_on_connection(self.bus, "org.kde.StatusNotifierWatcher", Gio.BusNameOwnerFlags.NONE,
                                       self._acquired, None)
        self.spin_until("the watcher's name", lambda: self.owned)

    def _acquired(self, *args):
        self.owned = True

    def _method(self, conn, sender, path, iface, method, params, invocation):
        if method == "RegisterStatusNotifierItem":
            self.items.append((params.unpack()[0], sender))
        invocation.return_value(None)

    def _get(self, conn, sender, path, iface, name):
        if name == "ProtocolVersion":
            return GLib.Variant("i", 0)
        if name == "IsStatusNotifierHostRegistered":
            return GLib.Variant("b", True)
        return GLib.Variant("as", [s for s, _ in self.items])

    def spin_until(self, what, check, timeout=30.0):
        ctx = GLib.MainContext.default()
        return d.wait_for(what, check, timeout, interval=0.02, between=lambda: ctx.iteration(False))

    def call(self, dest, path, iface, method, params, reply):
        result = []
        self.bus.call(dest, path, iface, method, params, GLib.VariantType(reply) if reply else None,
                      Gio.DBusCallFlags.NONE, 5000, None,
                      lambda conn, res: result.append(self._finish(conn, res)))
        value = self.spin_until(f"{iface}.{method}", lambda: result)[0]
        if isinstance(value, Exception):
            d.fail(f"{iface}.{method} on {dest}: {value}")
        return value

    @staticmethod
    def _finish(conn, res):
        try:
            return conn.call_finish(res)
        except GLib.Error as e:
            return e


def plain(label):
    """A dbusmenu label without its mnemonic underscores."""
    return re.sub(r"_(.)", r"\1", label)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    d.check_environment("test-tray-desktop")
    exe = argv[1]

    home, _ = d.prepare_home(exe)
    watcher = Watcher()
    desktop = d.Desktop(exe, home=home, accessibility=False)
    try:
        desktop.start()
        service, sender = watcher.spin_until("the program's StatusNotifierItem to register",
                                             lambda: watcher.items and watcher.items[0])
        owner = watcher.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                             "GetConnectionUnixProcessID", GLib.Variant("(s)", (service,)), "(u)").unpack()[0]
        if owner != desktop.proc.pid:
            d.fail(f"the item {service} belongs to process {owner}, not to openworker-desktop ({desktop.proc.pid})")
        print(f"# openworker-desktop registered {service}")

        props = watcher.call(service, "/StatusNotifierItem", "org.freedesktop.DBus.Properties", "GetAll",
                             GLib.Variant("(s)", ("org.kde.StatusNotifierItem",)), "(a{sv})").unpack()[0]
        if props.get("Id") != d.APP_ID:
            d.fail(f"the item's Id is {props.get('Id')!r}")
        if props.get("Status") != "NeedsAttention":
            d.fail(f"with an ask in the inbox the item's Status is {props.get('Status')!r}, not NeedsAttention")
        menu_path = props.get("Menu")
        print(f"# Id {props['Id']}, Status {props['Status']}, Menu {menu_path}")

        revision, layout = watcher.call(service, menu_path, "com.canonical.dbusmenu", "GetLayout",
                                        GLib.Variant("(iias)", (0, -1, [])), "(u(ia{sv}av))").unpack()
        items = {}
        for child in layout[2]:
            item_id, item_props, _ = child
            if item_props.get("type") == "separator":
                continue
            items[plain(item_props.get("label", ""))] = (item_id, item_props)
        print(f"# menu (revision {revision}): {list(items)}")
        wanted = {"Open OpenWorker": True, "Inbox (1)": True, "New Session": True, "Quit": True}
        for label, enabled in wanted.items():
            if label not in items:
                d.fail(f"the tray menu has no {label!r}: {list(items)}")
            if items[label][1].get("enabled", True) != enabled:
                d.fail(f"the tray menu's {label!r} is not enabled")
        if "Pause Automations" not in items:
            d.fail(f"the tray menu has no 'Pause Automations': {list(items)}")
        pause = items["Pause Automations"][1]
        if pause.get("toggle-type") != "checkmark":
            d.fail(f"'Pause Automations' is not a checkmark item: {pause}")
        if not pause.get("enabled", True):
            print("# note: 'Pause Automations' is shown disabled: the program has no app.pause-automations yet")

        quit_id = items["Quit"][0]
        watcher.call(service, menu_path, "com.canonical.dbusmenu", "Event",
                     GLib.Variant("(isvu)", (quit_id, "clicked", GLib.Variant("s", ""), 0)), None)
        try:
            code = desktop.proc.wait(timeout=20)
        except Exception:
            d.fail("openworker-desktop still runs after Quit in its tray menu")
        if code != 0:
            d.fail(f"openworker-desktop exited {code} after Quit in its tray menu")
        print("# Quit in the tray menu ended openworker-desktop (status 0)")
    finally:
        desktop.stop()
    print("ok: the running program's tray item registers, asks for attention, and its menu works")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
