"""End-to-end tests of the engine's own secrets: `openworker run` against the
scripted model server, checking that a command sees only the allow-listed
environment, that no record, stdout or stderr holds a key (raw, split across
stream deltas, base64, hex or percent-encoded) or a base URL's password, and
that a process of the same user cannot read the engine's environment.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owtest import RunTestCase  # noqa: E402

# '/', '+', '=' and ':' make the key's percent-encoding differ from it, and
# its base64 use the characters where the URL-safe alphabet differs.
KEY = "sk-e2e/secret+key=value:42>>>???"
BASE_PASSWORD = "base-url-pass-5150"


def encodings(value):
    """Each form a command may print @value in, as a stretch only the value's
    own bytes decide (base64 at each of the three alignments)."""
    raw = value.encode()
    percent = urllib.parse.quote(value, safe="")
    forms = {"raw": value, "hex": raw.hex(), "HEX": raw.hex().upper(), "percent": percent,
             "percent-lower": re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), percent)}
    for align in range(3):
        enc = base64.b64encode(b"ab"[:align] + raw + b" tail").decode()
        start, end = (8 * align + 5) // 6, (8 * (align + len(raw))) // 6
        forms[f"base64-{align}"] = enc[start:end]
        forms[f"base64url-{align}"] = enc[start:end].replace("+", "-").replace("/", "_")
    return forms


class Secrets(RunTestCase):
    def openai_env(self, server, **extra):
        # The base URL carries credentials the way some gateways want them.
        base = server.url.replace("http://", f"http://gateway:{BASE_PASSWORD}@") + "/v1"
        return self.env(OPENAI_BASE_URL=base, OPENAI_API_KEY=KEY, **extra)

    def everything_written(self, r):
        """stdout, stderr, every file under the record folder and under the
        engine's home (its database and audit log)."""
        return {"stdout": r.stdout, "stderr": r.stderr, "record": self.record_text(),
                "home": self.record_text(self.home)}

    def assert_absent(self, texts, needles):
        for where, text in texts.items():
            for name, needle in needles.items():
                # assertNotIn would print the whole text (a database, say).
                at = text.find(needle)
                self.assertEqual(at, -1, f"{name} form of a secret in {where}: …{text[max(0, at - 80):at + 80]!r}…")


class CommandEnvironment(Secrets):
    """A command gets the allow-listed environment and nothing else."""

    def list_environment(self, **extra):
        """Runs a task whose command writes its environment to a file;
        returns the run and that environment."""
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "env > env.txt; echo done"}}]},
            {"text": "Listed."},
        ]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "env"],
                        self.openai_env(server, **extra))
        self.assertEqual(r.code, 0, r.stderr)
        # The key still worked for the run, from memory.
        self.assertEqual(server.requests()[0]["headers"]["authorization"], "Bearer " + KEY)
        with open(os.path.join(self.ws, "env.txt")) as f:
            return r, dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)

    def test_only_allowed_variables_reach_a_command(self):
        os.makedirs(os.path.join(self.home, "config"))
        with open(os.path.join(self.home, "config", "config.toml"), "w") as f:
            f.write('shell_environment_allow = ["OW_E2E_ALLOWED", "OW_E2E_PREFIX_*"]\n')
        r, seen = self.list_environment(DATABASE_URL="postgres://app:db-pass-31337@db.internal/app",
                                        DB_PASS="hunter2-db-pass", SMTP_PASS="smtp-pass-0001",
                                        GH_PAT="github_pat_11AAAAexample",
                                        GOOGLE_API_KEY="AIzaE2eGoogleAlternate0123456789",
                                        OW_E2E_ALLOWED="allowed-yes", OW_E2E_PREFIX_ONE="prefix-yes",
                                        OW_E2E_UNLISTED="unlisted-plain", LANG="C.UTF-8",
                                        https_proxy="http://proxyuser:proxy-pass-8080@127.0.0.1:9/")

        # Positive control: what a shell needs, and the names the config adds.
        for name in ("PATH", "HOME", "LANG"):
            self.assertIn(name, seen)
        self.assertEqual(seen.get("OW_E2E_ALLOWED"), "allowed-yes")
        self.assertEqual(seen.get("OW_E2E_PREFIX_ONE"), "prefix-yes")
        # A proxy keeps its credentials: the person's proxy needs them.
        self.assertEqual(seen.get("https_proxy"), "http://proxyuser:proxy-pass-8080@127.0.0.1:9/")
        # Refused: credentials no name rule would recognise, keys, and any
        # name not on the list.
        for name in ("DATABASE_URL", "DB_PASS", "SMTP_PASS", "GH_PAT", "OPENAI_BASE_URL", "OPENAI_API_KEY",
                     "GOOGLE_API_KEY", "OW_E2E_UNLISTED", "OPENWORKER_RETRY_DELAYS"):
            self.assertNotIn(name, seen)
        # The proxy's and the base URL's passwords are in no record.
        self.assert_absent(self.everything_written(r), {"proxy password": "proxy-pass-8080",
                                                        "base URL password": BASE_PASSWORD})

    def test_project_config_cannot_widen_the_list(self):
        os.makedirs(os.path.join(self.ws, ".openworker"))
        with open(os.path.join(self.ws, ".openworker", "config.toml"), "w") as f:
            f.write('shell_environment_allow = ["DATABASE_URL"]\n')
        _, seen = self.list_environment(DATABASE_URL="postgres://app:db-pass-31337@db.internal/app")
        self.assertIn("PATH", seen)  # control: the command ran and listed its environment
        self.assertNotIn("DATABASE_URL", seen)


