"""Asks survive a stop, a crash and a restart.

An unattended turn's ask (an ask_user question, a write_file that needs
approval in "ask" mode with nobody attached) is an inbox item on disk
before any client hears of it. Stopping openworker-server (SIGTERM) or
killing it (kill -9) leaves the item pending; after a restart on the same
home, answering it through REST or the WebSocket resumes the turn: the
scripted model is called again with the answer as the tool result, an
approved call runs exactly once, a denied one is reported as denied.

Run one class: python3 tests/server/test_asks.py -v ParkedApproval"""
import json
import os
import sqlite3
import subprocess
import threading
import time
import unittest

from srvtest import OPENWORKER_PATH
from test_clients import ClientTestCase, text_turn, write_turn

QUESTION = {"tool_calls": [{"id": "q1", "name": "ask_user",
                            "arguments": {"question": "Which colour should the report use?",
                                          "options": ["blue", "green"]}}]}


class AsksTestCase(ClientTestCase):
    sid = "parked"

    def setUp(self):
        super().setUp()
        self.workspace = os.path.realpath(self.ws)
        r = self.api("/v1/sessions", method="POST", body={"session_id": self.sid, "workspace": self.workspace})
        self.assertEqual(r.status, 200, r.raw)

    def db(self):
        return sqlite3.connect(os.path.join(self.home, "data", "openworker.db"))

    def events(self, sid=None):
        with self.db() as con:
            return [(t, json.loads(d)) for t, d in con.execute(
                "SELECT type, data FROM events WHERE session_id = ? ORDER BY seq", (sid or self.sid,))]

    def items(self, sid=None, state="all"):
        return self.api(f"/v1/inbox?session_id={sid or self.sid}&state={state}").json["items"]

    def wait_for(self, what, probe, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = probe()
            if value:
                return value
            time.sleep(0.1)
        self.fail(f"timed out waiting for {what}")

    def park(self, until):
        """Starts a turn from a client that leaves once the ask is shown."""
        r = self.wsc(f"/ws/session/{self.sid}", send=[
            {"on": {"type": "ready"}, "frame": {"type": "user_message", "text": "go on without me"}}],
            until={"type": until}, timeout_ms=30000)
        self.assertFalse(r["timed_out"], [f["type"] for f in r["frames"]])
        pending = self.items(state="pending")
        self.assertEqual(len(pending), 1, pending)
        return pending[0]

    def restart(self, how):
        if how == "sigterm":
            self.assertEqual(self.srv.stop(), 0, self.srv.stderr()[-3000:])
        else:
            self.srv.kill9()
        self.srv = self.start_server()

    def chat_requests(self):
        return [r["body"] for r in self.model.requests() if "chat/completions" in r.get("path", "")]

    def tool_result(self, call_id, body):
        return next((m for m in body["messages"] if m.get("role") == "tool" and m.get("tool_call_id") == call_id),
                    None)

    def finished_with(self, text):
        msgs = self.api(f"/v1/sessions/{self.sid}/messages").json["messages"]
        return msgs and msgs[-1]["role"] == "assistant" and msgs[-1].get("content") == text

    def started(self, call_id):
        return [d for t, d in self.events() if t == "tool_started" and d.get("call_id") == call_id]


class ParkedQuestion(AsksTestCase):
    script = {"turns": [QUESTION, text_turn("Blue it is.")]}

    def survives(self, how):
        item = self.park("question_requested")
        self.assertEqual(item["kind"], "question")
        self.restart(how)
        # Still waiting, not "interrupted"; the turn is marked parked.
        [again] = self.items()
        self.assertEqual((again["id"], again["state"], again["resolution"]), (item["id"], "pending", None))
        self.assertIn("turn_parked", [t for t, _ in self.events()])
        self.assertEqual(len(self.chat_requests()), 1)

        r = self.api(f"/v1/inbox/{item['id']}/resolve", method="POST", body={"resolution": "blue, please"})
        self.assertEqual(r.status, 200, r.raw)
        self.wait_for("the turn to finish", lambda: self.finished_with("Blue it is."))
        requests = self.chat_requests()
        self.assertEqual(len(requests), 2)
        answer = self.tool_result("q1", requests[1])
        self.assertIsNotNone(answer, requests[1]["messages"])
        self.assertIn("blue, please", answer["content"])
        # The first answer stands.
        self.assertError(self.api(f"/v1/inbox/{item['id']}/resolve", method="POST", body={"resolution": "green"}),
                         409, "already answered")
        self.assertEqual(self.items()[0]["resolved_by"], "inbox")

    def test_after_sigterm(self):
        self.survives("sigterm")

    def test_after_kill9(self):
        self.survives("kill9")

    def test_the_persons_stop_withdraws_it(self):
        """The counterpart of the above: stopping the turn oneself does
        withdraw the ask, and a restart then takes nothing up."""
        item = self.park("question_requested")
        r = self.wsc(f"/ws/session/{self.sid}", send=[{"on": {"type": "ready"}, "frame": {"type": "interrupt"}}],
                     until={"type": "turn_done"}, timeout_ms=30000)
        self.assertFalse(r["timed_out"], [f["type"] for f in r["frames"]])
        [it] = self.items()
        self.assertEqual((it["id"], it["state"], it["resolved_by"]), (item["id"], "resolved", "interrupted"))
        self.restart("sigterm")
        self.assertError(self.api(f"/v1/inbox/{item['id']}/resolve", method="POST", body={"resolution": "blue"}),
                         409, "already answered")
        msgs = self.api(f"/v1/sessions/{self.sid}/messages").json["messages"]
        [result] = [m for m in msgs if m["role"] == "tool" and m.get("tool_call_id") == "q1"]
        self.assertIn("interrupted", result["content"])
        self.assertEqual(len(self.chat_requests()), 1)


class ParkedApproval(AsksTestCase):
    script = {"turns": [write_turn("parked.txt", "approved once", cid="w1"), text_turn("Written.")]}

    def approved_runs_once(self, how):
        item = self.park("permission_required")
        self.assertEqual((item["kind"], item["data"]["tool"]), ("approval", "write_file"))
        self.restart(how)
        self.assertEqual(self.items()[0]["state"], "pending")
        self.assertFalse(os.path.exists(os.path.join(self.workspace, "parked.txt")))

        r = self.api(f"/v1/inbox/{item['id']}/resolve", method="POST", body={"resolution": "once"})
        self.assertEqual(r.status, 200, r.raw)
        # Answering twice is refused and runs nothing more.
        self.assertError(self.api(f"/v1/inbox/{item['id']}/resolve", method="POST", body={"resolution": "once"}),
                         409, "already answered")
        self.wait_for("the turn to finish", lambda: self.finished_with("Written."))
        with open(os.path.join(self.workspace, "parked.txt")) as f:
            self.assertEqual(f.read(), "approved once")
        self.assertEqual(len(self.started("w1")), 1)
        requests = self.chat_requests()
        self.assertEqual(len(requests), 2)
        self.assertIsNotNone(self.tool_result("w1", requests[1]))
        with self.db() as con:
            self.assertEqual(con.execute("SELECT execution FROM inbox_items WHERE id = ?", (item["id"],)).fetchone(),
                             ("finished",))
        # Another restart finds nothing to do again.
        self.restart("sigterm")
        self.assertEqual(len(self.started("w1")), 1)
        self.assertEqual(len(self.chat_requests()), 2)

    def test_after_sigterm(self):
        self.approved_runs_once("sigterm")

    def test_after_kill9(self):
        self.approved_runs_once("kill9")

    def test_denied_over_websocket(self):
        self.park("permission_required")
        self.restart("sigterm")
        # The resumed turn shows the card again; the browser denies it.
        r = self.wsc(f"/ws/session/{self.sid}?since=0", send=[
            {"on": {"type": "permission_required"}, "frame": {"type": "approval", "decision": "deny",
                                                              "reason": "not today"}}],
            until={"type": "approval_resolved"}, timeout_ms=30000)
        self.assertFalse(r["timed_out"], [f["type"] for f in r["frames"]])
        self.wait_for("the turn to finish", lambda: self.finished_with("Written."))
        self.assertFalse(os.path.exists(os.path.join(self.workspace, "parked.txt")))
        self.assertEqual(self.started("w1"), [])
        self.assertEqual(self.items()[0]["resolved_by"], "browser")
        denial = self.tool_result("w1", self.chat_requests()[1])
        self.assertIn("not today", denial["content"])


    def test_settled_without_its_answer_closes_the_card(self):
        """Made read-only while the server was down, the resumed turn
        refuses the write itself; its card then waits for no one."""
        item = self.park("permission_required")
        self.srv.stop()
        with self.db() as con:
            con.execute("UPDATE sessions SET mode = 'plan' WHERE session_id = ?", (self.sid,))
        self.srv = self.start_server()
        self.wait_for("the turn to finish", lambda: self.finished_with("Written."))
        [it] = self.items()
        self.assertEqual((it["id"], it["state"], it["resolved_by"]), (item["id"], "resolved", "openworker"))
        self.assertFalse(os.path.exists(os.path.join(self.workspace, "parked.txt")))
        self.assertEqual(self.started("w1"), [])


class StartedOnce(AsksTestCase):
    """What the execution mark decides after a crash: an approval answered
    while the server was down runs at the restart; one whose call had
    started (the server died while it ran) is never run again."""
    script = {"turns": [write_turn("parked.txt", "approved once", cid="w1"), text_turn("Written.")]}

    def answer_while_down(self, execution):
        item = self.park("permission_required")
        self.srv.kill9()
        with self.db() as con:
            con.execute("UPDATE inbox_items SET state = 'resolved', resolution = '{\"decision\":\"once\"}',"
                        " resolved_by = 'cli', resolved_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
                        " execution = ? WHERE id = ?", (execution, item["id"]))
        self.srv = self.start_server()

    def test_answered_then_crash_runs_at_restart(self):
        self.answer_while_down(None)
        self.wait_for("the turn to finish", lambda: self.finished_with("Written."))
        with open(os.path.join(self.workspace, "parked.txt")) as f:
            self.assertEqual(f.read(), "approved once")
        self.assertEqual(len(self.started("w1")), 1)

    def test_started_then_crash_is_not_run_again(self):
        self.answer_while_down("started")
        msgs = self.wait_for("the call to be answered", lambda: [
            m for m in self.api(f"/v1/sessions/{self.sid}/messages").json["messages"]
            if m["role"] == "tool" and m.get("tool_call_id") == "w1"])
        self.assertIn("may or may not have run", msgs[0]["content"])
        self.assertFalse(os.path.exists(os.path.join(self.workspace, "parked.txt")))
        self.assertEqual(self.started("w1"), [])
        self.assertEqual(len(self.chat_requests()), 1)


class SeenMeansStored(AsksTestCase):
    """A client that sees permission_required finds the item at once: over
    GET /v1/inbox, and in openworker.db itself, read by another process
    the moment the frame arrives (the WebSocket client hands each frame
    through a FIFO to a reader holding the database open)."""
    ROUNDS = 20
    script = {"turns": [{"tool_calls": [{"id": "call_{n}", "name": "write_file",
                                         "arguments": {"path": "race-{n}.txt", "content": "{n}"}}],
                         "repeat": ROUNDS}]}

    def read_on_frames(self, fifo, sid, found):
        con = sqlite3.connect(os.path.join(self.home, "data", "openworker.db"), timeout=10)
        with open(fifo) as f:
            for line in f:
                frame = json.loads(line)
                rows = con.execute("SELECT call_id, state FROM inbox_items WHERE session_id = ?", (sid,)).fetchall()
                found.append((frame["type"], rows))
        con.close()

    def test_item_is_there_when_the_card_is(self):
        headers = {"X-OpenWorker-Token": self.srv.token}
        for n in range(self.ROUNDS):
            sid = f"race{n}"
            self.api("/v1/sessions", method="POST", body={"session_id": sid, "workspace": self.workspace})
            url = f"{self.srv.base}/v1/inbox?session_id={sid}&state=pending"
            fifo = os.path.join(self.tmp, f"frames-{n}")
            os.mkfifo(fifo)
            found = []
            reader = threading.Thread(target=self.read_on_frames, args=(fifo, sid, found))
            reader.start()
            r = self.wsc(f"/ws/session/{sid}", send=[
                {"on": {"type": "_fetched"}, "frame": {"type": "user_message", "text": "write it"}}],
                fetch=[{"on": {"type": "ready"}, "url": url, "headers": headers},
                       {"on": {"type": "permission_required"}, "url": url, "headers": headers}],
                notify={"path": fifo, "types": ["ready", "permission_required"]},
                until={"type": "permission_required"}, timeout_ms=30000)
            reader.join(timeout=30)
            self.assertFalse(r["timed_out"], [f["type"] for f in r["frames"]])
            call = f"call_{n + 1}"
            # Control: before the message is sent, the same reads find nothing.
            before, seen = r["fetched"]
            self.assertEqual((before["on"], before["status"], before["body"]["items"]), ("ready", 200, []))
            self.assertEqual(found[0], ("ready", []))
            # At the card, the item is there, on disk.
            self.assertEqual((seen["on"], seen["status"]), ("permission_required", 200))
            self.assertEqual([i["tool_call_id"] for i in seen["body"]["items"]], [call], n)
            self.assertEqual(found[1], ("permission_required", [(call, "pending")]), n)


class CommandLineRun(AsksTestCase):
    """An `openworker run` parked in the same home waits in its own process:
    the server shows and answers its ask but does not take its turn up."""
    script = {"turns": [write_turn("cli.txt", "from the run", cid="c1"), text_turn("Done.")]}

    def test_answered_through_the_server_goes_on_in_the_run(self):
        os.makedirs(os.path.join(self.home, "config"), exist_ok=True)
        with open(os.path.join(self.home, "config", "config.toml"), "a") as f:
            f.write('attendance = "inbox"\n')
        out = os.path.join(self.tmp, "out")
        run = subprocess.Popen([OPENWORKER_PATH, "run", "--out", out, "--model", "openai:gpt-4o", "--prompt", "x"],
                               cwd=self.ws, env=self.srv.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            [item] = self.wait_for("the run's ask", lambda: self.api("/v1/inbox?state=pending").json["items"])
            r = self.api(f"/v1/inbox/{item['id']}/resolve", method="POST", body={"resolution": "once"})
            self.assertEqual(r.status, 200, r.raw)
            _, stderr = run.communicate(timeout=60)
        finally:
            if run.poll() is None:
                run.kill()
                run.communicate()
        self.assertEqual(run.returncode, 0, stderr)
        with open(os.path.join(self.ws, "cli.txt")) as f:
            self.assertEqual(f.read(), "from the run")
        started = [json.loads(l) for l in open(os.path.join(out, "events.jsonl")) if '"tool_started"' in l]
        self.assertEqual(len(started), 1)
        # The run's two model calls, and none by the server.
        self.assertEqual(len(self.chat_requests()), 2)
        self.assertFalse(self.api(f"/v1/sessions/{item['session_id']}").json.get("liveness") == "working")


if __name__ == "__main__":
    unittest.main()
