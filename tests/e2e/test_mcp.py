"""MCP servers through `openworker run`: the reference server
(@modelcontextprotocol/server-everything, pinned in tests/mcp/package.json)
over stdio, called by the scripted model as `mcp__<server>__<tool>`, and
the rules about which mcp.json a run reads: --mcp-config alone, the
machine's, a trusted workspace's and never an untrusted one's, none with
--isolated."""
import json
import os
import sqlite3
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owtest import OPENWORKER_PATH, TEST_KEYS, RunTestCase  # noqa: E402

EVERYTHING = os.environ.get("OW_MCP_EVERYTHING", "")
NODE = os.environ.get("OW_MCP_NODE", "node")   # Node 20 from npm (tests/mcp/meson.build)
DOUBLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mcp", "mcp-double.py")


def call(cid, name, arguments):
    return {"tool_calls": [{"id": cid, "name": name, "arguments": arguments}]}


def marker_server(path):
    """An mcp.json entry whose start leaves @path behind (it is no MCP
    server, so it then fails to initialize)."""
    return {"command": "/bin/sh", "args": ["-c", f"touch {path}; exec sleep 30"],
            "startup_timeout_sec": 1}


class McpRun(RunTestCase):
    def setUp(self):
        super().setUp()
        if not os.path.isfile(EVERYTHING):
            self.fail(f"server-everything is missing at {EVERYTHING!r}: run `npm ci --prefix tests/mcp` (./dev does)")
        self.config_dir = os.path.join(self.home, "config")
        os.makedirs(self.config_dir)

    def write_json(self, path, obj):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(obj, f)
        return path

    def everything(self):
        return {"mcpServers": {"everything": {"command": NODE, "args": [EVERYTHING, "stdio"]}}}

    def run_with(self, turns, args, mode="bypass-approvals"):
        server = self.server({"turns": turns + [{"text": "done"}]})
        env = self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"])
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", mode, "--prompt", "use the tools",
                         *args], env, timeout=120)
        return r, server

    def audit_rows(self, r, call_id):
        db = sqlite3.connect(r.path("audit.db"))
        db.row_factory = sqlite3.Row
        return [dict(x) for x in db.execute("SELECT * FROM audit_events WHERE call_id = ? ORDER BY id", (call_id,))]

    def tool_results(self, r):
        return {m["tool_call_id"]: m["content"] for m in r.json("messages.json") if m.get("role") == "tool"}

    def offered(self, server):
        """The tool names of the first model request."""
        body = server.requests()[0]["body"]
        return {t["function"]["name"] for t in body.get("tools", [])}

    def test_a_call_reaches_the_server_and_its_answer_the_model(self):
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        r, server = self.run_with([call("c1", "mcp__everything__echo", {"message": "hello from the model"}),
                                   call("c2", "mcp__everything__get-sum", {"a": 2, "b": 40})],
                                  ["--mcp-config", cfg])
        self.assertEqual(r.code, 0, r.stderr)
        names = self.offered(server)
        self.assertIn("mcp__everything__echo", names)
        self.assertIn("run_shell", names)   # beside the built-ins
        res = self.tool_results(r)
        self.assertIn("hello from the model", res["c1"])
        self.assertIn("42", res["c2"])
        # The audit trail names the tool, and the record says it ran.
        finished = {e["data"]["call_id"]: e["data"] for e in r.lines("events.jsonl") if e["type"] == "tool_finished"}
        self.assertEqual(finished["c1"]["name"], "mcp__everything__echo")
        self.assertEqual(finished["c1"].get("status", "ok"), "ok")

    def test_an_mcp_tool_is_external_and_asks_first(self):
        # Nobody at a terminal in ask mode: an external call is refused,
        # never run; the control (bypass) above runs the same call.
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        r, _ = self.run_with([call("c1", "mcp__everything__echo", {"message": "x"})], ["--mcp-config", cfg],
                             mode="ask")
        res = self.tool_results(r)
        self.assertNotIn("Echo: x", res["c1"])
        rows = self.audit_rows(r, "c1")
        self.assertTrue(rows)
        self.assertEqual({row["risk"] for row in rows if row["risk"]}, {"external"}, rows)
        self.assertEqual(rows[0]["tool"], "mcp__everything__echo")

    def test_per_tool_settings_in_ask_mode(self):
        # Ask mode, nobody at a terminal. The person's mcp.json allows echo
        # (it runs), leaves get-sum at ask (refused: the control), denies
        # get-env (not offered; a guessed call is refused with the reason)
        # and turns print-env... off (not offered at all).
        entry = self.everything()
        entry["mcpServers"]["everything"]["tools"] = {
            "echo": "allow", "get-sum": "ask", "get-env": "deny", "get-tiny-image": "off"}
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), entry)
        r, server = self.run_with([call("c1", "mcp__everything__echo", {"message": "allowed by the person"}),
                                   call("c2", "mcp__everything__get-sum", {"a": 2, "b": 40}),
                                   call("c3", "mcp__everything__get-env", {}),
                                   call("c4", "mcp__everything__get-tiny-image", {}),
                                   # readOnlyHint: true from the server, no setting: still asked.
                                   call("c5", "mcp__everything__trigger-long-running-operation",
                                        {"duration": 0.1, "steps": 1})],
                                  ["--mcp-config", cfg], mode="ask")
        self.assertEqual(r.code, 0, r.stderr)
        names = self.offered(server)
        self.assertIn("mcp__everything__echo", names)
        self.assertIn("mcp__everything__get-sum", names)
        self.assertNotIn("mcp__everything__get-env", names)
        self.assertNotIn("mcp__everything__get-tiny-image", names)
        res = self.tool_results(r)
        self.assertIn("allowed by the person", res["c1"])
        self.assertNotIn("42", res["c2"])
        self.assertIn("set to deny in mcp.json", res["c3"])
        self.assertIn("unknown tool", res["c4"])
        self.assertNotIn("Long running operation completed", res["c5"])
        allowed = self.audit_rows(r, "c1")
        self.assertTrue(any("mcp.json" in (row.get("provenance") or "") for row in allowed), allowed)
        denied = self.audit_rows(r, "c3")
        self.assertTrue(any(row["status"] == "denied" and row["provenance"] == "denied by configuration"
                            for row in denied), denied)

    def test_annotations_and_a_workspace_never_allow(self):
        # A trusted workspace's mcp.json may not allow a tool: the machine's
        # entry (ask) holds and the call is refused; the workspace's own
        # "off" narrows. Control: the machine's allow lets it run.
        self.write_json(os.path.join(self.config_dir, "mcp.json"), self.everything())
        self.write_json(os.path.join(self.ws, ".openworker", "mcp.json"),
                        {"mcpServers": {"everything": {"command": NODE, "args": [EVERYTHING, "stdio"],
                                                       "tools": {"echo": "allow", "get-sum": "off"}}}})
        self.write_json(os.path.join(self.home, "data", "workspace_trust.json"),
                        {"trusted_workspaces": [os.path.realpath(self.ws)]})
        r, server = self.run_with([call("c1", "mcp__everything__echo", {"message": "widened"})], [], mode="ask")
        self.assertEqual(r.code, 0, r.stderr)
        self.assertNotIn("widened", self.tool_results(r)["c1"])
        self.assertNotIn("mcp__everything__get-sum", self.offered(server))
        self.assertIn("mcp__everything__echo", self.offered(server))
        machine = self.everything()
        machine["mcpServers"]["everything"]["tools"] = {"echo": "allow"}
        self.write_json(os.path.join(self.config_dir, "mcp.json"), machine)
        r, _ = self.run_with([call("c1", "mcp__everything__echo", {"message": "by the machine"})], [], mode="ask")
        self.assertIn("by the machine", self.tool_results(r)["c1"])

    def test_progress_is_shown_and_recorded(self):
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        r, _ = self.run_with([call("c1", "mcp__everything__trigger-long-running-operation",
                                   {"duration": 2, "steps": 4})], ["--mcp-config", cfg])
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("Long running operation completed", self.tool_results(r)["c1"])
        progress = [e["data"] for e in r.lines("events.jsonl") if e["type"] == "tool_progress"]
        self.assertEqual([p["progress"] for p in progress], [1, 2, 3, 4], progress)
        self.assertEqual({p["total"] for p in progress}, {4})
        self.assertEqual({p["call_id"] for p in progress}, {"c1"})
        # stderr is no terminal here: lines, the last one always.
        self.assertIn("100% (4/4)", r.stderr)
        self.assertIn("⋯ [", r.stderr)

    def test_elicitation_by_rule_declines(self):
        # --auto-answer: the server's form and URL questions reach the
        # session's ask path (question_requested, naming the server and,
        # for the URL, its host) and the rule declines both: nothing is
        # invented, nothing is opened.
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        r, server = self.run_with([call("c1", "mcp__everything__trigger-elicitation-request", {}),
                                   call("c2", "mcp__everything__trigger-url-elicitation",
                                        {"url": "https://auth.example.org/consent?x=1"})],
                                  ["--mcp-config", cfg, "--auto-answer"])
        self.assertEqual(r.code, 0, r.stderr)
        # Offered only because the client declared elicitation (form and url).
        self.assertIn("mcp__everything__trigger-url-elicitation", self.offered(server))
        res = self.tool_results(r)
        self.assertIn("declined to provide the requested information", res["c1"])
        self.assertIn("declined to open the URL", res["c2"])
        asked = [e["data"] for e in r.lines("events.jsonl") if e["type"] == "question_requested"]
        self.assertEqual([a["call_id"] for a in asked], ["c1", "c2"], asked)
        self.assertIn("The MCP server “everything” asks for information", asked[0]["question"])
        self.assertEqual(asked[0]["options"], ["Fill in", "Decline"])
        self.assertIn("asks you to open a page on auth.example.org", asked[1]["question"])
        self.assertIn("https://auth.example.org/consent?x=1", asked[1]["question"])
        self.assertIn("does not open it", asked[1]["question"])
        self.assertEqual(asked[1]["options"], ["Open", "Decline"])

    def test_elicitation_never_asks_for_a_secret(self):
        # The hostile double asks for a password in a form: declined before
        # anyone is asked. Control: its plain form does reach the ask path.
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), {"mcpServers": {"double": {
            "command": "python3", "args": [DOUBLE], "env": {"DOUBLE_ELICIT": "1"}}}})
        r, _ = self.run_with([call("c1", "mcp__double__ask_secret", {}), call("c2", "mcp__double__ask_form", {})],
                             ["--mcp-config", cfg, "--auto-answer"])
        self.assertEqual(r.code, 0, r.stderr)
        res = self.tool_results(r)
        self.assertIn('"action": "decline"', res["c1"])
        self.assertIn("never collects secrets", res["c1"])
        self.assertIn('"action": "decline"', res["c2"])
        asked = [e["data"]["call_id"] for e in r.lines("events.jsonl") if e["type"] == "question_requested"]
        self.assertEqual(asked, ["c2"])

    def test_elicitation_waits_in_the_inbox(self):
        # attendance = "inbox": the server's questions are parked like any
        # ask_user and answered from another process; first answer wins.
        with open(os.path.join(self.config_dir, "config.toml"), "w") as f:
            f.write('attendance = "inbox"\n')
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        server = self.server({"turns": [call("c1", "mcp__everything__trigger-url-elicitation",
                                             {"url": "https://auth.example.org/consent"}),
                                        call("c2", "mcp__everything__trigger-elicitation-request", {}),
                                        {"text": "done"}]})
        env = self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"])
        p = self.start(["run", "--out", self.out, "--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                        "--prompt", "x", "--mcp-config", cfg], env)
        answered, shown = [], []
        deadline = time.time() + 60
        while len(answered) < 2 and time.time() < deadline:
            lst = subprocess.run([OPENWORKER_PATH, "inbox", "list", "--json"], env=env, capture_output=True, text=True)
            for item in json.loads(lst.stdout or "[]"):
                if item["id"] in answered:
                    continue
                question = json.dumps(item["data"], ensure_ascii=False)
                shown.append(question)
                word = "Open" if "open a page on auth.example.org" in question else "Decline"
                a = subprocess.run([OPENWORKER_PATH, "inbox", "answer", item["id"], word], env=env,
                                   capture_output=True, text=True)
                self.assertEqual(a.returncode, 0, a.stderr)
                answered.append(item["id"])
            time.sleep(0.1)
        _, stderr = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, stderr)
        self.assertEqual(len(answered), 2, shown)
        self.assertIn("https://auth.example.org/consent", shown[0])
        res = {m["tool_call_id"]: m["content"] for m in self.read_out("messages.json") if m.get("role") == "tool"}
        self.assertIn("completed the URL elicitation", res["c1"])
        self.assertIn("declined to provide the requested information", res["c2"])

    def read_out(self, name):
        with open(os.path.join(self.out, name)) as f:
            return json.load(f)

    def test_elicitation_a_person_fills_in_the_form(self):
        # The positive control: at a terminal the person answers the card
        # and each field; the server gets typed values and defaults.
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        server = self.server({"turns": [call("c1", "mcp__everything__trigger-elicitation-request", {}),
                                        call("c2", "mcp__everything__trigger-url-elicitation",
                                             {"url": "https://auth.example.org/consent"}),
                                        {"text": "done"}]})
        env = self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"])
        answers = [("[1] Fill in", "1"), ("Your full, legal name", "Ada Lovelace"),
                   ("Agree to the terms", "yes")] + [("Your answer", "")] * 11 + [
                   ("[1] Open", "1")]
        code, transcript = self.run_at_terminal(
            ["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "use the tools",
             "--mcp-config", cfg], env, answers, timeout=90)
        self.assertEqual(code, 0, transcript)
        res = {m["tool_call_id"]: m["content"] for m in self.read_out("messages.json") if m.get("role") == "tool"}
        self.assertIn("User provided the requested information", res["c1"], transcript)
        self.assertIn("- Name: Ada Lovelace", res["c1"])
        self.assertIn("- Agreed to terms: true", res["c1"])
        self.assertIn("- Favorite Integer: 42", res["c1"])   # the default, for an empty answer
        self.assertIn("completed the URL elicitation", res["c2"])

    def test_progress_is_a_bar_at_a_terminal(self):
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"), self.everything())
        server = self.server({"turns": [call("c1", "mcp__everything__trigger-long-running-operation",
                                             {"duration": 1, "steps": 2}), {"text": "done"}]})
        env = self.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"])
        code, transcript = self.run_at_terminal(
            ["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x",
             "--mcp-config", cfg], env, [], timeout=60)
        self.assertEqual(code, 0, transcript)
        # Redrawn in place (carriage return, erase line), ended by a newline.
        self.assertIn("\r\x1b[K    ⋯ [██████████··········]  50% (1/2)", transcript)
        self.assertIn("\r\x1b[K    ⋯ [████████████████████] 100% (2/2)\r\n", transcript)

    def test_a_dead_server_is_named_and_the_run_goes_on(self):
        cfg = self.write_json(os.path.join(self.tmp, "mcp.json"),
                              {"mcpServers": {"broken": {"command": "/nonexistent/mcp-server"},
                                              **self.everything()["mcpServers"]}})
        r, server = self.run_with([call("c1", "mcp__everything__echo", {"message": "still here"})],
                                  ["--mcp-config", cfg])
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn('MCP server "broken" did not start', r.stderr)
        self.assertIn("still here", self.tool_results(r)["c1"])
        self.assertFalse(any(n.startswith("mcp__broken__") for n in self.offered(server)))

    def test_which_mcp_json_a_run_reads(self):
        machine = os.path.join(self.tmp, "machine-started")
        local = os.path.join(self.tmp, "workspace-started")
        self.write_json(os.path.join(self.config_dir, "mcp.json"), {"mcpServers": {"m": marker_server(machine)}})
        self.write_json(os.path.join(self.ws, ".openworker", "mcp.json"), {"mcpServers": {"w": marker_server(local)}})

        # Untrusted workspace: the machine's server starts (positive
        # control), the workspace's never does.
        r, _ = self.run_with([], [])
        self.assertEqual(r.code, 0, r.stderr)
        self.assertTrue(os.path.exists(machine), r.stderr)
        self.assertFalse(os.path.exists(local), "an untrusted workspace's MCP server was started")

        # Trusted: both.
        os.remove(machine)
        self.write_json(os.path.join(self.home, "data", "workspace_trust.json"),
                        {"trusted_workspaces": [os.path.realpath(self.ws)]})
        r, _ = self.run_with([], [])
        self.assertTrue(os.path.exists(machine), r.stderr)
        self.assertTrue(os.path.exists(local), r.stderr)

        # --isolated reads none of this computer's servers.
        os.remove(machine)
        os.remove(local)
        r, _ = self.run_with([], ["--isolated"])
        self.assertEqual(r.code, 0, r.stderr)
        self.assertFalse(os.path.exists(machine))
        self.assertFalse(os.path.exists(local))

    def test_mcp_config_that_is_missing_is_a_usage_error(self):
        r, _ = self.run_with([], ["--mcp-config", os.path.join(self.tmp, "nope.json")])
        self.assertEqual(r.code, 2)
        self.assertIn("nope.json: no such file", r.stderr)


class McpCli(RunTestCase):
    """`openworker mcp list|add|remove|tools` against the real mcp.json."""

    def ow(self, *args, **extra):
        env = self.env(**extra)
        return subprocess.run([OPENWORKER_PATH, "mcp", *args], env=env, capture_output=True, text=True, timeout=60)

    def test_add_list_tools_remove(self):
        if not os.path.isfile(EVERYTHING):
            self.fail(f"server-everything is missing at {EVERYTHING!r}")
        r = self.ow("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No MCP servers", r.stdout)
        r = self.ow("add", "everything", "--env", "GREETING=hi", "--", NODE, EVERYTHING, "stdio")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.home, "config", "mcp.json")) as f:
            saved = json.load(f)["mcpServers"]["everything"]
        self.assertEqual(saved, {"command": NODE, "args": [EVERYTHING, "stdio"], "env": {"GREETING": "hi"}})
        r = self.ow("list", "--json")
        self.assertEqual([s["name"] for s in json.loads(r.stdout)], ["everything"])
        r = self.ow("tools", "everything", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        tools = {t["name"]: t for t in json.loads(r.stdout)}
        self.assertEqual(tools["mcp__everything__echo"]["server_name"], "echo")
        self.assertEqual({t["risk"] for t in tools.values()}, {"external"})
        self.assertEqual({t["setting"] for t in tools.values()}, {"ask"})
        # A second add under the same name is refused; the entry is kept.
        r = self.ow("add", "everything", "--url", "https://example.org/mcp")
        self.assertEqual(r.returncode, 2)
        r = self.ow("remove", "everything")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No MCP servers", self.ow("list").stdout)

    def test_tool_setting(self):
        self.assertEqual(self.ow("add", "x", "--", "true").returncode, 0)
        path = os.path.join(self.home, "config", "mcp.json")
        r = self.ow("tool", "x", "echo", "allow")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.ow("tool", "x", "zap", "deny")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path) as f:
            self.assertEqual(json.load(f)["mcpServers"]["x"]["tools"], {"echo": "allow", "zap": "deny"})
        listed = json.loads(self.ow("list", "--json").stdout)[0]
        self.assertEqual(listed["tools"], {"echo": "allow", "zap": "deny"})
        self.assertIn("tools: echo=allow, zap=deny", self.ow("list").stdout)
        # ask is the default: the line goes away.
        self.assertEqual(self.ow("tool", "x", "echo", "ask").returncode, 0)
        with open(path) as f:
            self.assertEqual(json.load(f)["mcpServers"]["x"]["tools"], {"zap": "deny"})
        r = self.ow("tool", "x", "echo", "maybe")
        self.assertEqual(r.returncode, 2)
        self.assertIn("allow, ask, deny or off", r.stderr)
        self.assertEqual(self.ow("tool", "nobody", "echo", "allow").returncode, 2)
        # A session can never widen its own permissions.
        r = self.ow("tool", "x", "zap", "allow", OPENWORKER_SESSION_COMMAND="1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("only a person can", r.stderr)
        with open(path) as f:
            self.assertEqual(json.load(f)["mcpServers"]["x"]["tools"], {"zap": "deny"})

    def test_bad_entries_are_refused(self):
        r = self.ow("add", "ftp", "--url", "ftp://example.org")
        self.assertEqual(r.returncode, 2)
        self.assertIn("http:// or https://", r.stderr)
        r = self.ow("add", "two", "--url", "https://example.org/mcp", "--", "true")
        self.assertEqual(r.returncode, 2)
        r = self.ow("add", "bad name", "--", "true")
        self.assertEqual(r.returncode, 2)
        self.assertFalse(os.path.exists(os.path.join(self.home, "config", "mcp.json")))
        # Control: a good one is taken.
        self.assertEqual(self.ow("add", "web", "--url", "https://example.org/mcp").returncode, 0)

    def test_a_session_cannot_add_or_remove_a_server(self):
        r = self.ow("add", "x", "--", "true", OPENWORKER_SESSION_COMMAND="1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("only a person can add MCP servers", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.home, "config", "mcp.json")))
        # Control: the person can; then the session cannot remove it, but may list.
        self.assertEqual(self.ow("add", "x", "--", "true").returncode, 0)
        r = self.ow("remove", "x", OPENWORKER_SESSION_COMMAND="1")
        self.assertEqual(r.returncode, 2)
        self.assertIn("x", self.ow("list", OPENWORKER_SESSION_COMMAND="1").stdout)


if __name__ == "__main__":
    unittest.main()
