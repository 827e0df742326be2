#!/usr/bin/env python3
"""Stands in for openworker-tool-runner inside the fake OpenShell sandbox
until the real runner has an attach mode.

  --socket PATH   becomes the real runner (/opt/openworker/real-runner) listening on PATH
  --attach PATH   relays stdin/stdout to the runner listening on PATH

Everything the engine says still reaches the real runner unchanged: this
only carries bytes, as the runner's own attach mode will."""

import os
import socket
import sys
import threading
import time

REAL = "/opt/openworker/real-runner"


def attach(path):
    deadline = time.monotonic() + 15
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    while True:
        try:
            s.connect(path)
            break
        except OSError:
            if time.monotonic() > deadline:
                print(f"runner-standin: nothing listens on {path}", file=sys.stderr)
                return 1
            time.sleep(0.02)

    def pump_in():
        while True:
            data = os.read(0, 65536)
            if not data:
                break
            s.sendall(data)
        s.shutdown(socket.SHUT_WR)

    threading.Thread(target=pump_in, daemon=True).start()
    while True:
        data = s.recv(65536)
        if not data:
            return 0
        os.write(1, data)


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--socket":
        os.execv(REAL, [REAL, "--socket", args[1]])
    if len(args) == 2 and args[0] == "--attach":
        return attach(args[1])
    print(f"runner-standin: unexpected {args}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
