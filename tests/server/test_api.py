"""The loopback API through curl: the front door (token, Host, Origin),
limits, and every REST route with good and malformed input.

Run one class: python3 tests/server/test_api.py -v FrontDoor"""
import json
import os
import signal
import sqlite3
import stat
import time
import unittest
import uuid

from srvtest import OPENAI_KEY, Server, ServerTestCase, curl

# Every API route but health, with a body that is well-formed where one is
# needed; the token rule must hold for each.
ROUTES = [
    ("GET", "/v1/agents", None),
    ("GET", "/v1/personas", None),
    ("GET", "/v1/inbox", None),
    ("GET", "/v1/inbox/reconcile?session_id=x", None),
    ("POST", "/v1/inbox/abc/resolve", {"resolution": "deny"}),
    ("GET", "/v1/workspaces/recent", None),
    ("POST", "/v1/workspaces/open", {"path": "/tmp"}),
    ("GET", "/v1/workspaces/trusted", None),
    ("POST", "/v1/workspaces/trust", {"path": "/tmp", "trusted": False}),
    ("GET", "/v1/settings/model-config", None),
    ("POST", "/v1/settings/model-config", {"model": "openai:x", "values": {}}),
    ("POST", "/v1/settings/model-config/remove", {"model": "openai:x"}),
    ("GET", "/v1/sessions", None),
    ("POST", "/v1/sessions", {}),
    ("GET", "/v1/sessions/nosuch", None),
    ("PATCH", "/v1/sessions/nosuch", {"pinned": True}),
    ("DELETE", "/v1/sessions/nosuch", None),
    ("GET", "/v1/sessions/nosuch/messages", None),
    ("GET", "/v1/sessions/nosuch/roots", None),
    ("POST", "/v1/sessions/nosuch/roots", {"path": "/tmp"}),
    ("DELETE", "/v1/sessions/nosuch/roots?path=/tmp", None),
    ("GET", "/v1/sessions/nosuch/artifacts", None),
    ("GET", "/v1/sessions/nosuch/artifacts/read?path=a", None),
    ("GET", "/v1/providers", None),
    ("POST", "/v1/providers", {"name": "openai", "fields": {"api_key": "sk-x"}}),
    ("POST", "/v1/providers/verify", {"name": "openai", "fields": {}}),
    ("DELETE", "/v1/providers/openai", None),
    ("POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}),
    ("GET", "/v1/models", None),
    ("GET", "/v1/no-such-route", None),
]


class FrontDoor(ServerTestCase):
    def test_every_route_needs_the_token(self):
        wrong = "0" * 64
        for method, path, body in ROUTES:
            with self.subTest(route=f"{method} {path}"):
                r = curl(self.srv.base + path, method=method, body=body)
                self.assertError(r, 401, "token")
                r = curl(self.srv.base + path, method=method, body=body, token=wrong)
                self.assertError(r, 401, "token")
                r = curl(self.srv.base + path, method=method, body=body, token=self.srv.token[:-1])
                self.assertError(r, 401, "token")
                # With it, the route answers (whatever it answers).
                r = curl(self.srv.base + path, method=method, body=body, token=self.srv.token)
                self.assertNotIn(r.status, (401, 403), f"{method} {path}: {r.raw}")
                self.assertIsNotNone(r.json, f"{method} {path}: {r.raw}")

    def test_bearer_only_on_openai_routes(self):
        bearer = {"Authorization": f"Bearer {self.srv.token}"}
        r = curl(self.srv.base + "/v1/models", headers=bearer)
        self.assertEqual(r.status, 200, r.raw)
        self.assertEqual(r.json["object"], "list")
        r = curl(self.srv.base + "/v1/models", headers={"Authorization": "Bearer " + "1" * 64})
        self.assertError(r, 401)
        r = curl(self.srv.base + "/v1/sessions", headers=bearer)
        self.assertError(r, 401)

    def test_health(self):
        r = curl(self.srv.base + "/v1/health")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.json, {"status": "ok"})
        r = self.api("/v1/health")
        self.assertEqual(r.json["status"], "ok")
        self.assertEqual(r.json["default_workspace"], os.path.realpath(self.ws))
        # A wrong token is no worse than none here.
        r = curl(self.srv.base + "/v1/health", token="f" * 64)
        self.assertEqual(r.json, {"status": "ok"})

    def test_host_must_be_loopback_with_our_port(self):
        port = self.srv.port
        for host in ["evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1",
                     f"localhost.evil.example:{port}", f"10.0.0.1:{port}", f"0.0.0.0:{port}"]:
            with self.subTest(host=host):
                for path in ["/v1/health", "/v1/sessions", "/", "/index.html"]:
                    r = curl(self.srv.base + path, token=self.srv.token, headers={"Host": host})
                    self.assertError(r, 403, "127.0.0.1")
        for host in [f"localhost:{port}", f"127.0.0.1:{port}", f"LOCALHOST:{port}"]:
            r = curl(self.srv.base + "/v1/sessions", token=self.srv.token, headers={"Host": host})
            self.assertEqual(r.status, 200, host)

    def test_foreign_origin_refused_even_with_token(self):
        for origin in ["http://evil.example", "null", "http://localhost.evil.example", "https://127.0.0.1.nip.io",
                       "file://"]:
            with self.subTest(origin=origin):
                r = curl(self.srv.base + "/v1/sessions", token=self.srv.token, headers={"Origin": origin})
                self.assertError(r, 403, "other web sites")
                self.assertIsNone(r.header("access-control-allow-origin"))
                r = curl(self.srv.base + "/v1/health", headers={"Origin": origin})
                self.assertError(r, 403)
                r = curl(self.srv.base + "/v1/sessions", method="OPTIONS", headers={
                    "Origin": origin, "Access-Control-Request-Method": "POST"})
                self.assertEqual(r.status, 403)

    def test_loopback_origin_gets_cors(self):
        origin = "http://localhost:5173"
        r = curl(self.srv.base + "/v1/sessions", token=self.srv.token, headers={"Origin": origin})
        self.assertEqual(r.status, 200)
        self.assertEqual(r.header("access-control-allow-origin"), origin)
        # Preflight needs no token; it grants the token header.
        r = curl(self.srv.base + "/v1/sessions", method="OPTIONS", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "x-openworker-token, content-type"})
        self.assertEqual(r.status, 204)
        self.assertIn("X-OpenWorker-Token", r.header("access-control-allow-headers"))
        self.assertEqual(r.header("access-control-allow-origin"), origin)
        # A preflight is not a way in.
        r = curl(self.srv.base + "/v1/sessions", method="OPTIONS", headers={"Origin": origin})
        self.assertEqual(r.raw, "")

    def test_unknown_route_and_method(self):
        r = self.api("/v1/nothing/here")
        self.assertError(r, 404)
        r = self.api("/v1/sessions", method="PUT", body={})
        self.assertError(r, 405)
        # Static side: no writes.
        r = curl(self.srv.base + "/index.html", method="POST", raw_body="x")
        self.assertEqual(r.status, 405)

    def test_token_never_in_logs(self):
        s = self.start_server(env={"G_MESSAGES_DEBUG": "all"})
        for method, path, body in ROUTES:
            curl(s.base + path, method=method, body=body, token=s.token)
            curl(s.base + path, method=method, body=body, token="1" * 64)
        curl(s.base + "/v1/models", headers={"Authorization": f"Bearer {s.token}"})
        s.stop()
        log = s.stderr()
        self.assertNotIn(s.token, log)
        self.assertNotIn("1" * 64, log)
        self.assertNotIn(OPENAI_KEY, log)


