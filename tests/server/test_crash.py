"""kill -9 of openworker-server in the middle of turns, 20 times at random
points. After each restart:
  - the database passes PRAGMA integrity_check;
  - every event a client was sent (its seq and type) is in the log;
  - every message the server acknowledged (turn_start for it) is stored;
  - every approval it acknowledged (approval_resolved) is stored, answered;
  - every inbox item a client saw (permission_required) is there;
  - a turn cut short is marked interrupted (retryable) and closed with
    turn_done, and retrying it runs it to the end.

Run: python3 tests/server/test_crash.py -v"""
import json
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile
import time
import unittest

from srvtest import NODE, HERE, OPENAI_KEY, ModelServer, Server, curl, node, npm_ready

ROUNDS = int(os.environ.get("OW_CRASH_ROUNDS", "20"))

# Every model reply asks to write a file and streams some text; with
# max_iterations = 2 each turn asks twice, then stops.
TURN = {"text": "Working on it, step by step, writing the file now.", "text_chunks": 10, "chunk_delay_ms": 35,
        "tool_calls": [{"id": "call_{n}", "name": "write_file",
                        "arguments": {"path": "out-{n}.txt", "content": "round {n}"}}],
        "repeat": 500}


class CrashSafety(unittest.TestCase):
    def setUp(self):
        if not npm_ready():
            raise unittest.SkipTest("npm clients missing: run `npm ci --prefix tests/server`")
        self.tmp = tempfile.mkdtemp(prefix="ow-crash-")
        self.home = os.path.join(self.tmp, "home")
        self.ws = os.path.join(self.tmp, "ws")
        os.makedirs(os.path.join(self.home, "config"))
        os.makedirs(self.ws)
        with open(os.path.join(self.home, "config", "config.toml"), "w") as f:
            f.write("max_iterations = 2\n")
        self.model = ModelServer({"turns": [TURN]}, self.tmp)
        self.env = {"OPENAI_BASE_URL": self.model.url + "/v1", "OPENAI_API_KEY": OPENAI_KEY,
                    "OPENWORKER_MODEL": "openai:gpt-4o"}
        self.db = os.path.join(self.home, "data", "openworker.db")
        self.rng = random.Random(int(os.environ.get("OW_CRASH_SEED", "20261129")))

    def tearDown(self):
        self.model.stop()
        self.model.proc.stdout.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def start_client(self, srv, sid, text):
        plan = {"url": f"{srv.ws_base}/ws/session/{sid}?workspace={self.ws}",
                "protocols": ["openworker", srv.token], "headers": {}, "timeout_ms": 60000,
                "send": [{"on": {"type": "ready"}, "frame": {"type": "user_message", "text": text}},
                         {"on": {"type": "permission_required"}, "frame": {"type": "approval", "decision": "once"},
                          "every": True}],
                "until": {"type": "turn_done"}}
        p = subprocess.Popen([NODE, os.path.join(HERE, "ws-client.mjs")], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=HERE)
        p.stdin.write(json.dumps(plan))
        p.stdin.close()
        return p

    def integrity(self):
        con = sqlite3.connect(self.db)
        try:
            return con.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            con.close()

    def last_event_soon(self, sid, timeout=10):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            con = sqlite3.connect(self.db)
            try:
                row = con.execute("SELECT type FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
                                  (sid,)).fetchone()
            finally:
                con.close()
            last = row[0] if row else None
            if last == "turn_done":
                break
            time.sleep(0.05)
        return last

    def replay(self, srv, sid, until_done=True):
        plan = {"url": f"{srv.ws_base}/ws/session/{sid}?since=0", "protocols": ["openworker", srv.token],
                "headers": {}, "timeout_ms": 15000, "until_last_seq": True}
        out = node("ws-client.mjs", input_text=json.dumps(plan), timeout=30)
        self.assertFalse(out["timed_out"], out)
        return [f for f in out["frames"] if "seq" in f]

    def check_acknowledged(self, srv, rounds):
        inbox = {i["tool_call_id"]: i for i in
                 curl(srv.base + "/v1/inbox?state=all", token=srv.token).json["items"]}
        for r in rounds:
            sid = r["sid"]
            log = self.replay(srv, sid)
            by_seq = {f["seq"]: f["type"] for f in log}
            seqs = sorted(by_seq)
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)), f"{sid}: gaps in the log")
            for f in r["seen"]:
                self.assertEqual(by_seq.get(f["seq"]), f["type"], f"{sid}: event {f['seq']} lost or changed")
            msgs = curl(srv.base + f"/v1/sessions/{sid}/messages", token=srv.token).json["messages"]
            if r["acked_message"]:
                self.assertIn(r["text"], [m.get("content") for m in msgs if m["role"] == "user"], sid)
            for call_id in r["asked"]:
                self.assertIn(call_id, inbox, f"{sid}: inbox item for {call_id} lost")
            for call_id in r["approved"]:
                self.assertEqual(inbox[call_id]["state"], "resolved", f"{sid}: approval of {call_id} lost")
                self.assertIn("once", inbox[call_id]["resolution"])
            # Every turn is closed: after the last turn_start there is a
            # turn_done, and an interrupted turn says so.
            types = [by_seq[s] for s in seqs]
            if "turn_start" in types:
                last_start = len(types) - 1 - types[::-1].index("turn_start")
                tail = types[last_start:]
                self.assertEqual(tail[-1], "turn_done", f"{sid}: {tail}")
                if "turn_end" not in tail and "error" not in tail:
                    self.assertIn("interrupted", tail, f"{sid}: {tail}")
                    r["interrupted"] = True

    def test_kill_nine_mid_turn(self):
        rounds = []
        kill_points = []
        retried = 0
        for i in range(ROUNDS):
            srv = Server(self.home, self.ws, env_extra=self.env)
            try:
                # The turn the kill cut short is closed at start, before
                # anyone opens its session.
                if rounds and any(f["type"] == "turn_start" for f in rounds[-1]["seen"]):
                    self.assertEqual(self.last_event_soon(rounds[-1]["sid"]), "turn_done")
                # So is a retried turn a later kill cut short, in an older
                # session: the server closes it at start too, but the check
                # below may come first on a slow (sanitizer) build.
                for r in rounds[:-1]:
                    if r.get("retried"):
                        self.assertEqual(self.last_event_soon(r["sid"]), "turn_done", r["sid"])
                self.check_acknowledged(srv, rounds)
                # Retry an interrupted turn now and then: it must run to its end.
                interrupted = [r for r in rounds if r.get("interrupted") and not r.get("retried")]
                if interrupted and i % 3 == 0:
                    r = interrupted[-1]
                    plan = {"url": f"{srv.ws_base}/ws/session/{r['sid']}", "protocols": ["openworker", srv.token],
                            "headers": {}, "timeout_ms": 30000,
                            "send": [{"on": {"type": "ready"}, "frame": {"type": "retry"}},
                                     {"on": {"type": "permission_required"},
                                      "frame": {"type": "approval", "decision": "once"}, "every": True}],
                            "until": {"type": "turn_done"}}
                    out = node("ws-client.mjs", input_text=json.dumps(plan), timeout=60)
                    types = [f["type"] for f in out["frames"]]
                    self.assertIn("turn_start", types, types)
                    self.assertEqual(types[-1], "turn_done", types)
                    self.assertIn("turn_end", types, types)
                    self.assertNotIn("input_rejected", types, out["frames"])
                    r["retried"] = True
                    r["seen"] = []   # its log grew; the earlier frames were checked above
                    retried += 1
                sid = f"crash-{i}"
                text = f"round {i}: write the file {os.urandom(4).hex()}"
                client = self.start_client(srv, sid, text)
                delay = self.rng.uniform(0.02, 1.8)
                time.sleep(delay)
                srv.kill9()
                out = client.stdout.read()
                client.wait(timeout=60)
                client.stdout.close()
                client.stderr.close()
                result = json.loads(out)
                seen = [f for f in result["frames"] if "seq" in f]
                rounds.append({
                    "sid": sid, "text": text, "seen": seen,
                    "acked_message": any(f["type"] == "turn_start" for f in seen),
                    "asked": [f["data"]["call_id"] for f in seen if f["type"] == "permission_required"],
                    "approved": [],
                })
                # approval_resolved names the call it closed.
                for f in seen:
                    if f["type"] == "approval_resolved":
                        call = f["data"].get("call_id")
                        if call is not None and f["data"].get("decision", "once") != "deny":
                            rounds[-1]["approved"].append(call)
                kill_points.append((round(delay, 2), seen[-1]["type"] if seen else "nothing yet"))
                self.assertEqual(self.integrity(), "ok", f"after kill {i}")
            finally:
                if srv.proc.poll() is None:
                    srv.kill9()
        # A last restart checks the last kill, then shuts down cleanly.
        srv = Server(self.home, self.ws, env_extra=self.env)
        try:
            self.check_acknowledged(srv, rounds)
        finally:
            self.assertEqual(srv.stop(), 0, srv.stderr()[-3000:])
        self.assertEqual(self.integrity(), "ok")
        print("\nkill points (seconds after connecting, last event the client saw):")
        for p in kill_points:
            print("  ", p)
        print(f"interrupted turns: {sum(1 for r in rounds if r.get('interrupted'))}, retried: {retried}")
        # The random points must have covered the interesting places.
        where = {p[1] for p in kill_points}
        self.assertTrue(where & {"permission_required", "assistant_delta", "tool_started", "approval_resolved",
                                 "tool_finished"}, where)


if __name__ == "__main__":
    unittest.main()