class Redaction(Secrets):
    """A key the engine holds, printed by a command in every encoding and
    streamed back split across deltas, is in nothing the run writes."""

    def test_encoded_and_split_key_reaches_no_record(self):
        with open(os.path.join(self.ws, "leak.txt"), "w") as f:
            f.write(KEY)
        # The command never names the key: it encodes a file that holds it.
        command = ("echo ENC-BEGIN; base64 -w0 leak.txt; echo; "
                   "{ printf x; cat leak.txt; } | base64 -w0; echo; "
                   "{ printf xy; cat leak.txt; } | base64 -w0 | tr '+/' '-_'; echo; "
                   "od -An -tx1 leak.txt | tr -d ' \\n'; echo; "
                   "od -An -tx1 leak.txt | tr -d ' \\n' | tr a-f A-F; echo; "
                   "python3 -c 'import urllib.parse; print(urllib.parse.quote(open(\"leak.txt\").read(), safe=\"\"))'; "
                   "echo ENC-END")
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": command}}]},
            # Small pieces: the key arrives in several deltas.
            {"text": f"Before the key {KEY} and after it.", "text_chunks": 9},
        ]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "leak"],
                        self.openai_env(server))
        self.assertEqual(r.code, 0, r.stderr)

        written = self.everything_written(r)
        self.assert_absent(written, encodings(KEY))
        # Nor did the model get the encodings back in the tool result.
        self.assert_absent({"model request": json.dumps(server.requests()[1]["body"])},
                           {k: v for k, v in encodings(KEY).items() if k != "raw"})

        # Positive controls: the text around the key is there, in the answer
        # and in the streamed deltas put together, and the command ran.
        self.assertEqual(r.stdout, "Before the key [redacted] and after it.\n")
        events = r.lines("events.jsonl")
        deltas = [e["data"]["text"] for e in events if e["type"] == "assistant_delta"]
        self.assertGreater(len(deltas), 2)
        self.assertEqual("".join(deltas), "Before the key [redacted] and after it.")
        result = json.dumps(server.requests()[1]["body"])
        observed = json.dumps(r.json("trajectory.json"))
        for text in (result, observed):
            self.assertIn("ENC-BEGIN", text)
            self.assertIn("ENC-END", text)
            self.assertIn("[redacted]", text)


    def test_base_url_password_reaches_no_record(self):
        # A password too short to register as a secret: only taking the
        # userinfo out of every URL written keeps it out.
        import socket
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        env = self.env(OPENAI_BASE_URL=f"http://gateway:sh0rt@127.0.0.1:{port}/v1", OPENAI_API_KEY=KEY)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], env)
        self.assertEqual(r.code, 3, r.stderr)
        # Control: the failure is told, with the address it tried.
        self.assertIn(f"[redacted]@127.0.0.1:{port}", r.stderr)
        self.assertIn(f"127.0.0.1:{port}", self.record_text())
        self.assert_absent(self.everything_written(r), {"userinfo": "gateway:sh0rt"})


NOBODY = 65534


class NotDumpable(Secrets):
    """A process of the engine's own user cannot read its environment."""

    # Finds the nearest ancestor that is the engine, then tries to read its
    # environment; a same-user dumpable process (a sleep it starts) is the
    # control that reading another process is otherwise allowed.
    PROBE = ("p=$$; while [ \"$p\" -gt 1 ] && [ \"$(cat /proc/$p/comm)\" != openworker ]; do "
             "p=$(cut -d' ' -f4 /proc/$p/stat); done; "
             "echo engine=$p uid=$(id -u) environ_owner=$(stat -c %u /proc/$p/environ); "
             "if cat /proc/$p/environ >/dev/null 2>&1; then echo engine-environ=readable; "
             "else echo engine-environ=denied; fi; "
             "sleep 30 & s=$!; if cat /proc/$s/environ >/dev/null 2>&1; then echo sibling-environ=readable; "
             "else echo sibling-environ=denied; fi; kill $s")

    def test_engine_environ_is_unreadable_to_its_own_user(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell",
                             "arguments": {"command": "{ " + self.PROBE + "; } > probe.txt 2>&1"}}]},
            {"text": "Probed."},
        ]})
        env = self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=KEY)
        argv = [os.path.abspath(os.environ.get("OW_OPENWORKER", "build/app/openworker")), "run", "--out", self.out,
                "--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "probe"]
        if os.getuid() == 0:
            # Root may read any process (CAP_SYS_PTRACE): the guarantee is for
            # a process without it, so the whole run drops to nobody.
            if shutil.which("setpriv") is None:
                self.skipTest("setpriv is needed to run the engine as an ordinary user")
            for root, dirs, files in os.walk(self.tmp):
                for name in [root] + [os.path.join(root, n) for n in dirs + files]:
                    os.chown(name, NOBODY, NOBODY)
            argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + argv
            env["HOME"] = self.home
        p = subprocess.run(argv, cwd=self.ws, env=env, capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.ws, "probe.txt")) as f:
            probe = dict(w.split("=", 1) for w in f.read().split() if "=" in w)

        uid = NOBODY if os.getuid() == 0 else os.getuid()
        self.assertEqual(probe.get("uid"), str(uid), probe)
        self.assertNotEqual(probe.get("engine"), "1", "the probe did not find the engine")
        # Control: another process of the same user is readable.
        self.assertEqual(probe.get("sibling-environ"), "readable", probe)
        # The engine is not: the kernel gives an undumpable process's /proc
        # files to root.
        self.assertEqual(probe.get("engine-environ"), "denied", probe)
        self.assertEqual(probe.get("environ_owner"), "0", probe)


if __name__ == "__main__":
    unittest.main()
