"""End-to-end tests of saved keys: `openworker keys` and `openworker run`
reading a saved key, with the real binary, the real gnome-keyring (this runs
inside keyring-session.py) or the sealed file, and the scripted model server
as the provider (it accepts only the scripted "keys").

Every key here contains the marker keyring-session.py greps for, and each
test's OPENWORKER_HOME is under HOME, so a key written to any file there —
config, state database, sealed file — fails the run.
"""
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from owtest import OPENWORKER_PATH, RunTestCase  # noqa: E402

MARKER = "owtest-secret-Zq8"
KEY = MARKER + "-e2e-openai-4f2c9a7b"
OTHER_KEY = MARKER + "-e2e-env-8d1e5c3a"


def no_bus_env(env, tmp):
    """The environment of a machine with no session bus."""
    env = {k: v for k, v in env.items() if not k.startswith("DBUS_")}
    runtime = os.path.join(tmp, "runtime-no-bus")
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    env["XDG_RUNTIME_DIR"] = runtime
    return env


class KeysTestCase(RunTestCase):
    """OPENWORKER_HOME under HOME (grepped); scratch (scripts, workspaces,
    records) under TMPDIR (not grepped: some hold keys on purpose)."""

    def setUp(self):
        super().setUp()
        if not os.environ.get("OW_KEYRING_SESSION"):
            self.fail("run inside tests/secrets/keyring-session.py (meson test --suite secrets)")
        self.home = tempfile.mkdtemp(prefix="ow-home-", dir=os.environ["HOME"])
        self.saved = []

    def tearDown(self):
        # The keyring is shared by the tests of a session: leave it empty.
        for provider in self.saved:
            subprocess.run([OPENWORKER_PATH, "keys", "remove", provider], env=self.env(),
                           capture_output=True, timeout=30)
        super().tearDown()

    def keys(self, args, env=None, stdin=None, timeout=30):
        p = subprocess.run([OPENWORKER_PATH, "keys", *args], env=env or self.env(), input=stdin,
                           capture_output=True, text=True, timeout=timeout, cwd=self.ws,
                           stdin=None if stdin is not None else subprocess.DEVNULL)
        for stream in (p.stdout, p.stderr):
            self.assertNotIn(MARKER, stream, "a key was printed")
        return p

    def save(self, provider, key, env=None):
        p = self.keys(["set", provider], env=env, stdin=key + "\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.saved.append(provider)
        return p

    def listing(self, env=None):
        p = self.keys(["list", "--json"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        data = json.loads(p.stdout)
        return data, {row["provider"]: row for row in data["providers"]}

    def at_terminal(self, args, env, answer, prompt="will not be shown", timeout=30):
        """Runs `openworker ARGS` on a pseudo-terminal, types @answer at the
        prompt; returns (exit code, everything the terminal showed)."""
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir(self.ws)
                os.execve(OPENWORKER_PATH, [OPENWORKER_PATH, *args], env)
            finally:
                os._exit(127)
        shown, answered = b"", False
        deadline = time.time() + timeout
        while time.time() < deadline:
            r, _, _ = select.select([fd], [], [], 0.2)
            if not r:
                continue
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
            if not answered and prompt.encode() in shown:
                time.sleep(0.2)   # let it turn echo off before typing
                os.write(fd, answer.encode() + b"\n")
                answered = True
        _, status = os.waitpid(pid, 0)
        os.close(fd)
        return os.waitstatus_to_exitcode(status), shown.decode("utf-8", "replace")

    def openai_server(self, keys, turns):
        return self.server({"keys": keys, "models": ["gpt-4o"], "turns": turns})


class KeysKeyring(KeysTestCase):
    """The OS keyring (the Secret Service of the session)."""

    def test_set_list_remove(self):
        data, rows = self.listing()
        self.assertEqual(data["store"], "keyring")
        self.assertIn("Secret Service keyring", data["notice"])
        self.assertEqual(rows["anthropic"]["source"], "none")
        self.assertEqual(rows["ollama"]["source"], "not_needed")

        p = self.save("anthropic", KEY)
        self.assertIn("Saved the Claude (Anthropic) key", p.stdout)
        self.assertIn("Secret Service keyring", p.stdout)
        _, rows = self.listing()
        self.assertEqual(rows["anthropic"]["source"], "keyring")
        self.assertTrue(rows["anthropic"]["saved"])
        # Nothing went to a file: no sealed store was made.
        self.assertFalse(os.path.exists(os.path.join(self.home, "config", "secrets.sealed")))

        # The plain listing says where, never what.
        p = self.keys(["list"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"anthropic\s+keyring")

        # The environment wins, and the listing says so.
        p = self.keys(["list"], env=self.env(ANTHROPIC_API_KEY=OTHER_KEY))
        self.assertIn("environment (ANTHROPIC_API_KEY), overriding the one saved in the keyring", p.stdout)

        p = self.keys(["remove", "anthropic"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Removed the saved Claude (Anthropic) key", p.stdout)
        _, rows = self.listing()
        self.assertEqual(rows["anthropic"]["source"], "none")
        p = self.keys(["remove", "anthropic"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("nothing to remove", p.stdout)

    def test_key_is_never_taken_from_argv(self):
        p = self.keys(["set", "anthropic", KEY])
        self.assertEqual(p.returncode, 2)
        self.assertIn("never takes the key on the command line", p.stderr)
        _, rows = self.listing()
        self.assertFalse(rows["anthropic"]["saved"])

    def test_bad_input_saves_nothing(self):
        for stdin, words in (("", "No key was given"), ("two words\n", "spaces or line breaks"),
                             ("a\nb\n", "spaces or line breaks")):
            p = self.keys(["set", "openai"], stdin=stdin)
            self.assertEqual(p.returncode, 1, stdin)
            self.assertIn(words, p.stderr)
        p = self.keys(["set", "nosuchprovider"], stdin=KEY)
        self.assertEqual(p.returncode, 2)
        self.assertIn("Known:", p.stderr)
        _, rows = self.listing()
        self.assertFalse(rows["openai"]["saved"])

    def test_prompt_does_not_echo(self):
        code, shown = self.at_terminal(["keys", "set", "openai"], self.env(), KEY)
        self.assertEqual(code, 0, shown)
        self.saved.append("openai")
        self.assertIn("Paste the OpenAI API key", shown)
        self.assertIn("Saved the OpenAI key", shown)
        self.assertNotIn(KEY, shown)
        self.assertNotIn(MARKER, shown)
        _, rows = self.listing()
        self.assertEqual(rows["openai"]["source"], "keyring")

    def test_run_uses_the_saved_key(self):
        server = self.openai_server([KEY], [{"text": "answered with the saved key"}])
        self.save("openai", KEY)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "hi"], self.env(OPENAI_BASE_URL=server.url + "/v1"))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "answered with the saved key")
        self.assertIn("using the saved OpenAI key", r.stderr)
        reqs = server.requests()
        self.assertEqual(reqs[0]["headers"]["authorization"], "Bearer " + KEY)
        self.assertNotIn(MARKER, r.stdout + r.stderr)
        self.assertNotIn(MARKER, self.record_text())

    def test_environment_wins_over_the_saved_key(self):
        server = self.openai_server([OTHER_KEY], [{"text": "env"}])
        self.save("openai", KEY)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "hi"],
                        self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=OTHER_KEY))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertNotIn("using the saved", r.stderr)
        self.assertEqual(server.requests()[0]["headers"]["authorization"], "Bearer " + OTHER_KEY)

    def test_isolated_never_reads_the_store(self):
        server = self.openai_server([KEY], [{"text": "should not be asked"}])
        self.save("openai", KEY)
        r = self.run_ow(["--isolated", "--model", "openai:gpt-4o", "--prompt", "hi"],
                        self.env(OPENAI_BASE_URL=server.url + "/v1"))
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("OPENAI_API_KEY", r.stderr)
        self.assertEqual(server.requests(), [])

    def test_saved_key_in_a_tool_result_is_redacted(self):
        """The model reads a file holding the saved key: the model, the
        records and the state database see [redacted]."""
        with open(os.path.join(self.ws, "notes.txt"), "w") as f:
            f.write(f"deploy notes\ntoken={KEY}\nend\n")
        server = self.openai_server([KEY], [
            {"tool_calls": [{"id": "c1", "name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"text": "done", "expect": {"last_message_contains": "[redacted]"}},
        ])
        self.save("openai", KEY)
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt",
                         "read notes.txt"], self.env(OPENAI_BASE_URL=server.url + "/v1"))
        self.assertEqual(r.code, 0, r.stderr)
        reqs = server.requests()
        self.assertEqual(len(reqs), 2)
        self.assertNotIn("expectation", reqs[1])
        sent = json.dumps(reqs[1]["body"])
        self.assertIn("deploy notes", sent)   # the rest of the file reached the model
        self.assertNotIn(MARKER, sent)
        self.assertNotIn(MARKER, self.record_text())
        self.assertNotIn(MARKER, r.stdout + r.stderr)

    def test_verify(self):
        server = self.openai_server([KEY], [])
        env = self.env(OPENAI_BASE_URL=server.url + "/v1")
        self.save("openai", KEY)
        p = self.keys(["verify", "openai"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("The OpenAI key (saved in the keyring) works.", p.stdout)

        # A key the service refuses.
        p = self.keys(["verify", "openai"], env=dict(env, OPENAI_API_KEY=OTHER_KEY))
        self.assertEqual(p.returncode, 1)
        self.assertIn("The key was refused by OpenAI (HTTP 401)", p.stderr)

        # `set --verify` saves nothing the service refuses.
        p = self.keys(["set", "anthropic", "--verify"], env=dict(env, ANTHROPIC_BASE_URL=server.url),
                      stdin=OTHER_KEY + "\n")
        self.assertEqual(p.returncode, 1)
        self.assertIn("The key was refused", p.stderr)
        self.assertIn("Nothing was saved", p.stderr)
        _, rows = self.listing()
        self.assertFalse(rows["anthropic"]["saved"])

        # A server that is gone.
        server.stop()
        p = self.keys(["verify", "openai"], env=env)
        self.assertEqual(p.returncode, 1)
        self.assertIn("Couldn't reach OpenAI", p.stderr)


class KeysFile(KeysTestCase):
    """No session bus: the sealed file store."""

    def test_falls_back_to_the_sealed_file(self):
        env = no_bus_env(self.env(), self.tmp)
        data, rows = self.listing(env)
        self.assertEqual(data["store"], "file")
        self.assertIn("sealed file", data["notice"])
        self.assertIn("no D-Bus session bus", data["notice"])

        p = self.save("openai", KEY, env=env)
        self.assertIn("sealed file", p.stdout)
        sealed = os.path.join(self.home, "config", "secrets.sealed")
        for path in (sealed, sealed + ".key"):
            self.assertEqual(os.stat(path).st_mode & 0o777, 0o600, path)
        _, rows = self.listing(env)
        self.assertEqual(rows["openai"]["source"], "file")

        # The keyring of this session did not get it.
        _, rows = self.listing()
        self.assertFalse(rows["openai"]["saved"])

        server = self.openai_server([KEY], [{"text": "from the sealed file"}])
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "hi"], dict(env, OPENAI_BASE_URL=server.url + "/v1"))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("sealed file", r.stderr)
        self.assertEqual(server.requests()[0]["headers"]["authorization"], "Bearer " + KEY)

        # Opened up to others, it is refused, with what to do.
        os.chmod(sealed, 0o644)
        p = self.keys(["list"], env=env)
        self.assertEqual(p.returncode, 1)
        self.assertIn("chmod 600", p.stderr)
        os.chmod(sealed, 0o600)
        p = self.keys(["remove", "openai"], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.saved.remove("openai")

    def test_forced_by_environment(self):
        env = self.env(OPENWORKER_SECRET_STORE="file")
        data, _ = self.listing(env)
        self.assertEqual(data["store"], "file")
        self.assertIn("OPENWORKER_SECRET_STORE=file", data["notice"])
        env = no_bus_env(self.env(OPENWORKER_SECRET_STORE="keyring"), self.tmp)
        p = self.keys(["list"], env=env)
        self.assertEqual(p.returncode, 1)
        self.assertIn("OPENWORKER_SECRET_STORE=keyring, but there is no OS keyring", p.stderr)


    def test_alternate_variable_counts(self):
        """GOOGLE_API_KEY, the catalog's alternative for Gemini, is where the
        key is; the listing names it. The control: without it, none."""
        google = "AIzaCliAlternateKey0123456789"
        _, rows = self.listing(self.env(OPENWORKER_SECRET_STORE="file", GOOGLE_API_KEY=google))
        self.assertEqual(rows["gemini"]["source"], "environment")
        self.assertEqual(rows["gemini"]["variable"], "GOOGLE_API_KEY")
        self.assertEqual(rows["anthropic"]["source"], "none")
        _, rows = self.listing(self.env(OPENWORKER_SECRET_STORE="file"))
        self.assertEqual(rows["gemini"]["source"], "none")
        self.assertEqual(rows["gemini"]["variable"], "GEMINI_API_KEY")

    def test_first_key_sets_the_default_model(self):
        env = self.env(OPENWORKER_SECRET_STORE="file")
        env.pop("OPENWORKER_MODEL", None)
        server = self.openai_server([KEY], [{"text": "answered by the default model"}])
        run_env = dict(env, OPENAI_BASE_URL=server.url + "/v1")
        # No model yet: a run without --model is refused (the control).
        r = self.run_ow(["--prompt", "hi"], run_env)
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn("no model is set", r.stderr)

        p = self.save("openai", KEY, env=env)
        first = re.search(r"(openai:\S+) is now the default model", p.stdout)
        self.assertIsNotNone(first, p.stdout)
        with open(os.path.join(self.home, "config", "model_config.json")) as f:
            self.assertIs(json.load(f)[first.group(1)]["default"], True)
        # A second key leaves the default alone.
        p = self.save("anthropic", OTHER_KEY, env=env)
        self.assertNotIn("is now the default model", p.stdout)

        r = self.run_ow(["--prompt", "hi"], run_env)
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "answered by the default model")
        self.assertEqual(server.requests()[0]["body"]["model"], first.group(1).split(":", 1)[1])

if __name__ == "__main__":
    unittest.main()