class Limits(ServerTestCase):
    def test_body_too_large_declared(self):
        big = b'{"title":"' + b"x" * (2 * 1024 * 1024) + b'"}'
        r = self.api("/v1/sessions", method="POST", raw_body=big, headers={"Content-Type": "application/json"})
        self.assertError(r, 413, "too large")
        self.assertEqual(self.api("/v1/health").status, 200)

    def test_body_too_large_chunked(self):
        big = b'{"title":"' + b"x" * (3 * 1024 * 1024) + b'"}'
        r = self.api("/v1/sessions", method="POST", raw_body=big,
                     headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        self.assertError(r, 413, "too large")
        self.assertEqual(self.api("/v1/health").status, 200)
        # A small chunked body is fine.
        r = self.api("/v1/sessions", method="POST", raw_body=b'{"title":"chunked"}',
                     headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"})
        self.assertEqual(r.status, 200, r.raw)

    def test_completions_take_bigger_bodies(self):
        body = json.dumps({"model": "nosuchprovider:x", "messages": [
            {"role": "user", "content": "x" * (3 * 1024 * 1024)}]}).encode()
        r = self.api("/v1/chat/completions", method="POST", raw_body=body)
        self.assertNotEqual(r.status, 413, r.raw[:200])
        body = b'{"messages":[{"role":"user","content":"' + b"x" * (17 * 1024 * 1024) + b'"}]}'
        r = self.api("/v1/chat/completions", method="POST", raw_body=body)
        self.assertEqual(r.status, 413)

    def test_unauthenticated_body_is_not_read(self):
        big = b"x" * (40 * 1024 * 1024)
        t0 = time.time()
        r = curl(self.srv.base + "/v1/sessions", method="POST", raw_body=big)
        self.assertError(r, 401)
        self.assertLess(time.time() - t0, 10)
        self.assertEqual(self.api("/v1/health").status, 200)

    def test_malformed_bodies(self):
        cases = [b"{", b"[]", b'"text"', b"null", b"{\"title\": }", b"\xff\xfe{}", b"[" * 200000,
                 b'{"a":' + b"[" * 100 + b"]" * 100 + b"}"]
        for raw in cases:
            with self.subTest(body=raw[:20]):
                r = self.api("/v1/sessions", method="POST", raw_body=raw, headers={"Content-Type": "application/json"})
                self.assertError(r, 400)
        for path in ["/v1/workspaces/open", "/v1/workspaces/trust", "/v1/settings/model-config",
                     "/v1/providers", "/v1/providers/verify", "/v1/inbox/x/resolve"]:
            with self.subTest(path=path):
                r = self.api(path, method="POST", raw_body=b"{not json")
                self.assertError(r, 400)
        r = self.api("/v1/chat/completions", method="POST", raw_body=b"{not json")
        self.assertEqual(r.status, 400)
        self.assertIn("message", r.json["error"])
        self.assertEqual(self.api("/v1/health").status, 200)

    def test_wrong_tokens_are_rate_limited(self):
        # A missing token is not a guess: never limited.
        for _ in range(120):
            self.assertEqual(curl(self.srv.base + "/v1/sessions").status, 401)
        statuses = [curl(self.srv.base + "/v1/sessions", token="2" * 64).status for _ in range(110)]
        self.assertEqual(statuses[0], 401)
        self.assertIn(429, statuses)
        r = curl(self.srv.base + "/v1/sessions", token="2" * 64)
        self.assertError(r, 429)
        # The right token is never slowed down.
        self.assertEqual(self.api("/v1/sessions").status, 200)


class Sessions(ServerTestCase):
    def create(self, **body):
        r = self.api("/v1/sessions", method="POST", body=body)
        self.assertEqual(r.status, 200, r.raw)
        self.assertTrue(r.json["ok"])
        return r.json["session_id"]

    def test_create_list_get(self):
        self.assertEqual(self.api("/v1/sessions").json, {"sessions": []})
        a = self.create(title="Alpha", workspace=self.ws, agent="code")
        b = self.create(session_id="chosen-id.1")
        self.assertEqual(b, "chosen-id.1")
        r = self.api("/v1/sessions")
        ids = [s["session_id"] for s in r.json["sessions"]]
        self.assertEqual(sorted(ids), sorted([a, b]))
        info = self.api(f"/v1/sessions/{a}").json
        for key in ["session_id", "title", "workspace", "agent", "model", "mode", "updated_at", "messages", "pinned",
                    "archived", "origin", "origin_label", "attention", "liveness", "sleeping_until", "subscriptions",
                    "team"]:
            self.assertIn(key, info)
        self.assertEqual(info["title"], "Alpha")
        self.assertEqual(info["workspace"], os.path.realpath(self.ws))
        self.assertEqual(info["agent"], "code")
        self.assertEqual(info["liveness"], "idle")
        self.assertEqual(info["attention"], 0)
        self.assertEqual(info["origin"], "server")
        self.assertEqual(self.api(f"/v1/sessions/{b}").json["title"], "New session")
        self.assertTrue(self.api(f"/v1/sessions/{b}").json["temp_workspace"])
        # Filter by workspace.
        r = self.api("/v1/sessions?workspace=" + os.path.realpath(self.ws))
        self.assertEqual([s["session_id"] for s in r.json["sessions"]], [a])
        self.assertEqual(self.api(f"/v1/sessions/{a}/messages").json, {"messages": []})
        # Titles come back exactly, whatever characters they hold.
        nasty = 'Say "hi" \\ now ✓ \x01 tab\t end </script>'
        c = self.create(title=nasty)
        self.assertEqual(self.api(f"/v1/sessions/{c}").json["title"], nasty)
        listed = {s["session_id"]: s["title"] for s in self.api("/v1/sessions").json["sessions"]}
        self.assertEqual(listed[c], nasty)

    def test_create_refusals(self):
        self.create(session_id="dup")
        self.assertError(self.api("/v1/sessions", method="POST", body={"session_id": "dup"}), 409)
        for bad in ["../x", "__task__1", "a b", "", "x" * 65, ".hidden"]:
            with self.subTest(id=bad):
                self.assertError(self.api("/v1/sessions", method="POST", body={"session_id": bad}), 400)
        self.assertError(self.api("/v1/sessions", method="POST", body={"workspace": "/no/such/folder"}), 400)
        self.assertError(self.api("/v1/sessions", method="POST", body={"mode": "sudo"}), 400)
        self.assertError(self.api("/v1/sessions", method="POST", body={"mode": "dangerously-bypass-approvals"}), 400)
        self.assertError(self.api("/v1/sessions", method="POST", body={"agent": "hacker"}), 400)
        self.assertError(self.api("/v1/sessions", method="POST", body={"title": "t" * 121}), 400)

    def test_rename_pin_archive(self):
        a = self.create(title="first")
        time.sleep(0.01)
        b = self.create(title="second")
        order = lambda: [s["session_id"] for s in self.api("/v1/sessions").json["sessions"]]
        self.assertEqual(order(), [b, a])
        r = self.api(f"/v1/sessions/{a}", method="PATCH", body={"pinned": True})
        self.assertEqual(r.json, {"ok": True, "session_id": a})
        self.assertEqual(order(), [a, b])
        r = self.api(f"/v1/sessions/{a}", method="PATCH", body={"archived": True})
        info = self.api(f"/v1/sessions/{a}").json
        self.assertTrue(info["pinned"] and info["archived"])
        r = self.api(f"/v1/sessions/{b}", method="PATCH", body={"title": "  A   new\n\tname  "})
        self.assertEqual(r.json, {"ok": True, "session_id": b, "title": "A new name"})
        self.assertEqual(self.api(f"/v1/sessions/{b}").json["title"], "A new name")
        r = self.api(f"/v1/sessions/{b}", method="PATCH", body={"title": "é" * 300})
        self.assertEqual(len(r.json["title"]), 120)
        self.assertError(self.api(f"/v1/sessions/{b}", method="PATCH", body={"title": "   "}), 400)
        self.assertError(self.api(f"/v1/sessions/{b}", method="PATCH", body={"pinned": "yes"}), 400)
        self.assertError(self.api(f"/v1/sessions/{b}", method="PATCH", body={}), 400)
        self.assertError(self.api("/v1/sessions/__internal", method="PATCH", body={"pinned": True}), 404)

    def test_delete(self):
        a = self.create()
        scratch = self.api(f"/v1/sessions/{a}/roots").json["roots"][0]["path"]
        self.assertTrue(os.path.isdir(scratch))
        # What the agent left there goes with it; what a link in it points at stays.
        os.makedirs(os.path.join(scratch, "out", "deep"))
        with open(os.path.join(scratch, "out", "deep", "report.md"), "w") as f:
            f.write("done")
        os.chmod(os.path.join(scratch, "out", "deep"), 0o500)
        keep = os.path.join(self.ws, "keep.txt")
        with open(keep, "w") as f:
            f.write("keep")
        os.symlink(self.ws, os.path.join(scratch, "link-to-ws"))
        r = self.api(f"/v1/sessions/{a}", method="DELETE")
        self.assertEqual(r.json, {"ok": True, "session_id": a})
        self.assertError(self.api(f"/v1/sessions/{a}"), 404)
        self.assertError(self.api(f"/v1/sessions/{a}", method="DELETE"), 404)
        self.assertFalse(os.path.exists(scratch))
        self.assertTrue(os.path.isfile(keep))
        # A real folder is never deleted with its session.
        b = self.create(workspace=self.ws)
        self.api(f"/v1/sessions/{b}", method="DELETE")
        self.assertTrue(os.path.isdir(self.ws))

    def test_unknown_session_everywhere(self):
        for method, path in [("GET", "/v1/sessions/nope"), ("GET", "/v1/sessions/nope/messages"),
                             ("GET", "/v1/sessions/nope/roots"), ("GET", "/v1/sessions/nope/artifacts"),
                             ("GET", "/v1/sessions/nope/artifacts/read?path=x"), ("DELETE", "/v1/sessions/nope"),
                             ("PATCH", "/v1/sessions/nope")]:
            with self.subTest(path=path):
                self.assertError(self.api(path, method=method, body={"pinned": True} if method == "PATCH" else None),
                                 404)

    def test_roots(self):
        a = self.create(workspace=self.ws)
        extra = os.path.join(self.tmp, "extra")
        os.makedirs(extra)
        roots = self.api(f"/v1/sessions/{a}/roots").json["roots"]
        self.assertEqual(len(roots), 1)
        self.assertEqual(roots[0], {"path": os.path.realpath(self.ws), "writable": True, "label": "workspace",
                                    "primary": True, "exists": True})
        r = self.api(f"/v1/sessions/{a}/roots", method="POST", body={"path": extra, "writable": False})
        self.assertTrue(r.json["ok"])
        self.assertEqual(r.json["roots"][1]["path"], os.path.realpath(extra))
        self.assertEqual(r.json["roots"][1]["label"], "extra")
        self.assertFalse(r.json["roots"][1]["writable"])
        self.assertError(self.api(f"/v1/sessions/{a}/roots", method="POST", body={"path": "/no/such"}), 400,
                         "not a directory")
        self.assertError(self.api(f"/v1/sessions/{a}/roots", method="POST", body={"path": "relative"}), 400)
        # Removing: not the primary; an added one goes.
        self.assertError(self.api(f"/v1/sessions/{a}/roots?path={self.ws}", method="DELETE"), 400)
        r = self.api(f"/v1/sessions/{a}/roots?path={extra}", method="DELETE")
        self.assertEqual(len(r.json["roots"]), 1)
        self.assertError(self.api(f"/v1/sessions/{a}/roots?path={extra}", method="DELETE"), 404)
        # It stayed removed on disk.
        self.srv.stop()
        self.srv = self.start_server()
        self.assertEqual(len(self.api(f"/v1/sessions/{a}/roots").json["roots"]), 1)

    def test_internal_sessions_hidden(self):
        db = os.path.join(self.home, "data", "openworker.db")
        self.create()
        con = sqlite3.connect(db)
        con.execute("INSERT INTO sessions (session_id, title) VALUES ('__task__1', 'internal')")
        con.commit()
        con.close()
        ids = [s["session_id"] for s in self.api("/v1/sessions").json["sessions"]]
        self.assertNotIn("__task__1", ids)
        self.assertError(self.api("/v1/sessions/__task__1"), 404)
        self.assertError(self.api("/v1/sessions/__task__1", method="DELETE"), 404)


class Artifacts(ServerTestCase):
    def setUp(self):
        super().setUp()
        r = self.api("/v1/sessions", method="POST", body={})
        self.sid = r.json["session_id"]
        self.scratch = self.api(f"/v1/sessions/{self.sid}/roots").json["roots"][0]["path"]
        self.secret_dir = os.path.join(self.tmp, "secret")
        os.makedirs(self.secret_dir)
        with open(os.path.join(self.secret_dir, "key.txt"), "w") as f:
            f.write("SECRET-VALUE-42")
        with open(os.path.join(self.scratch, "report.md"), "w") as f:
            f.write("# Report\nAll good.")
        os.makedirs(os.path.join(self.scratch, "out"))
        with open(os.path.join(self.scratch, "out", "table.csv"), "w") as f:
            f.write("a,b\n")
        with open(os.path.join(self.scratch, "bin.txt"), "wb") as f:
            f.write(b"\x00\x01\x02")
        os.symlink(os.path.join(self.secret_dir, "key.txt"), os.path.join(self.scratch, "link.md"))
        os.symlink(self.secret_dir, os.path.join(self.scratch, "linkdir"))

    def read(self, path):
        return curl(self.srv.base + f"/v1/sessions/{self.sid}/artifacts/read", token=self.srv.token,
                    extra=["-G", "--data-urlencode", f"path={path}"])

    def test_list(self):
        arts = self.api(f"/v1/sessions/{self.sid}/artifacts").json["artifacts"]
        paths = {a["path"] for a in arts}
        self.assertEqual(paths, {"report.md", "out/table.csv", "bin.txt"})
        a = next(a for a in arts if a["path"] == "report.md")
        self.assertEqual(a["kind"], "markdown")
        self.assertEqual(a["abs_path"], os.path.join(self.scratch, "report.md"))
        self.assertEqual(a["size"], len("# Report\nAll good."))

    def test_read_and_escapes(self):
        r = self.read("report.md")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.json["content"], "# Report\nAll good.")
        r = self.read(os.path.join(self.scratch, "out", "table.csv"))
        self.assertEqual(r.json["kind"], "csv")
        r = self.read("out")
        self.assertEqual(r.json["kind"], "folder")
        for path in ["link.md", "linkdir/key.txt", "../../secret/key.txt", os.path.join(self.secret_dir, "key.txt"),
                     "/etc/passwd", "out/../../" * 5 + "etc/passwd"]:
            with self.subTest(path=path):
                r = self.read(path)
                self.assertError(r, 403, "path escapes workspace")
                self.assertNotIn("SECRET-VALUE-42", r.raw)
        self.assertError(self.read("bin.txt"), 422, "binary")
        self.assertError(self.read("gone.md"), 404)
        self.assertError(self.api(f"/v1/sessions/{self.sid}/artifacts/read"), 400)


class Inbox(ServerTestCase):
    def park(self, sid, kind="approval", call_id=None, data=None):
        """Parks an item the way the engine does (a row in openworker.db)."""
        item_id = uuid.uuid4().hex
        con = sqlite3.connect(os.path.join(self.home, "data", "openworker.db"))
        con.execute("INSERT INTO inbox_items (id, session_id, call_id, kind, title, body, data) VALUES (?,?,?,?,?,?,?)",
                    (item_id, sid, call_id or uuid.uuid4().hex, kind, "Run `run_shell`?", "command: ls",
                     json.dumps(data or {"tool": "run_shell", "arguments": {"command": "ls"}})))
        con.commit()
        con.close()
        return item_id

    def test_list_resolve_first_answer_wins(self):
        sid = self.api("/v1/sessions", method="POST", body={"title": "Inbox test"}).json["session_id"]
        self.assertEqual(self.api("/v1/inbox").json, {"items": []})
        item = self.park(sid)
        items = self.api("/v1/inbox?state=pending").json["items"]
        self.assertEqual(len(items), 1)
        it = items[0]
        self.assertEqual(it["id"], item)
        self.assertEqual(it["kind"], "approval")
        self.assertEqual(it["state"], "pending")
        self.assertEqual(it["session_title"], "Inbox test")
        self.assertTrue(it["session_exists"])
        self.assertEqual(self.api(f"/v1/sessions/{sid}").json["attention"], 1)
        self.assertEqual(len(self.api(f"/v1/inbox?session_id={sid}").json["items"]), 1)
        self.assertEqual(self.api("/v1/inbox?session_id=other").json["items"], [])

        r = self.api(f"/v1/inbox/{item}/resolve", method="POST", body={"resolution": "allow"})
        self.assertEqual(r.json, {"ok": True, "id": item})
        r = self.api(f"/v1/inbox/{item}/resolve", method="POST", body={"resolution": "deny"})
        self.assertError(r, 409, "already answered")
        done = self.api("/v1/inbox?state=resolved").json["items"]
        self.assertEqual(done[0]["resolved_by"], "inbox")
        self.assertIn("allow", done[0]["resolution"])
        self.assertEqual(self.api(f"/v1/sessions/{sid}").json["attention"], 0)
        rec = self.api(f"/v1/inbox/reconcile?session_id={sid}").json
        self.assertEqual(rec["pending"], [])
        self.assertEqual([i["id"] for i in rec["recap"]], [item])

    def test_refusals(self):
        self.assertError(self.api("/v1/inbox/nope/resolve", method="POST", body={}), 404)
        self.assertError(self.api("/v1/inbox?state=weird"), 400)
        self.assertError(self.api("/v1/inbox/reconcile"), 400)
        sid = self.api("/v1/sessions", method="POST", body={}).json["session_id"]
        item = self.park(sid)
        self.assertError(self.api(f"/v1/inbox/{item}/resolve", method="POST", body={"resolution": "sudo"}), 400)
        # Still pending after a bad answer.
        self.assertEqual(self.api("/v1/inbox?state=pending").json["items"][0]["id"], item)

    def test_delete_resolves_pending(self):
        sid = self.api("/v1/sessions", method="POST", body={}).json["session_id"]
        item = self.park(sid)
        self.api(f"/v1/sessions/{sid}", method="DELETE")
        items = self.api("/v1/inbox?state=all").json["items"]
        self.assertEqual(items[0]["id"], item)
        self.assertEqual(items[0]["state"], "resolved")
        self.assertFalse(items[0]["session_exists"])


class Mcp(ServerTestCase):
    """The machine's MCP servers start with the server, in the background,
    and GET /v1/mcp shows what every session is offered."""

    def restart_with(self, servers):
        os.makedirs(os.path.join(self.home, "config"), exist_ok=True)
        with open(os.path.join(self.home, "config", "mcp.json"), "w") as f:
            json.dump({"mcpServers": servers}, f)
        self.assertEqual(self.srv.stop(), 0)
        self.srv = self.start_server()

    def test_servers_and_their_tools(self):
        everything = os.environ.get("OW_MCP_EVERYTHING", "")
        self.assertTrue(os.path.isfile(everything), f"server-everything missing at {everything!r}")
        self.restart_with({"everything": {"command": os.environ.get("OW_MCP_NODE", "node"), "args": [everything, "stdio"]},
                           "broken": {"command": "/nonexistent/mcp"},
                           "unusable": {"url": "ftp://example.org"},
                           "off": {"command": "true", "enabled": False}})
        deadline = time.time() + 60
        while time.time() < deadline:
            servers = {s["name"]: s for s in self.api("/v1/mcp").json["servers"]}
            if servers["everything"]["status"] == "connected" and servers["broken"]["status"] == "error":
                break
            time.sleep(0.1)
        self.assertEqual(servers["everything"]["status"], "connected", servers)
        self.assertGreater(servers["everything"]["tool_count"], 5)
        self.assertEqual(servers["broken"]["status"], "error")
        self.assertTrue(servers["broken"]["last_error"])
        self.assertEqual(servers["unusable"]["status"], "error")
        self.assertIn("http://", servers["unusable"]["last_error"])
        self.assertEqual(servers["off"]["status"], "disabled")
        tools = {t["name"]: t for t in self.api("/v1/mcp/everything/tools").json["tools"]}
        self.assertEqual(tools["mcp__everything__echo"]["server_name"], "echo")
        self.assertEqual({t["risk"] for t in tools.values()}, {"external"})
        self.assertError(self.api("/v1/mcp/nosuch/tools"), 404, "no running MCP server")
        # The route needs the token like every other.
        self.assertEqual(self.api("/v1/mcp", token=False).status, 401)

    def test_sign_in_connects_live(self):
        """An OAuth-protected HTTP server waits for a sign-in; the sign-in
        begun here and completed at /v1/oauth/callback connects it for
        every session without a restart."""
        import subprocess
        double = subprocess.Popen(["python3", os.environ["OW_MCP_OAUTH_DOUBLE"]], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        try:
            base = f"http://127.0.0.1:{double.stdout.readline().strip()}"
            self.restart_with({"dcr": {"url": base + "/mcp/dcr"}})
            deadline = time.time() + 30
            while time.time() < deadline:
                server = self.api("/v1/mcp").json["servers"][0]
                if server["needs_sign_in"]:
                    break
                time.sleep(0.1)
            self.assertEqual(server["status"], "needs_auth", server)
            self.assertTrue(server["needs_sign_in"], server)
            self.assertEqual(server["tool_count"], 0)
            # The route needs the token like every other.
            self.assertEqual(self.api("/v1/mcp/dcr/sign-in", method="POST", token=False).status, 401)
            r = self.api("/v1/mcp/dcr/sign-in", method="POST")
            self.assertEqual(r.status, 200, r.raw)
            self.assertEqual(r.json["resource"], base + "/mcp/dcr")
            # The browser: the authorization server approves at once.
            auth = curl(r.json["authorization_url"])
            self.assertEqual(auth.status, 302, auth.raw)
            back = auth.header("Location")
            self.assertTrue(back.startswith(self.srv.base + "/v1/oauth/callback?"), back)
            page = curl(back)
            self.assertEqual(page.status, 200, page.raw)
            self.assertIn("Signed in", page.raw)
            deadline = time.time() + 30
            while time.time() < deadline:
                server = self.api("/v1/mcp").json["servers"][0]
                if server["status"] == "connected":
                    break
                time.sleep(0.1)
            self.assertEqual(server["status"], "connected", server)
            self.assertFalse(server["needs_sign_in"])
            self.assertEqual(server["tool_count"], 1)
            tools = self.api("/v1/mcp/dcr/tools").json["tools"]
            self.assertEqual([t["name"] for t in tools], ["mcp__dcr__whoami"])
            # Signed in: there is nothing to begin now.
            self.assertError(self.api("/v1/mcp/dcr/sign-in", method="POST"), 409, "not waiting for a sign-in")
            self.assertNotIn("owtest-secret-Zq8", self.srv.stderr())
        finally:
            double.stdin.close()
            double.wait(10)
            double.stdout.close()

    def test_no_mcp_json_no_servers(self):
        self.assertEqual(self.api("/v1/mcp").json["servers"], [])

    def wait_status(self, name, want, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            servers = {s["name"]: s for s in self.api("/v1/mcp").json["servers"]}
            if name in servers and servers[name]["status"] == want:
                return servers[name]
            time.sleep(0.1)
        self.fail(f"{name} never became {want}: {servers.get(name)}")

    def saved(self):
        with open(os.path.join(self.home, "config", "mcp.json")) as f:
            return json.load(f)["mcpServers"]

    def test_add_change_remove_live(self):
        """Every change is saved in mcp.json and applied at once, without a restart."""
        everything = os.environ.get("OW_MCP_EVERYTHING", "")
        self.assertTrue(os.path.isfile(everything), f"server-everything missing at {everything!r}")
        r = self.api("/v1/mcp", method="POST",
                     body={"name": "everything", "config": {"command": "node", "args": [everything, "stdio"]}})
        self.assertTrue(r.json["ok"], r.json)
        s = self.wait_status("everything", "connected")
        count = s["tool_count"]
        self.assertGreater(count, 5)
        path = os.path.join(self.home, "config", "mcp.json")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.assertEqual(self.saved()["everything"]["args"], [everything, "stdio"])
        # The name is taken; a bad entry or name is refused with the engine's sentence, and nothing is saved.
        self.assertError(self.api("/v1/mcp", method="POST", body={"name": "everything", "config": {"command": "x"}}),
                         409, "already")
        self.assertError(self.api("/v1/mcp", method="POST", body={"name": "bad", "config": {"url": "ftp://x"}}),
                         400, "http://")
        self.assertError(self.api("/v1/mcp", method="POST", body={"name": "no/slash", "config": {"command": "x"}}),
                         400, "letters")
        self.assertError(self.api("/v1/mcp", method="POST", body={"name": "x"}), 400, "config")
        self.assertEqual(list(self.saved()), ["everything"])

        # Exclude one tool: the server restarts with one tool fewer.
        tools = [t["server_name"] for t in self.api("/v1/mcp/everything/tools").json["tools"]]
        self.assertIn("echo", tools)
        r = self.api("/v1/mcp/everything", method="PATCH", body={"exclude_tools": ["echo"], "tool_timeout_sec": 30})
        self.assertTrue(r.json["ok"], r.json)
        s = self.wait_status("everything", "connected")
        deadline = time.time() + 30
        while time.time() < deadline and s["tool_count"] != count - 1:
            time.sleep(0.1)
            s = self.wait_status("everything", "connected")
        self.assertEqual(s["tool_count"], count - 1)
        tools = [t["server_name"] for t in self.api("/v1/mcp/everything/tools").json["tools"]]
        self.assertNotIn("echo", tools)
        self.assertEqual(self.saved()["everything"]["exclude_tools"], ["echo"])
        self.assertEqual(self.saved()["everything"]["tool_timeout_sec"], 30)
        # PATCH refuses what it does not merge, and bad values, changing nothing.
        self.assertError(self.api("/v1/mcp/everything", method="PATCH", body={"command": "sh"}), 400, "cannot be changed")
        self.assertError(self.api("/v1/mcp/everything", method="PATCH",
                                  body={"enabled": False, "include_tools": "echo"}), 400, "list of tool names")
        self.assertNotIn("enabled", self.saved()["everything"])
        self.assertError(self.api("/v1/mcp/nosuch", method="PATCH", body={"enabled": False}), 404)
        # null removes a member.
        self.assertTrue(self.api("/v1/mcp/everything", method="PATCH", body={"exclude_tools": None}).json["ok"])
        self.assertNotIn("exclude_tools", self.saved()["everything"])
        self.wait_status("everything", "connected")

        # Disable: stopped and listed as disabled; its tools are gone. Enable: back.
        self.assertTrue(self.api("/v1/mcp/everything", method="PATCH", body={"enabled": False}).json["ok"])
        self.wait_status("everything", "disabled")
        self.assertError(self.api("/v1/mcp/everything/tools"), 404)
        self.assertError(self.api("/v1/mcp/everything/connect", method="POST"), 404, "no running")
        self.assertTrue(self.api("/v1/mcp/everything", method="PATCH", body={"enabled": True}).json["ok"])
        self.wait_status("everything", "connected")
        # Connect restarts it (positive control of the 404 above).
        self.assertTrue(self.api("/v1/mcp/everything/connect", method="POST").json["ok"])
        self.wait_status("everything", "connected")

        # A change by hand applies with reload; a file that cannot be read is refused and changes nothing.
        with open(path, "w") as f:
            json.dump({"mcpServers": {"everything": {"command": "node", "args": [everything, "stdio"]},
                                      "broken": {"command": "/nonexistent/mcp"}}}, f)
        self.assertTrue(self.api("/v1/mcp/reload", method="POST").json["ok"])
        self.wait_status("broken", "error")
        with open(path, "w") as f:
            f.write("{not json")
        self.assertError(self.api("/v1/mcp/reload", method="POST"), 400, "mcp.json")
        # The list reads the file (and says why it cannot); the server itself still runs.
        self.assertIn("mcp.json", self.api("/v1/mcp").json["error"])
        self.assertEqual(self.api("/v1/mcp/everything/tools").status, 200)
        with open(path, "w") as f:
            json.dump({"mcpServers": {"everything": {"command": "node", "args": [everything, "stdio"]},
                                      "broken": {"command": "/nonexistent/mcp"}}}, f)

        # Remove: gone from the file and stopped.
        self.assertTrue(self.api("/v1/mcp/broken", method="DELETE").json["ok"])
        self.assertTrue(self.api("/v1/mcp/everything", method="DELETE").json["ok"])
        self.assertEqual(self.api("/v1/mcp").json["servers"], [])
        self.assertError(self.api("/v1/mcp/everything/tools"), 404)
        self.assertError(self.api("/v1/mcp/everything", method="DELETE"), 404)

    def test_changes_need_the_token(self):
        for method, path, body in [("POST", "/v1/mcp", {"name": "x", "config": {"command": "true"}}),
                                   ("PATCH", "/v1/mcp/x", {"enabled": False}), ("DELETE", "/v1/mcp/x", None),
                                   ("POST", "/v1/mcp/x/connect", None), ("POST", "/v1/mcp/reload", None)]:
            self.assertEqual(self.api(path, method=method, body=body, token=False).status, 401, path)
        self.assertFalse(os.path.exists(os.path.join(self.home, "config", "mcp.json")))
        # Positive control: the same add with the token is saved.
        self.assertTrue(self.api("/v1/mcp", method="POST",
                                 body={"name": "x", "config": {"command": "true"}}).json["ok"])
        self.assertEqual(list(self.saved()), ["x"])


class Workspaces(ServerTestCase):
    def test_open_recent_trust(self):
        proj = os.path.join(self.tmp, "proj")
        r = self.api("/v1/workspaces/open", method="POST", body={"path": proj})
        self.assertError(r, 404, "does not exist")
        r = self.api("/v1/workspaces/open", method="POST", body={"path": proj, "create": True})
        self.assertTrue(r.json["ok"])
        self.assertEqual(r.json["path"], os.path.realpath(proj))
        self.assertIsNone(r.json["git_branch"])
        os.makedirs(os.path.join(proj, ".git"))
        with open(os.path.join(proj, ".git", "HEAD"), "w") as f:
            f.write("ref: refs/heads/feature/x\n")
        os.makedirs(os.path.join(proj, ".openworker"))
        with open(os.path.join(proj, ".openworker", "config.toml"), "w") as f:
            f.write('allowed_commands = ["make test", "npm run build"]\n')
        r = self.api("/v1/workspaces/open", method="POST", body={"path": proj})
        self.assertEqual(r.json["git_branch"], "feature/x")
        self.assertEqual(r.json["command_trust"], {"workspace": os.path.realpath(proj), "trusted": False,
                                                   "required": True,
                                                   "requested_commands": ["make test", "npm run build"]})
        recent = self.api("/v1/workspaces/recent").json["workspaces"]
        self.assertEqual(recent[0], {"path": os.path.realpath(proj), "name": "proj", "exists": True})
        r = self.api("/v1/workspaces/trust", method="POST", body={"path": proj, "trusted": True})
        self.assertTrue(r.json["ok"])
        self.assertTrue(r.json["trusted"])
        self.assertFalse(r.json["required"])
        trusted = self.api("/v1/workspaces/trusted").json["workspaces"]
        self.assertEqual([w["workspace"] for w in trusted], [os.path.realpath(proj)])
        path = os.path.join(self.home, "data", "workspace_trust.json")
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
        self.api("/v1/workspaces/trust", method="POST", body={"path": proj, "trusted": False})
        self.assertEqual(self.api("/v1/workspaces/trusted").json["workspaces"], [])

    def test_refusals(self):
        f = os.path.join(self.tmp, "file")
        open(f, "w").close()
        self.assertError(self.api("/v1/workspaces/open", method="POST", body={"path": f}), 400, "not a directory")
        self.assertError(self.api("/v1/workspaces/open", method="POST", body={"path": "relative/x"}), 400)
        self.assertError(self.api("/v1/workspaces/open", method="POST", body={}), 400)
        self.assertError(self.api("/v1/workspaces/trust", method="POST", body={"path": self.ws}), 400)
        self.assertError(self.api("/v1/workspaces/trust", method="POST", body={"path": "/no/such", "trusted": True}),
                         400)
        # Scratch folders are not "recent workspaces".
        self.api("/v1/sessions", method="POST", body={})
        for w in self.api("/v1/workspaces/recent").json["workspaces"]:
            self.assertNotIn("/scratch/", w["path"])


class HostileInput(ServerTestCase):
    """JSON nested 200,000 deep, which overflows a recursive parser: in a
    request body it is a 400, in a model's reply a 502, and either way the
    server stays up and the next ordinary request succeeds."""
    script = {"turns": [{"stream": False, "raw": {"status": 200, "headers": {"content-type": "application/json"},
                                                  "body": "[" * 200000}},
                        {"text": "fine"}]}

    def completion(self, body=None, raw_body=None):
        return self.api("/v1/chat/completions", method="POST", body=body, raw_body=raw_body,
                        headers={"Content-Type": "application/json"})

    def test_deep_request_then_deep_reply_then_normal(self):
        deep = b"[" * 200000
        nested_member = b'{"model":"openai:gpt-4o","messages":[{"role":"user","content":' + deep + b"}]}"
        for path in ("/v1/sessions", "/v1/settings/model-config", "/v1/chat/completions"):
            for raw in (deep, nested_member):
                with self.subTest(path=path, body=raw[:12]):
                    r = self.api(path, method="POST", raw_body=raw, headers={"Content-Type": "application/json"})
                    self.assertEqual(r.status, 400, r.raw[:300])
                    self.assertEqual(self.api("/v1/health").status, 200)
        self.assertEqual(len(self.model.requests()), 0)  # refused before any model call

        ask = {"model": "openai:gpt-4o", "stream": False, "messages": [{"role": "user", "content": "x"}]}
        r = self.completion(body=ask)
        self.assertEqual(r.status, 502, r.raw[:300])
        self.assertIn("nested deeper than 512 levels", r.json["error"]["message"])
        self.assertEqual(self.api("/v1/health").status, 200)

        # Positive control: the same request, answered normally.
        r = self.completion(body=ask)
        self.assertEqual(r.status, 200, r.raw[:300])
        self.assertEqual(r.json["choices"][0]["message"]["content"], "fine")


class Providers(ServerTestCase):
    script = {"models": ["gpt-4o", "gpt-4o-mini"], "turns": []}

    def test_list_save_verify_remove(self):
        providers = self.api("/v1/providers").json
        self.assertIsInstance(providers, list)
        by = {p["name"]: p for p in providers}
        self.assertIn("anthropic", by)
        self.assertTrue(by["openai"]["configured"])          # key in the environment
        self.assertEqual(by["openai"]["key_source"], "env")
        self.assertFalse(by["anthropic"]["configured"])
        self.assertIn("suggested_models", by["anthropic"])

        key = "sk-ant-saved-" + uuid.uuid4().hex
        r = self.api("/v1/providers", method="POST", body={"name": "anthropic", "fields": {"api_key": key}})
        self.assertTrue(r.json["ok"], r.raw)
        self.assertTrue(r.json["provider"]["configured"])
        self.assertEqual(r.json["provider"]["key_source"], "store")
        self.assertTrue(r.json["recommended_model"].startswith("anthropic:"))
        listing = self.api("/v1/providers")
        self.assertNotIn(key, listing.raw)
        self.assertTrue({p["name"]: p for p in listing.json}["anthropic"]["configured"])
        # Never in a file in plain text.
        for root, _, files in os.walk(self.home):
            for name in files:
                with open(os.path.join(root, name), "rb") as f:
                    self.assertNotIn(key.encode(), f.read(), os.path.join(root, name))

        # Verify against the scripted server (the environment's base URL).
        r = self.api("/v1/providers/verify", method="POST", body={"name": "openai", "fields": {}})
        self.assertEqual(r.json["ok"], True, r.raw)
        r = self.api("/v1/providers/verify", method="POST",
                     body={"name": "openai", "fields": {"api_key": "sk-other"}})
        self.assertTrue(r.json["ok"])
        self.assertNotIn("sk-other", r.raw)
        r = self.api("/v1/providers/verify", method="POST", body={"name": "deepseek", "fields": {}})
        self.assertEqual(r.json, {"ok": False, "status": "no_key", "error": "Enter an API key to test."})

        r = self.api("/v1/providers/anthropic", method="DELETE")
        self.assertEqual(r.json["removed"], True)
        self.assertFalse(r.json["provider"]["configured"])
        self.assertEqual(self.api("/v1/providers/anthropic", method="DELETE").json["removed"], False)

    def test_refusals(self):
        self.assertError(self.api("/v1/providers", method="POST", body={"name": "nope", "fields": {"api_key": "k"}}),
                         404)
        self.assertError(self.api("/v1/providers", method="POST", body={"name": "openai", "fields": {}}), 400)
        self.assertError(self.api("/v1/providers", method="POST", body={"name": "openai", "fields": {"api_key": 5}}),
                         400)
        self.assertError(self.api("/v1/providers", method="POST", body={"fields": {"api_key": "k"}}), 400)
        # A refused base URL saves neither it nor the key that came with it.
        self.assertError(self.api("/v1/providers", method="POST",
                                  body={"name": "openai", "fields": {"api_key": "sk-not-saved-" + "1" * 20,
                                                                     "base_url": "ftp://x"}}), 400)
        self.assertFalse(os.path.exists(os.path.join(self.home, "config", "config.toml")))
        self.assertEqual({p["name"]: p for p in self.api("/v1/providers").json}["openai"]["key_source"], "env")
        self.assertError(self.api("/v1/providers/nope", method="DELETE"), 404)
        self.assertError(self.api("/v1/providers/verify", method="POST", body={"name": "nope"}), 404)


    def test_endpoint_follows_environment_and_config(self):
        by = {p["name"]: p for p in self.api("/v1/providers").json}
        # OPENAI_BASE_URL points at the scripted server: that is the endpoint shown.
        self.assertEqual(by["openai"]["base_url"], self.model.url + "/v1")
        self.assertEqual(by["openai"]["base_url_source"], "env")
        self.assertEqual(by["openai"]["base_url_env"], "OPENAI_BASE_URL")
        self.assertEqual(by["anthropic"]["base_url"], by["anthropic"]["default_base_url"])
        self.assertEqual(by["anthropic"]["base_url_source"], "default")

        config = os.path.join(self.home, "config", "config.toml")
        for bad in ["ftp://example.com", "not a url", "http://", 5]:
            with self.subTest(base_url=bad):
                r = self.api("/v1/providers", method="POST", body={"name": "anthropic", "fields": {"base_url": bad}})
                self.assertError(r, 400)
                self.assertFalse(os.path.exists(config))
        gateway = "https://gateway.example.com/anthropic"
        r = self.api("/v1/providers", method="POST", body={"name": "anthropic", "fields": {"base_url": gateway}})
        self.assertTrue(r.json["ok"], r.raw)
        self.assertEqual(r.json["provider"]["base_url"], gateway)
        self.assertEqual(r.json["provider"]["base_url_source"], "config")
        self.assertFalse(r.json["provider"]["configured"], "a base URL is not a key")
        with open(config) as f:
            self.assertIn(gateway, f.read())
        by = {p["name"]: p for p in self.api("/v1/providers").json}
        self.assertEqual(by["anthropic"]["values"]["base_url"], gateway)
        # The config wins over the environment, as it does for the sessions.
        r = self.api("/v1/providers", method="POST", body={"name": "openai", "fields": {"base_url": gateway}})
        self.assertEqual(r.json["provider"]["base_url_source"], "config")
        # null goes back to the default.
        r = self.api("/v1/providers", method="POST", body={"name": "anthropic", "fields": {"base_url": None}})
        self.assertEqual(r.json["provider"]["base_url"], by["anthropic"]["default_base_url"])
        self.assertEqual(r.json["provider"]["base_url_source"], "default")


class ModelSettings(ServerTestCase):
    def test_set_get_remove(self):
        m = "ollama:qwen3:8b"
        r = self.api("/v1/settings/model-config", method="POST",
                     body={"model": m, "values": {"context_size": 65536, "temperature": 0.7, "default": True}})
        self.assertTrue(r.json["ok"], r.raw)
        got = curl(self.srv.base + "/v1/settings/model-config", token=self.srv.token,
                   extra=["-G", "--data-urlencode", f"model={m}"]).json
        self.assertEqual(got["values"]["context_size"], 65536)
        self.assertEqual(got["origins"]["temperature"], "user")
        r = self.api("/v1/settings/model-config", method="POST", body={"model": m, "values": {"temperature": None}})
        self.assertNotIn("temperature", r.json["values"])
        with open(os.path.join(self.home, "config", "model_config.json")) as f:
            self.assertEqual(json.load(f)[m]["context_size"], 65536)
        self.assertIn(m, self.api("/v1/settings/model-config").json["models"])
        r = self.api("/v1/settings/model-config/remove", method="POST", body={"model": m})
        self.assertTrue(r.json["ok"])
        self.assertNotIn(m, self.api("/v1/settings/model-config").json["models"])

    def test_refusals(self):
        for values in [{"temperature": "hot"}, {"context_size": -5}, {"compaction_threshold_pct": 5}]:
            with self.subTest(values=values):
                r = self.api("/v1/settings/model-config", method="POST", body={"model": "openai:x", "values": values})
                self.assertError(r, 400)
        self.assertError(self.api("/v1/settings/model-config", method="POST", body={"model": "openai:x"}), 400)
        self.assertError(self.api("/v1/settings/model-config", method="POST", body={"values": {}}), 400)
        self.assertError(self.api("/v1/settings/model-config/remove", method="POST", body={}), 400)


class StaticFiles(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.web = os.path.join(self.tmp, "web")
        os.makedirs(os.path.join(self.web, "js"))
        with open(os.path.join(self.web, "index.html"), "w") as f:
            f.write("<!doctype html><title>OpenWorker</title>")
        with open(os.path.join(self.web, "js", "app.js"), "w") as f:
            f.write("export const x = 1;")
        outside = os.path.join(self.tmp, "outside.js")
        with open(outside, "w") as f:
            f.write("SECRET-STATIC")
        os.symlink(outside, os.path.join(self.web, "js", "link.js"))
        self.srv.stop()
        self.srv = self.start_server(env={"OPENWORKER_WEB_DIR": self.web})

    def test_serves_ui_without_token(self):
        r = curl(self.srv.base + "/")
        self.assertEqual(r.status, 200)
        self.assertIn("<title>OpenWorker</title>", r.raw)
        self.assertTrue(r.header("content-type").startswith("text/html"))
        csp = r.header("content-security-policy")
        self.assertIn("script-src 'self'", csp)
        self.assertIn(f"ws://127.0.0.1:{self.srv.port}", csp)
        self.assertEqual(r.header("x-frame-options"), "DENY")
        r = curl(self.srv.base + "/js/app.js")
        self.assertEqual(r.status, 200)
        self.assertTrue(r.header("content-type").startswith("text/javascript"))

    def test_no_escape(self):
        for path in ["/js/link.js", "/../outside.js", "/js/../../outside.js", "/%2e%2e/outside.js", "/.hidden",
                     "/js/", "/nothing.html", "/index.html.bak", "/etc/passwd"]:
            with self.subTest(path=path):
                r = curl(self.srv.base + path, extra=["--path-as-is"])
                self.assertIn(r.status, (400, 404), r.raw)
                self.assertNotIn("SECRET-STATIC", r.raw)


class Lifecycle(unittest.TestCase):
    def setUp(self):
        import tempfile
        self.tmp = tempfile.mkdtemp(prefix="ow-srv-life-")
        self.home = os.path.join(self.tmp, "home")
        os.makedirs(self.home)

    def tearDown(self):
        import shutil
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_token_file_and_signals(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig):
                s = Server(self.home, self.tmp)
                self.assertRegex(s.url, r"^http://127\.0\.0\.1:\d+/#token=[0-9a-f]{64}$")
                path = s.token_file()
                self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600)
                with open(path) as f:
                    self.assertEqual(f.read(), s.token)
                self.assertEqual(stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode), 0o700)
                self.assertEqual(s.stop(sig), 0, s.stderr())
                self.assertFalse(os.path.exists(path))

    def test_next_port_when_taken(self):
        a = Server(self.home, self.tmp)
        try:
            b = Server(self.home, self.tmp, port=a.port)
            try:
                self.assertGreater(b.port, a.port)
                self.assertLessEqual(b.port, a.port + 20)
                self.assertNotEqual(a.token, b.token)
                self.assertEqual(curl(b.base + "/v1/health").json, {"status": "ok"})
            finally:
                b.stop()
        finally:
            a.stop()

    def test_listens_on_loopback_only(self):
        s = Server(self.home, self.tmp)
        try:
            with open("/proc/net/tcp") as f:
                rows = [l.split() for l in f.read().splitlines()[1:]]
            listening = [r[1] for r in rows if r[3] == "0A" and int(r[1].split(":")[1], 16) == s.port]
            self.assertEqual(listening, ["0100007F:%04X" % s.port])
        finally:
            s.stop()

    def test_bad_arguments(self):
        import subprocess
        from srvtest import SERVER
        p = subprocess.run([SERVER, "--cwd", "/no/such/dir"], capture_output=True, text=True,
                           env={**os.environ, "OPENWORKER_HOME": self.home})
        self.assertEqual(p.returncode, 2)
        self.assertIn("not a folder", p.stderr)
        p = subprocess.run([SERVER, "--port", "70000"], capture_output=True, text=True,
                           env={**os.environ, "OPENWORKER_HOME": self.home})
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()
