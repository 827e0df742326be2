"""Sandboxed runs end to end: `openworker run` with sandbox_provider = "linux"
in the machine's config, against the scripted model server. The wall itself
is attacked in tests/sandbox (the escape battery); here the session's wiring
is checked: the choice comes from the machine only, the wall is proved or
the run refused, every tool result carries the enforcement level, the proxy
reports blocked hosts to the agent, site grants work live (once, session,
always), and adding a folder recreates the sandbox and says so."""
import http.server
import json
import os
import sqlite3
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owtest import OPENWORKER, TEST_KEYS, RunTestCase  # noqa: E402

RUNNER = os.path.join(os.path.dirname(os.path.abspath(OPENWORKER)), "openworker-tool-runner")


def shell(cid, command):
    return {"tool_calls": [{"id": cid, "name": "run_shell", "arguments": {"command": command}}]}


def tool(cid, name, **arguments):
    return {"tool_calls": [{"id": cid, "name": name, "arguments": arguments}]}


class Site:
    """A loopback HTTP server standing in for a site on the internet."""

    def __init__(self, body=b"hello from the allowed site\n"):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def wall_available():
    """The wall needs unprivileged user namespaces and Landlock; the runner's
    --check says what this machine offers."""
    out = subprocess.run([RUNNER, "--check"], capture_output=True, text=True, timeout=30).stdout
    checks = json.loads(out)["checks"]
    return all(c["ok"] for c in checks), out


class SandboxCase(RunTestCase):
    def setUp(self):
        super().setUp()
        ready, why = wall_available()
        if not ready:
            self.skipTest(f"this machine cannot build the Linux wall: {why}")
        self.person = os.path.join(self.tmp, "person")
        os.makedirs(os.path.join(self.person, ".ssh"))
        with open(os.path.join(self.person, ".ssh", "id_rsa"), "w") as f:
            f.write("secret-key-material\n")
        with open(os.path.join(self.person, "diary.txt"), "w") as f:
            f.write("private\n")
        self.config(sandbox_provider="linux")
        self.sites = []

    def tearDown(self):
        for s in self.sites:
            s.stop()
        super().tearDown()

    def config(self, **keys):
        os.makedirs(os.path.join(self.home, "config"), exist_ok=True)
        with open(os.path.join(self.home, "config", "config.toml"), "w") as f:
            for k, v in keys.items():
                f.write(f"{k} = {json.dumps(v)}\n")

    def site(self):
        s = Site()
        self.sites.append(s)
        return s

    def senv(self, server, **extra):
        return self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"],
                        HOME=self.person, GITHUB_TOKEN="ghp_must_not_reach_the_sandbox", **extra)

    def results_in(self, out):
        """call_id → each tool call's full result: the record the event log
        keeps for a command (the model reads a leaner text), else the tool
        message's JSON."""
        records = {}
        with open(os.path.join(out, "events.jsonl")) as f:
            for line in f:
                e = json.loads(line)
                if e["type"] == "tool_finished" and "result" in e["data"]:
                    records[e["data"]["call_id"]] = e["data"]["result"]
        with open(os.path.join(out, "messages.json")) as f:
            msgs = json.load(f)
        return {m["tool_call_id"]: records.get(m["tool_call_id"]) or json.loads(m["content"])
                for m in msgs if m.get("role") == "tool"}

    def tool_results(self, r):
        """call_id → the full result of each tool call."""
        return self.results_in(r.out)

    def out_results(self):
        """The tool results of a run at a terminal (its record is in self.out)."""
        return self.results_in(self.out)

    def finished(self, r):
        return {e["data"]["call_id"]: e["data"] for e in r.lines("events.jsonl") if e["type"] == "tool_finished"}


