"""The loopback API with real clients: the `ws` npm client on the session
stream (auth, ordering, rejection, replay after a reconnect, approvals from
several surfaces), the official OpenAI Node SDK on /v1/chat/completions,
and many clients at once.

Run one class: python3 tests/server/test_clients.py -v Replay"""
import json
import os
import time
import unittest

from srvtest import ServerTestCase, curl, node

TEXT = "Here is a reply that streams in several pieces for the browser."


def text_turn(text=TEXT, **kw):
    return {"text": text, "text_chunks": 6, **kw}


def write_turn(path, content, cid="c1"):
    return {"tool_calls": [{"id": cid, "name": "write_file", "arguments": {"path": path, "content": content}}]}


class ClientTestCase(ServerTestCase):
    needs_npm = True
    script = {"turns": [text_turn()]}

    def wsc(self, path, send=(), until=None, protocols=None, headers=None, timeout_ms=20000, close_after_seq=None,
           token=None, fetch=None, notify=None):
        plan = {"url": self.srv.ws_base + path,
                "protocols": protocols if protocols is not None else ["openworker", token or self.srv.token],
                "headers": headers or {}, "send": list(send), "timeout_ms": timeout_ms}
        if until:
            plan["until"] = until
        if fetch:
            plan["fetch"] = fetch
        if notify:
            plan["notify"] = notify
        if close_after_seq is not None:
            plan["close_after_seq"] = close_after_seq
        return node("ws-client.mjs", input_text=json.dumps(plan), timeout=timeout_ms / 1000 + 30)

    def seqs(self, frames):
        return [f["seq"] for f in frames if "seq" in f]

    def assertContiguous(self, seqs, start=None):
        self.assertTrue(seqs, "no sequenced frames")
        if start is not None:
            self.assertEqual(seqs[0], start)
        self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))), seqs)


