"""`openworker-desktop` with no display: --help and --version print and
exit; only a plain launch hands over to the browser interface's server."""
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest

DESKTOP = os.path.abspath(os.environ.get("OW_DESKTOP", "build/app/openworker-desktop"))


class NoDisplay(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="ow-desktop-")
        self.env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        self.env["OPENWORKER_HOME"] = self.home

    def run_desktop(self, *args):
        return subprocess.run([DESKTOP, *args], env=self.env, capture_output=True, text=True, timeout=60)

    def test_version_prints_and_exits(self):
        r = self.run_desktop("--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^openworker-desktop \d+\.\d+")
        self.assertNotIn("no display", r.stderr)

    def test_help_prints_and_exits(self):
        for flag in ("--help", "-h"):
            with self.subTest(flag=flag):
                r = self.run_desktop(flag)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("Usage:", r.stdout)
                self.assertIn("FOLDER", r.stdout)
                self.assertNotIn("no display", r.stderr)
                self.assertNotIn("#token=", r.stdout + r.stderr)

    def test_plain_launch_serves_the_browser_interface(self):
        # Positive control: without an argument that only asks, no display
        # still means the loopback server, which prints its URL.
        p = subprocess.Popen([DESKTOP], env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        seen = b""
        try:
            deadline = time.time() + 60
            while b"#token=" not in seen and time.time() < deadline:
                r, _, _ = select.select([p.stdout], [], [], 1)
                if r:
                    chunk = os.read(p.stdout.fileno(), 4096)
                    if not chunk:
                        break
                    seen += chunk
        finally:
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(timeout=30)
            p.stdout.close()
        text = seen.decode("utf-8", "replace")
        self.assertIn("There is no display here", text)
        self.assertIn("#token=", text)


if __name__ == "__main__":
    unittest.main()