class SandboxRun(SandboxCase):
    def test_tools_run_behind_the_wall(self):
        server = self.server({"turns": [
            shell("c1", "echo made-inside > out.txt; ls -A \"$HOME\"; cat /proc/self/status | grep NoNewPrivs; "
                        "env | grep -c ghp_ ; true"),
            tool("c2", "read_file", path="out.txt"),
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        with open(os.path.join(self.ws, "out.txt")) as f:
            self.assertEqual(f.read(), "made-inside\n")
        res = self.tool_results(r)
        out = res["c1"]["output"]
        self.assertNotIn("diary.txt", out)          # the home is a private, empty one
        self.assertNotIn(".ssh", out)
        self.assertIn("NoNewPrivs:\t1", out)
        self.assertTrue(out.rstrip().endswith("0"), out)  # no secret variable inside
        self.assertIn("1\tmade-inside", res["c2"]["content"])

        summary = r.json("summary.json")
        self.assertEqual(summary["sandbox"], "linux")
        self.assertIn("landlock", summary["enforcement"])
        for data in self.finished(r).values():
            self.assertIn("namespaces+landlock", data["enforcement"])
        db = sqlite3.connect(r.path("audit.db"))
        rows = db.execute("SELECT DISTINCT enforcement FROM audit_events WHERE stage = 'finished'").fetchall()
        self.assertEqual(len(rows), 1)
        self.assertIn("landlock", rows[0][0])

    def test_a_project_config_cannot_choose_the_sandbox(self):
        self.config()  # the machine says nothing: direct
        os.makedirs(os.path.join(self.ws, ".openworker"))
        with open(os.path.join(self.ws, ".openworker", "config.toml"), "w") as f:
            f.write('sandbox_provider = "linux"\nsandbox_network_profile = "open"\n')
        server = self.server({"turns": [shell("c1", "true"), {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.json("summary.json")["sandbox"], "direct")
        # Direct mode, with the command guard around the shell.
        self.assertTrue(self.finished(r)["c1"]["enforcement"].startswith("direct, guard ("),
                        self.finished(r)["c1"]["enforcement"])

    def test_a_wall_that_cannot_be_built_refuses_the_run(self):
        # Seatbelt exists only on macOS: the run is refused with the reason, never run open.
        self.config(sandbox_provider="seatbelt")
        server = self.server({"turns": [shell("c1", "echo ran > ran.txt"), {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server))
        self.assertNotEqual(r.code, 0)
        self.assertIn("seatbelt", r.stderr.lower())
        self.assertFalse(os.path.exists(os.path.join(self.ws, "ran.txt")))
        self.assertEqual(server.requests(), [])  # not even the model was called

    def test_a_broken_runner_refuses_the_run(self):
        fake = os.path.join(self.tmp, "fake-runner")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nexit 3\n")
        os.chmod(fake, 0o755)
        server = self.server({"turns": [shell("c1", "echo ran > ran.txt"), {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server, OPENWORKER_TOOL_RUNNER=fake))
        self.assertEqual(r.code, 1, r.stderr)
        self.assertIn("could not be started, so the run was refused", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "ran.txt")))

    def test_adding_a_folder_recreates_the_sandbox_and_says_so(self):
        extra = os.path.join(self.tmp, "extra")
        os.makedirs(extra)
        server = self.server({"turns": [
            shell("c1", "export MARK=kept; touch " + os.path.join(extra, "before.txt") + " 2>&1; echo $?"),
            tool("c2", "request_directory", reason="the data lives there", path=extra, writable=True),
            shell("c3", "echo mark=$MARK; touch " + os.path.join(extra, "after.txt") + " && echo ok"),
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(
            ["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
            self.senv(server), [("[y] yes", "y")])
        self.assertEqual(code, 0, transcript)
        res = self.out_results()
        self.assertNotEqual(res["c1"]["output"].strip().splitlines()[-1], "0")  # outside the wall at first
        self.assertFalse(os.path.exists(os.path.join(extra, "before.txt")))
        self.assertTrue(res["c2"]["granted"], res["c2"])
        self.assertIn("mark=\n", res["c3"]["output"])  # shell state was lost …
        self.assertIn("recreated", res["c3"]["sandbox_note"])  # … and the agent was told
        self.assertTrue(os.path.exists(os.path.join(extra, "after.txt")))


class SiteGrants(SandboxCase):
    def curl(self, port, host="127.0.0.1"):
        return f"curl -sS -m 10 http://{host}:{port}/ ; echo rc=$?"

    def test_blocked_hosts_are_reported_to_the_agent(self):
        s = self.site()
        server = self.server({"turns": [shell("c1", self.curl(s.port) + "; curl -sS -m 5 http://blocked.example/"),
                                        {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        res = self.tool_results(r)["c1"]
        self.assertNotIn("hello from the allowed site", res["output"])
        self.assertEqual(sorted(res["network_blocked"]), sorted([f"127.0.0.1:{s.port}", "blocked.example:80"]))
        self.assertIn("ask the person", res["network_note"])
        names = [t["function"]["name"] for t in server.requests()[0]["body"]["tools"]]
        self.assertIn("request_network_access", names)

    def test_allow_site_and_config_hosts_let_a_site_through(self):
        a, b = self.site(), self.site()
        self.config(sandbox_provider="linux", sandbox_network_hosts=[f"127.0.0.1:{a.port}"])
        server = self.server({"turns": [shell("c1", self.curl(a.port) + "; " + self.curl(b.port)),
                                        {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                         "--allow-site", f"127.0.0.1:{b.port}", "--prompt", "x"], self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        res = self.tool_results(r)["c1"]
        self.assertEqual(res["output"].count("hello from the allowed site"), 2, res["output"])
        self.assertNotIn("network_blocked", res)

    def test_a_site_granted_for_the_session_works_at_once(self):
        a = self.site()
        server = self.server({"turns": [
            shell("c1", "curl -sS -m 10 http://pypi.example:80/ ; echo rc=$?"),
            tool("c2", "request_network_access", host="pypi.example:80", reason="the task needs its packages"),
            shell("c3", "curl -sS -m 10 http://pypi.example:80/ ; echo rc=$?"),
            # A session grant never lifts the private-address guard.
            tool("c4", "request_network_access", host=f"127.0.0.1:{a.port}", reason="a local service"),
            shell("c5", self.curl(a.port)),
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(
            ["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
            self.senv(server), [("[s] for this session", "s"), ("[s] for this session", "s")])
        self.assertEqual(code, 0, transcript)
        self.assertIn("pypi.example:80", transcript)
        res = self.out_results()
        self.assertEqual(res["c1"]["network_blocked"], ["pypi.example:80"])
        self.assertIn("not on the list", res["c1"]["output"])
        self.assertEqual(res["c2"]["granted"], True)
        self.assertEqual(res["c2"]["scope"], "session")
        # The list changed at once, without a restart: the proxy now lets the
        # name through and only fails to resolve it (there is no DNS here).
        self.assertNotIn("not on the list", res["c3"]["output"])
        self.assertTrue(res["c4"]["granted"])
        self.assertNotIn("hello from the allowed site", res["c5"]["output"])
        self.assertIn("loopback", res["c5"]["output"])
        # "session" is not "always": the machine's config is unchanged.
        with open(os.path.join(self.home, "config", "config.toml")) as f:
            self.assertNotIn("pypi.example", f.read())

    def test_always_adds_the_site_to_the_machine_list(self):
        s = self.site()
        server = self.server({"turns": [
            tool("c1", "request_network_access", host=f"127.0.0.1:{s.port}", reason="needed"),
            shell("c2", self.curl(s.port)),
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(
            ["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
            self.senv(server), [("[a] always", "a")])
        self.assertEqual(code, 0, transcript)
        with open(os.path.join(self.home, "config", "config.toml")) as f:
            text = f.read()
        self.assertIn(f"127.0.0.1:{s.port}", text)
        self.assertIn('sandbox_provider = "linux"', text)

    def test_nobody_there_means_no_grant(self):
        s = self.site()
        server = self.server({"turns": [
            tool("c1", "request_network_access", host=f"127.0.0.1:{s.port}", reason="needed"),
            shell("c2", self.curl(s.port)),
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        res = self.tool_results(r)
        self.assertFalse(res["c1"]["granted"])
        self.assertNotIn("hello from the allowed site", res["c2"]["output"])

    def test_the_agent_cannot_ask_in_dangerous_mode(self):
        s = self.site()
        server = self.server({"turns": [
            tool("c1", "request_network_access", host=f"127.0.0.1:{s.port}", reason="needed"),
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "dangerously-bypass-approvals",
                         "--prompt", "x"], self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        res = self.tool_results(r)["c1"]
        self.assertFalse(res["granted"])
        self.assertIn("full access", res["reason"])

    def test_web_fetch_of_an_unlisted_site_asks_first(self):
        s = self.site()
        url = f"http://127.0.0.1:{s.port}/"
        server = self.server({"turns": [tool("c1", "web_fetch", url=url), {"text": "done"}]})
        # Nobody at a terminal: the card is refused, and nothing is fetched.
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        events = r.lines("events.jsonl")
        asked = [e for e in events if e["type"] == "site_requested"]
        self.assertEqual(len(asked), 1)
        self.assertEqual(asked[0]["data"]["site"], f"127.0.0.1:{s.port}")
        self.assertEqual(self.finished(r)["c1"]["status"], "denied")
        self.assertEqual(self.finished(r)["c1"]["provenance"], "site denied")

    def test_web_fetch_of_a_listed_site_needs_no_card(self):
        s = self.site()
        server = self.server({"turns": [tool("c1", "web_fetch", url=f"http://127.0.0.1:{s.port}/"), {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                         "--allow-site", f"127.0.0.1:{s.port}", "--prompt", "x"], self.senv(server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertNotIn("site_requested", [e["type"] for e in r.lines("events.jsonl")])
        self.assertIn("hello from the allowed site", json.dumps(self.tool_results(r)["c1"]))
        self.assertTrue(r.json("summary.json")["web_tools"])


if __name__ == "__main__":
    unittest.main()
