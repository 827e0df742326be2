#!/bin/sh
# ui-session.sh: runs a UI test under a display and a private D-Bus session.
#
# With $DISPLAY or $WAYLAND_DISPLAY set, the test uses that display; with
# neither, Xvfb (xvfb-run) provides one. Each run gets its own session bus
# (dbus-run-session), so a test never talks to the person's desktop and
# never collides with another test. Only when there is no display at all
# and no Xvfb does the test skip (77).
set -e
if [ -z "$DISPLAY" ] && [ -z "$WAYLAND_DISPLAY" ]; then
  if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "SKIP: no display and no xvfb-run (apt-get install xvfb xauth)" >&2
    exit 77
  fi
  exec xvfb-run -a -s "-screen 0 1280x1024x24" dbus-run-session -- "$@"
fi
exec dbus-run-session -- "$@"
