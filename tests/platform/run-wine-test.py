#!/usr/bin/env python3
"""Build the Windows sandbox core with mingw-w64 and run its test under Wine.

    run-wine-test.py SOURCE_ROOT BUILD_DIR

Configures tests/platform/wincross with platform/windows/mingw64.cross in
BUILD_DIR/wincross (kept between runs, so the second run only rebuilds),
builds it, and runs test-winsandbox.exe under wine64 with a Wine prefix of
its own in BUILD_DIR/wineprefix. Skips (exit 77) with the reason only when
the cross compiler or Wine is not installed (Debian: gcc-mingw-w64-x86-64,
wine64); anything else that goes wrong is a failure.
"""

import os
import shutil
import subprocess
import sys

SKIP = 77


def find_wine():
    for name in ("wine64", "wine"):
        path = shutil.which(name)
        if path:
            return path
    for path in ("/usr/lib/wine/wine64", "/usr/lib64/wine/wine64"):
        if os.access(path, os.X_OK):
            return path
    return None


def run(argv, **kwargs):
    print("+", " ".join(argv), flush=True)
    return subprocess.run(argv, **kwargs)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source_root, build_dir = (os.path.abspath(a) for a in sys.argv[1:])

    if shutil.which("x86_64-w64-mingw32-gcc") is None:
        print("SKIP: the mingw-w64 cross compiler is not installed "
              "(apt-get install gcc-mingw-w64-x86-64)")
        return SKIP
    wine = find_wine()
    if wine is None:
        print("SKIP: Wine is not installed (apt-get install wine64)")
        return SKIP

    cross_build = os.path.join(build_dir, "wincross")
    cross_file = os.path.join(source_root, "platform", "windows", "mingw64.cross")
    project = os.path.join(source_root, "tests", "platform", "wincross")
    if not os.path.exists(os.path.join(cross_build, "build.ninja")):
        done = run(["meson", "setup", "--cross-file", cross_file, cross_build, project])
        if done.returncode != 0:
            return 1
    if run(["ninja", "-C", cross_build]).returncode != 0:
        return 1

    env = dict(os.environ)
    env["WINEPREFIX"] = os.path.join(build_dir, "wineprefix")
    env["WINEDEBUG"] = "-all"
    env["WINEDLLOVERRIDES"] = "mscoree,mshtml="  # no Mono or Gecko download prompts
    env.pop("DISPLAY", None)
    golden = "Z:" + os.path.join(source_root, "tests", "platform", "golden")
    exe = os.path.join(cross_build, "test-winsandbox.exe")
    try:
        done = run([wine, exe, golden], env=env, timeout=600)
    except subprocess.TimeoutExpired:
        print("FAIL: the Windows test did not finish under Wine in 10 minutes")
        return 1
    finally:
        # Wine leaves its server running for a few seconds; end it so the
        # test does not hold meson's output pipes open.
        server = shutil.which("wineserver")
        if server:
            subprocess.run([server, "-k"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