class Stream(ClientTestCase):
    script = {"turns": [text_turn(chunk_delay_ms=30), text_turn("second")]}

    def test_auth_refused_with_1008(self):
        for name, protocols, headers in [
                ("no protocol", [], {}),
                ("openworker alone", ["openworker"], {}),
                ("wrong token", ["openworker", "0" * 64], {}),
                ("token first", [self.srv.token, "openworker"], {}),
                ("foreign origin", ["openworker", self.srv.token], {"Origin": "http://evil.example"})]:
            with self.subTest(case=name):
                r = self.wsc("/ws/session/s1", protocols=protocols, headers=headers, timeout_ms=5000)
                self.assertEqual(r["frames"], [], r)
                self.assertEqual(r["close"]["code"], 1008, r)
        # Nothing was created for a refused client.
        self.assertEqual(self.api("/v1/sessions").json["sessions"], [])
        # A rebinding Host is refused before any upgrade.
        r = self.wsc("/ws/session/s1", headers={"Host": "evil.example"}, timeout_ms=5000)
        self.assertEqual(r["error"], "unexpected-response 403")
        r = self.wsc("/ws/nothing", timeout_ms=5000)
        self.assertEqual(r["error"], "unexpected-response 404")
        r = self.wsc("/ws/session/a/b", timeout_ms=5000)
        self.assertEqual(r["error"], "unexpected-response 404")

    def test_turn_streams_in_order(self):
        r = self.wsc("/ws/session/first", headers={"Origin": "http://localhost:5173"},
                    send=[{"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "hello"}}],
                    until={"type": "turn_done"})
        self.assertEqual(r["protocol"], "openworker")
        frames = r["frames"]
        ready = frames[0]
        self.assertEqual(ready["type"], "ready")
        self.assertNotIn("seq", ready)
        for key in ["session_id", "agent", "model", "mode", "workspace", "temp_workspace", "command_trust"]:
            self.assertIn(key, ready["data"])
        self.assertEqual(ready["data"]["session_id"], "first")
        self.assertEqual(ready["data"]["model"], "openai:gpt-4o")
        types = [f["type"] for f in frames[1:]]
        self.assertEqual(types[0], "turn_start")
        self.assertEqual(types[-1], "turn_done")
        self.assertIn("assistant_message", types)
        deltas = [f["data"]["text"] for f in frames if f["type"] == "assistant_delta"]
        self.assertGreater(len(deltas), 1)
        self.assertEqual("".join(deltas), TEXT)
        self.assertContiguous(self.seqs(frames), start=1)
        for f in frames[1:]:
            self.assertEqual(set(f) - {"_t"}, {"type", "data", "seq"})
        # The conversation is on disk.
        msgs = self.api("/v1/sessions/first/messages").json["messages"]
        self.assertEqual(msgs[-1]["role"], "assistant")
        self.assertEqual(msgs[-1]["content"], TEXT)
        info = self.api("/v1/sessions/first").json
        self.assertEqual(info["title"], "hello")
        self.assertEqual(info["liveness"], "idle")

    def test_input_rejected(self):
        bad = [
            "not json", "[]", '"x"', "{}", '{"type": 7}', '{"type": "nope"}', '{"type": "user_message"}',
            '{"type": "user_message", "text": "x", "attachments": [{"kind": "exe"}]}',
            '{"type": "approval", "decision": "sudo"}', '{"type": "set_mode", "mode": "dangerously-bypass-approvals"}',
            '{"type": "set_mode", "mode": "sideways"}', '{"type": "approval", "decision": "once"}',
            '{"type": "retry"}',
        ]
        send = [{"on": {"type": "ready"}, "frame": text} for text in bad]
        send.append({"on": {"type": "ready"}, "frame": "binary!", "binary": True})
        r = self.wsc("/ws/session/rej", send=send, until={"type": "input_rejected", "count": len(bad) + 1})
        rejected = [f for f in r["frames"] if f["type"] == "input_rejected"]
        self.assertEqual(len(rejected), len(bad) + 1, r["frames"])
        for f in rejected:
            self.assertNotIn("seq", f)
            self.assertTrue(f["data"]["error"])
        errors = " | ".join(f["data"]["error"] for f in rejected)
        self.assertIn("JSON object", errors)
        self.assertIn("Unknown message type", errors)
        self.assertIn("empty", errors)
        self.assertIn("dangerously-bypass-approvals", errors)
        self.assertIn("Nothing in session", errors)
        # Nothing ran.
        self.assertEqual(self.api("/v1/sessions/rej/messages").json["messages"], [])

    def test_one_turn_at_a_time(self):
        r = self.wsc("/ws/session/busy", send=[
            {"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "one"}},
            {"on": {"type": "turn_start"}, "frame": {"type": "user_message", "text": "two"}},
        ], until=[{"type": "turn_done"}, {"type": "input_rejected"}])
        rejected = [f for f in r["frames"] if f["type"] == "input_rejected"]
        self.assertEqual(len(rejected), 1, r["frames"])
        self.assertIn("already running a turn", rejected[0]["data"]["error"])
        self.assertEqual(sum(1 for f in r["frames"] if f["type"] == "turn_start"), 1)

    def test_rate_limit(self):
        frame = {"type": "set_mode", "mode": "ask"}
        r = self.wsc("/ws/session/rate", send=[{"on": {"type": "ready"}, "frame": frame, "repeat": 31}])
        rejected = [f for f in r["frames"] if f["type"] == "input_rejected"]
        self.assertEqual(rejected[-1]["data"]["error"], "Too many WebSocket messages; reconnect and try again.")
        self.assertEqual(r["close"]["code"], 1008)
        # 30 are fine.
        r = self.wsc("/ws/session/rate2", send=[{"on": {"type": "ready"}, "frame": frame, "repeat": 30}],
                    until={"type": "mode_changed", "count": 30})
        self.assertFalse(any(f["type"] == "input_rejected" for f in r["frames"]), r["frames"])

    def test_set_mode_and_model(self):
        r = self.wsc("/ws/session/modes", send=[
            {"on": {"type": "ready"}, "frame": {"type": "set_mode", "mode": "plan"}},
            {"on": {"type": "mode_changed"}, "frame": {"type": "set_model", "model": "anthropic:claude-x"}},
            {"on": {"type": "model_changed"}, "frame": {"type": "set_model", "model": "nosuch:model"}},
        ], until={"type": "input_rejected"})
        types = [f["type"] for f in r["frames"]]
        self.assertEqual(types, ["ready", "mode_changed", "model_changed", "input_rejected"])
        info = self.api("/v1/sessions/modes").json
        self.assertEqual(info["mode"], "plan")
        self.assertEqual(info["model"], "anthropic:claude-x")

    def test_events_stream(self):
        import threading
        result = {}

        def watch():
            result["r"] = self.wsc("/ws/events", until={"type": "sessions_changed"}, timeout_ms=15000)
        t = threading.Thread(target=watch)
        t.start()
        time.sleep(1.0)
        self.api("/v1/sessions", method="POST", body={})
        t.join()
        types = [f["type"] for f in result["r"]["frames"]]
        self.assertEqual(types, ["ready", "sessions_changed"])


class Replay(ClientTestCase):
    script = {"turns": [text_turn("A" * 40 + " then more words to stream along slowly", text_chunks=12,
                                  chunk_delay_ms=60)]}

    def test_reconnect_gets_exactly_what_was_missed(self):
        first = self.wsc("/ws/session/rp", send=[{"on": {"type": "ready"}, "frame": {"type": "user_message",
                                                                                     "text": "go"}}],
                        close_after_seq=4)
        got1 = self.seqs(first["frames"])
        self.assertEqual(got1, [1, 2, 3, 4])
        # The turn goes on without a watcher; reconnect mid-turn with the last seq.
        second = self.wsc("/ws/session/rp?since=4", until={"type": "turn_done"})
        self.assertEqual(second["frames"][0]["type"], "ready")
        got2 = self.seqs(second["frames"])
        self.assertEqual(got2[0], 5)
        self.assertContiguous(got1 + got2, start=1)
        self.assertEqual(len(set(got1 + got2)), len(got1 + got2))
        # A third client asking for everything sees the same log, in order.
        third = self.wsc("/ws/session/rp?since=0", until={"type": "turn_done"})
        self.assertEqual(self.seqs(third["frames"]), got1 + got2)
        self.assertEqual([f["type"] for f in third["frames"][1:]],
                         [f["type"] for f in first["frames"][1:]] + [f["type"] for f in second["frames"][1:]])
        # Up to date: nothing to replay.
        last = got2[-1]
        fourth = self.wsc(f"/ws/session/rp?since={last}", timeout_ms=1500)
        self.assertEqual([f["type"] for f in fourth["frames"]], ["ready"])
        self.assertEqual(fourth["frames"][0]["data"]["last_seq"], last)
        # A restart keeps the log.
        self.srv.stop()
        self.srv = self.start_server()
        fifth = self.wsc("/ws/session/rp?since=0", until={"type": "turn_done"})
        self.assertEqual(self.seqs(fifth["frames"]), got1 + got2)

    def test_bad_since(self):
        for since in ["-1", "abc", "1e3", "99999999999999999999999"]:
            r = self.wsc(f"/ws/session/bs?since={since}", timeout_ms=5000)
            self.assertEqual([f["type"] for f in r["frames"]], ["error"], r)
            self.assertEqual(r["close"]["code"], 1008)


class Approvals(ClientTestCase):
    script = {"turns": [write_turn("out.txt", "hello"), text_turn("Done."),
                        write_turn("second.txt", "two", cid="c2"), text_turn("Done again."),
                        write_turn("third.txt", "three", cid="c3"), text_turn("Refused, fine.")]}

    def test_first_answer_wins_everywhere(self):
        import threading
        sid = "appr"
        workspace = os.path.realpath(self.ws)
        self.api("/v1/sessions", method="POST", body={"session_id": sid, "workspace": workspace})
        watcher = {}

        def watch():
            watcher["r"] = self.wsc(f"/ws/session/{sid}?since=0", until={"type": "turn_done"}, timeout_ms=30000)
        t = threading.Thread(target=watch)
        t.start()
        time.sleep(0.8)
        r = self.wsc(f"/ws/session/{sid}", send=[
            {"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "write it"}},
            {"on": {"type": "permission_required"}, "frame": {"type": "approval", "decision": "once"}},
            {"on": {"type": "approval_resolved"}, "frame": {"type": "approval", "decision": "deny"}},
        # The rejection of the late answer and the turn's end race each other.
        ], until=[{"type": "turn_done"}, {"type": "input_rejected"}], timeout_ms=30000)
        t.join()
        types = [f["type"] for f in r["frames"]]
        self.assertIn("permission_required", types)
        perm = next(f for f in r["frames"] if f["type"] == "permission_required")
        self.assertEqual(perm["data"]["name"], "write_file")
        self.assertIn("approval_resolved", types)
        # The late second answer is told so; the first stands.
        late = [f for f in r["frames"] if f["type"] == "input_rejected"]
        self.assertEqual(len(late), 1, types)
        with open(os.path.join(workspace, "out.txt")) as f:
            self.assertEqual(f.read(), "hello")
        # The other surface saw the card open and close, in the same order.
        wtypes = [f["type"] for f in watcher["r"]["frames"]]
        self.assertIn("permission_required", wtypes)
        self.assertIn("approval_resolved", wtypes)
        self.assertEqual(self.seqs(watcher["r"]["frames"]), self.seqs(r["frames"]))
        items = self.api(f"/v1/inbox?session_id={sid}&state=all").json["items"]
        self.assertEqual(len(items), 1)
        self.assertEqual(items[0]["state"], "resolved")
        self.assertEqual(items[0]["resolved_by"], "browser")

        # From the inbox: allow the second, deny the third.
        for expect_file, resolution in [("second.txt", "allow"), ("third.txt", "deny")]:
            result = {}

            def run():
                result["r"] = self.wsc(f"/ws/session/{sid}", send=[
                    {"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "again"}}],
                    until={"type": "turn_done"}, timeout_ms=30000)
            t = threading.Thread(target=run)
            t.start()
            pending = []
            for _ in range(100):
                pending = self.api(f"/v1/inbox?session_id={sid}&state=pending").json["items"]
                if pending:
                    break
                time.sleep(0.1)
            self.assertEqual(len(pending), 1)
            self.assertEqual(self.api(f"/v1/sessions/{sid}").json["attention"], 1)
            self.assertEqual(self.api(f"/v1/sessions/{sid}").json["liveness"], "working")
            r2 = self.api(f"/v1/inbox/{pending[0]['id']}/resolve", method="POST", body={"resolution": resolution})
            self.assertTrue(r2.json["ok"], r2.raw)
            t.join()
            types = [f["type"] for f in result["r"]["frames"]]
            self.assertIn("approval_resolved", types)
            self.assertEqual(types[-1], "turn_done")
            self.assertEqual(os.path.exists(os.path.join(workspace, expect_file)), resolution == "allow")


def shell_turn(command, cid):
    return {"tool_calls": [{"id": cid, "name": "run_shell", "arguments": {"command": command}}]}


def session_with_file(test, sid, name, content):
    """Creates session @sid in the test's workspace, which holds @name."""
    workspace = os.path.realpath(test.ws)
    with open(os.path.join(workspace, name), "w") as f:
        f.write(content)
    test.api("/v1/sessions", method="POST", body={"session_id": sid, "workspace": workspace})
    return workspace


class ReadOnlyGrant(ClientTestCase):
    """The card's "Allow read-only commands" (readonly_session) runs the
    command and the read-only ones after it, and leaves the mode alone."""
    script = {"turns": [shell_turn("cat a.txt", "r1"), shell_turn("ls | wc -l", "r2"), shell_turn("touch b.txt", "r3"),
                        text_turn("Done.")]}

    def test_allow_read_only_commands(self):
        sid = "rogrant"
        workspace = session_with_file(self, sid, "a.txt", "alpha\n")
        r = self.wsc(f"/ws/session/{sid}", send=[
            {"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "look"}},
            # Every card gets the same answer: for touch, which is not
            # read-only, it must not be taken as a yes.
            {"on": {"type": "permission_required"}, "frame": {"type": "approval", "decision": "readonly_session"},
             "every": True},
        ], until={"type": "turn_done"}, timeout_ms=30000)
        cards = [f["data"] for f in r["frames"] if f["type"] == "permission_required"]
        # cat asked (the grant offered), ls | wc ran under it, touch asked
        # again without the offer and was not run.
        self.assertEqual([(c["call_id"], c["readonly_ok"]) for c in cards], [("r1", True), ("r3", False)])
        finished = {f["data"]["call_id"]: f["data"]["status"] for f in r["frames"] if f["type"] == "tool_finished"}
        self.assertEqual(finished, {"r1": "ok", "r2": "ok", "r3": "denied"})
        self.assertFalse(os.path.exists(os.path.join(workspace, "b.txt")))
        self.assertNotEqual(self.api(f"/v1/sessions/{sid}").json["mode"], "plan")


class ShellArtifacts(ClientTestCase):
    """The deliverables list every file the session changed in its
    folders: those its shell commands made as well as its file tools'."""
    script = {"turns": [shell_turn("printf one > made.txt && mkdir -p out && printf 'a,b' > out/t.csv", "s1"),
                        write_turn("w.md", "# W", cid="w1"), text_turn("Done.")]}

    def test_shell_made_files_listed(self):
        sid = "shellart"
        workspace = session_with_file(self, sid, "old.md", "# not made by the session")
        r = self.wsc(f"/ws/session/{sid}", send=[
            {"on": {"type": "ready"}, "frame": {"type": "set_mode", "mode": "bypass-approvals"}},
            {"on": {"type": "mode_changed"}, "frame": {"type": "user_message", "text": "make them"}},
        ], until={"type": "turn_done"}, timeout_ms=30000)
        self.assertIn("turn_done", [f["type"] for f in r["frames"]])
        arts = self.api(f"/v1/sessions/{sid}/artifacts").json["artifacts"]
        by_abs = {a["abs_path"]: a for a in arts}
        for name in ("made.txt", "out/t.csv", "w.md"):
            self.assertIn(os.path.join(workspace, name), by_abs, arts)
        self.assertEqual(by_abs[os.path.join(workspace, "out/t.csv")]["path"], "out/t.csv")
        self.assertNotIn(os.path.join(workspace, "old.md"), by_abs)
        got = curl(self.srv.base + f"/v1/sessions/{sid}/artifacts/read", token=self.srv.token,
                   extra=["-G", "--data-urlencode", f"path={os.path.join(workspace, 'made.txt')}"])
        self.assertEqual(got.json["content"], "one")


class OpenAISDK(ClientTestCase):
    script = {"models": ["gpt-4o"], "turns": [
        {"text": "Hello from the scripted model.", "usage": {"input": 12, "output": 7}},
        {"text": "Streaming works through the proxy nicely.", "text_chunks": 5, "usage": {"input": 9, "output": 8}},
        {"tool_calls": [{"id": "call_w1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
        {"tool_calls": [{"id": "call_w2", "name": "get_weather", "arguments": {"city": "Oslo"}}]},
    ]}

    def test_sdk(self):
        out = node("openai-sdk.mjs", self.srv.base, self.srv.token)
        self.assertIn("openai:gpt-4o", out["models"])
        w = out["whole"]
        self.assertTrue(w["id"].startswith("chatcmpl-"))
        self.assertEqual(w["object"], "chat.completion")
        self.assertEqual(w["model"], "openai:gpt-4o")
        self.assertEqual(w["content"], "Hello from the scripted model.")
        self.assertEqual(w["finish"], "stop")
        self.assertEqual(w["usage"], {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19})
        s = out["stream"]
        self.assertEqual(s["text"], "Streaming works through the proxy nicely.")
        self.assertGreater(s["pieces"], 1)
        self.assertEqual(s["finish"], "stop")
        self.assertEqual(s["usage"]["completion_tokens"], 8)
        tw = out["tool_whole"]
        self.assertEqual(tw["finish"], "tool_calls")
        self.assertEqual(tw["calls"][0]["function"]["name"], "get_weather")
        self.assertEqual(json.loads(tw["calls"][0]["function"]["arguments"]), {"city": "Paris"})
        ts = out["tool_stream"]
        self.assertEqual(ts["finish"], "tool_calls")
        self.assertEqual(ts["calls"][0]["name"], "get_weather")
        self.assertEqual(json.loads(ts["calls"][0]["arguments"]), {"city": "Oslo"})
        self.assertEqual(out["bad_key"]["status"], 401)
        self.assertEqual(out["bad_key"]["name"], "AuthenticationError")
        self.assertEqual(out["unknown_model"]["status"], 404)
        self.assertEqual(out["malformed"]["status"], 400)
        # What the provider was sent: the messages as given, the provider's key.
        reqs = self.model.requests()
        chat = [r for r in reqs if r["path"].endswith("/chat/completions")]
        self.assertEqual(len(chat), 4)
        self.assertEqual(chat[0]["body"]["messages"][0], {"role": "system", "content": "Be brief."})
        self.assertEqual(chat[0]["headers"]["authorization"], "Bearer sk-srv-test-openai-3f9e2a71c4")
        self.assertTrue(chat[1]["body"]["stream"])
        self.assertEqual(chat[2]["body"]["tools"][0]["function"]["name"], "get_weather")

    def test_upstream_errors_keep_their_meaning(self):
        # The script is exhausted after the SDK test's turns; here: none left.
        self.model.stop()
        r = curl(self.srv.base + "/v1/chat/completions", method="POST",
                 headers={"Authorization": f"Bearer {self.srv.token}"},
                 body={"model": "openai:gpt-4o", "messages": [{"role": "user", "content": "x"}]})
        self.assertEqual(r.status, 502, r.raw)
        self.assertIs(r.json["ok"], False)
        self.assertIn("message", r.json["error"])
        self.assertNotIn("sk-srv-test", r.raw)


class Load(ClientTestCase):
    script = {"turns": [{"text": "Load test reply with a handful of streamed chunks in it.", "text_chunks": 8,
                         "repeat": 60}]}

    def check_client(self, c):
        self.assertFalse(c["timedOut"], c["session"])
        frames = c["frames"]
        self.assertFalse([f for f in frames if f["type"] == "_error"], frames)
        self.assertEqual(frames[0]["type"], "ready")
        seqs = [f["seq"] for f in frames if f.get("seq") is not None]
        self.assertEqual(len(seqs), len(set(seqs)), "duplicates")
        self.assertEqual(seqs, list(range(1, len(seqs) + 1)))
        types = [f["type"] for f in frames if f.get("seq") is not None]
        self.assertEqual(types[0], "turn_start")
        self.assertEqual(types[-1], "turn_done")
        self.assertEqual(types.count("turn_start"), 1)
        text = "".join(f["text"] or "" for f in frames if f["type"] == "assistant_delta")
        self.assertEqual(text, "Load test reply with a handful of streamed chunks in it.")
        return seqs

    def test_100_clients_one_session(self):
        out = node("load.mjs", "one-session", self.srv.ws_base, self.srv.token, 100, timeout=240)
        self.assertEqual(len(out["clients"]), 100)
        reference = None
        for c in out["clients"]:
            seqs = self.check_client(c)
            reference = reference or seqs
            self.assertEqual(seqs, reference)
        print(f"\nfan-out spread to 100 clients: {out['spread_ms']}")

    def test_50_sessions_at_once(self):
        out = node("load.mjs", "many-sessions", self.srv.ws_base, self.srv.token, 50, timeout=240)
        self.assertEqual(len(out["clients"]), 50)
        for c in out["clients"]:
            self.check_client(c)
        sessions = self.api("/v1/sessions").json["sessions"]
        self.assertEqual(len(sessions), 50)
        for s in sessions:
            msgs = self.api(f"/v1/sessions/{s['session_id']}/messages").json["messages"]
            self.assertEqual(s["messages"], len(msgs))
            self.assertEqual([m["role"] for m in msgs if m["role"] != "system"], ["user", "assistant"], msgs)
            self.assertEqual(msgs[-1]["content"], "Load test reply with a handful of streamed chunks in it.")



class SessionCommands(ClientTestCase):
    """A session's own command that holds the token (a leaked one: the guard
    keeps the real file out of reach) is still refused by the API, over
    REST and over the WebSocket; the same request from a person's program
    (this test) is served."""
    probe = ("curl -s -o /dev/null -w 'rest=%{http_code} ' -H \"X-OpenWorker-Token: $(cat leaked-token)\" "
             "\"$(cat leaked-base)/v1/inbox\"; "
             "curl -s -o /dev/null -w 'mcp=%{http_code} ' -X POST -H \"X-OpenWorker-Token: $(cat leaked-token)\" "
             "-H 'Content-Type: application/json' -d '{\"name\":\"evil\",\"config\":{\"command\":\"true\"}}' "
             "\"$(cat leaked-base)/v1/mcp\"; "
             "node -e \"const ws = new (require('ws'))(process.argv[1] + '/ws/session/probe', "
             "['openworker', process.argv[2]]); ws.on('close', c => console.log('ws=' + c)); "
             "ws.on('message', () => {})\" \"$(cat leaked-ws)\" \"$(cat leaked-token)\"; true")
    script = {"turns": [
        {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": probe}}]},
        text_turn("Done.")]}

    def test_a_session_command_cannot_use_the_api(self):
        with open(os.path.join(self.ws, "leaked-token"), "w") as f:
            f.write(self.srv.token)
        with open(os.path.join(self.ws, "leaked-base"), "w") as f:
            f.write(self.srv.base)
        with open(os.path.join(self.ws, "leaked-ws"), "w") as f:
            f.write(self.srv.ws_base)
        # A copy, not a link: inside the guard /tmp is private, and a clone
        # under /tmp would leave a link pointing at nothing.
        import shutil
        shutil.copytree(os.path.join(os.path.dirname(os.path.abspath(__file__)), "node_modules", "ws"),
                        os.path.join(self.ws, "node_modules", "ws"))
        sid = "cmd"
        workspace = os.path.realpath(self.ws)
        self.api("/v1/sessions", method="POST", body={"session_id": sid, "workspace": workspace,
                                                       "mode": "bypass-approvals"})
        r = self.wsc(f"/ws/session/{sid}", send=[
            {"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "probe"}},
            {"on": {"type": "permission_required"}, "frame": {"type": "approval", "decision": "once"}},
        ], until={"type": "turn_done"}, timeout_ms=60000)
        self.assertIn("turn_done", [f["type"] for f in r["frames"]])
        msgs = self.api(f"/v1/sessions/{sid}/messages").json["messages"]
        # The model gets the command's output as plain text.
        out = next(m["content"] for m in msgs if m.get("role") == "tool")
        self.assertIn("rest=403", out)
        self.assertIn("ws=1008", out)
        # Nor can it add an MCP server (a command of its choosing, run by the host).
        self.assertIn("mcp=403", out)
        self.assertNotIn("evil", [s["name"] for s in self.api("/v1/mcp").json["servers"]])
        # The positive control: the same token from a person's program works.
        self.assertEqual(self.api("/v1/inbox").status, 200)
        r = self.api("/v1/mcp", method="POST", body={"name": "person", "config": {"command": "true"}})
        self.assertTrue(r.json["ok"], r.raw)
        self.api("/v1/mcp/person", method="DELETE")
        ok = self.wsc("/ws/session/probe2", until={"type": "ready"}, timeout_ms=5000)
        self.assertEqual(ok["frames"][0]["type"], "ready", ok)

SAVED_KEY = "sk-srv-saved-openai-7c1e93b04d"


class SavedKeys(ClientTestCase):
    """A key saved from Models & Keys is the key the sessions use, and the
    first one makes its provider's recommended model the default. The
    model server accepts only the saved key, so a request without it (or
    with any other) is refused there."""
    script = {"keys": [SAVED_KEY], "turns": [text_turn("Hello from the saved key.")]}

    def setUp(self):
        super().setUp()
        # No key and no model in the environment: only what is saved counts.
        self.srv.stop()
        self.srv = self.start_server(env={"OPENAI_API_KEY": None, "OPENWORKER_MODEL": None})

    def chat(self, sid, frame):
        return self.wsc(f"/ws/session/{sid}", send=[{"on": {"type": "ready"}, "frame": frame}],
                        until={"type": "turn_done"})["frames"]

    def test_saved_key_and_first_default(self):
        sid = self.api("/v1/sessions", method="POST", body={}).json["session_id"]
        self.assertIsNone(self.api(f"/v1/sessions/{sid}").json.get("model"))
        self.assertIsNone(self.api("/v1/settings/models").json["default"])
        self.assertIsNone(self.api("/v1/health").json["model"])

        # Before any key: the turn cannot start, and says where to add one.
        frames = self.chat(sid, {"type": "user_message", "text": "hello"})
        errors = [f["data"]["error"] for f in frames if f.get("type") == "error"]
        self.assertEqual(len(errors), 1, frames)
        self.assertIn("Models & Keys", errors[0])
        self.assertNotIn("Settings ▸", errors[0])
        self.assertEqual(self.model.requests(), [], "nothing reached the model")

        # Retry with nothing new is still refused the same way (the control).
        frames = self.chat(sid, {"type": "retry"})
        self.assertTrue(any(f.get("type") == "error" for f in frames), frames)
        self.assertFalse(any("nothing to retry" in json.dumps(f) for f in frames), frames)

        openai = {p["name"]: p for p in self.api("/v1/providers").json}["openai"]
        self.assertFalse(openai["configured"])
        r = self.api("/v1/providers", method="POST", body={"name": "openai", "fields": {"api_key": SAVED_KEY}})
        self.assertTrue(r.json["ok"], r.raw)
        self.assertEqual(r.json["default_model"], openai["recommended_model"])
        with open(os.path.join(self.home, "config", "model_config.json")) as f:
            self.assertIs(json.load(f)[openai["recommended_model"]]["default"], True)
        models = self.api("/v1/settings/models").json
        self.assertEqual(models["default"], openai["recommended_model"])
        self.assertEqual(models["default_source"], "model_config")
        self.assertIn(openai["recommended_model"], [c["id"] for c in models["choices"]])
        # Every default the API reports is that one.
        self.assertEqual(self.api("/v1/health").json["model"], openai["recommended_model"])
        listed = curl(self.srv.base + "/v1/models", headers={"Authorization": f"Bearer {self.srv.token}"}).json
        self.assertEqual(listed["data"][0]["id"], openai["recommended_model"])

        # A second key does not move the default.
        r = self.api("/v1/providers", method="POST",
                     body={"name": "anthropic", "fields": {"api_key": "sk-ant-second-" + "0" * 24}})
        self.assertTrue(r.json["ok"], r.raw)
        self.assertIsNone(r.json["default_model"])
        self.assertEqual(self.api("/v1/settings/models").json["default"], openai["recommended_model"])

        # Retry now sends the first message with the saved key and the new default.
        frames = self.chat(sid, {"type": "retry"})
        types = [f.get("type") for f in frames]
        self.assertNotIn("error", types, frames)
        self.assertIn("model_changed", types)
        answers = [f["data"].get("text") for f in frames if f.get("type") == "assistant_message"]
        self.assertEqual(answers, ["Hello from the saved key."])
        reqs = self.model.requests()
        self.assertEqual(len(reqs), 1, reqs)
        self.assertEqual(reqs[0]["headers"].get("authorization") or reqs[0]["headers"].get("Authorization"),
                         f"Bearer {SAVED_KEY}")
        self.assertIn("hello", json.dumps(reqs[0]["body"]["messages"][-1]))
        self.assertEqual(self.api(f"/v1/sessions/{sid}").json["model"], openai["recommended_model"])

        # A new session gets the default at once.
        other = self.api("/v1/sessions", method="POST", body={}).json["session_id"]
        self.assertEqual(self.api(f"/v1/sessions/{other}").json["model"], openai["recommended_model"])


class RetryDelays(ClientTestCase):
    """OPENWORKER_RETRY_DELAYS sets the server's waits and how many retries
    there are (its default schedule starts at 2 s and has 9 entries)."""
    script = {"turns": [{"error": {"kind": "server"}}, {"error": {"kind": "server"}}, text_turn("Recovered.")]}

    def retries(self, delays):
        self.srv.stop()
        self.srv = self.start_server(env={"OPENWORKER_RETRY_DELAYS": delays})
        r = self.wsc("/ws/session/r1", send=[{"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "hi"}}],
                     until={"type": "turn_done"})
        return r["frames"]

    def test_two_short_retries_recover(self):
        frames = self.retries("0.05,0.05")
        retries = [f["data"] for f in frames if f.get("type") == "provider_retry"]
        self.assertEqual([(d["attempt"], d["max_attempts"], d["delay_seconds"]) for d in retries],
                         [(1, 2, 0.05), (2, 2, 0.05)], retries)
        self.assertIn("Recovered.", [f["data"].get("text") for f in frames if f.get("type") == "assistant_message"])

    def test_one_retry_then_the_error(self):
        frames = self.retries("0.05")
        retries = [f["data"] for f in frames if f.get("type") == "provider_retry"]
        self.assertEqual([(d["attempt"], d["max_attempts"], d["delay_seconds"]) for d in retries], [(1, 1, 0.05)])
        self.assertTrue(any(f.get("type") == "error" for f in frames), frames)
        self.assertEqual(len(self.model.requests()), 2)


GOOGLE_KEY = "google-alt-key-7c1d9e0b5a3f"


class AlternateKeyVariable(ClientTestCase):
    """Gemini's key may be in GOOGLE_API_KEY (the catalog's alternative to
    GEMINI_API_KEY): the provider list, the model list and the sessions
    all count it. The model server accepts only that key."""
    script = {"style": "gemini", "keys": [GOOGLE_KEY], "turns": [text_turn("Hello through GOOGLE_API_KEY.")]}

    def gemini_server(self, key):
        self.srv.stop()
        self.srv = self.start_server(env={"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None, "GOOGLE_API_KEY": key,
                                          "GEMINI_BASE_URL": self.model.url + "/v1beta", "OPENWORKER_MODEL": None})

    def turn(self):
        sid = self.api("/v1/sessions", method="POST", body={"model": "gemini:gemini-2.5-flash"}).json["session_id"]
        return self.wsc(f"/ws/session/{sid}", send=[{"on": {"type": "ready"},
                                                     "frame": {"type": "user_message", "text": "hello"}}],
                        until={"type": "turn_done"})["frames"]

    def test_google_api_key_counts_everywhere(self):
        self.gemini_server(GOOGLE_KEY)
        by = {p["name"]: p for p in self.api("/v1/providers").json}
        self.assertTrue(by["gemini"]["configured"], by["gemini"])
        self.assertTrue(by["gemini"]["has_key"])
        self.assertEqual(by["gemini"]["key_source"], "env")
        self.assertEqual(by["gemini"]["key_env_set"], "GOOGLE_API_KEY")
        self.assertEqual(by["gemini"]["key_vars"], ["GEMINI_API_KEY", "GOOGLE_API_KEY"])
        # The control: a provider with no key in the environment is not configured.
        self.assertFalse(by["anthropic"]["configured"])
        self.assertNotIn("key_env_set", by["anthropic"])
        listed = curl(self.srv.base + "/v1/models", headers={"Authorization": f"Bearer {self.srv.token}"}).json
        ids = [m["id"] for m in listed["data"]]
        self.assertIn(by["gemini"]["recommended_model"], ids)
        self.assertNotIn(by["anthropic"]["recommended_model"], ids)

        frames = self.turn()
        self.assertFalse([f for f in frames if f.get("type") == "error"], frames)
        answers = [f["data"].get("text") for f in frames if f.get("type") == "assistant_message"]
        self.assertEqual(answers, ["Hello through GOOGLE_API_KEY."])
        reqs = self.model.requests()
        self.assertEqual(len(reqs), 1, reqs)
        self.assertIn(GOOGLE_KEY, json.dumps([reqs[0]["headers"], reqs[0].get("query")]))

    def test_without_it_gemini_is_unconfigured(self):
        self.gemini_server(None)
        gemini = {p["name"]: p for p in self.api("/v1/providers").json}["gemini"]
        self.assertFalse(gemini["configured"])
        self.assertNotIn("key_env_set", gemini)
        frames = self.turn()
        errors = [f["data"]["error"] for f in frames if f.get("type") == "error"]
        self.assertEqual(len(errors), 1, frames)
        self.assertIn("GEMINI_API_KEY", errors[0])
        self.assertEqual(self.model.requests(), [], "nothing reached the model")


if __name__ == "__main__":
    unittest.main()
