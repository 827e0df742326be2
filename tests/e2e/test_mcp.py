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
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from owtest import OPENWORKER_PATH, TEST_KEYS, RunTestCase  # noqa: E402

EVERYTHING = os.environ.get("OW_MCP_EVERYTHING", "")
NODE = os.environ.get("OW_MCP_NODE", "node")   # Node 20 from npm (tests/mcp/meson.build)


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
        # A second add under the same name is refused; the entry is kept.
        r = self.ow("add", "everything", "--url", "https://example.org/mcp")
        self.assertEqual(r.returncode, 2)
        r = self.ow("remove", "everything")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("No MCP servers", self.ow("list").stdout)

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
