"""Helpers for the loopback API tests: openworker-server as a process with a
temporary home, the scripted model server behind it, curl for HTTP and
node scripts (the `ws` client, the OpenAI SDK) for the rest.

Every client here is a real one: requests go through curl's HTTP stack,
WebSocket frames through the `ws` npm package, completions through the
official `openai` npm package."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.environ.get("OW_SERVER_TESTS", os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from owtest import ModelServer  # noqa: E402  (the scripted model server as a process)

SERVER = os.path.abspath(os.environ.get("OW_SERVER_EXE", "build/app/openworker-server"))
OPENWORKER_PATH = os.path.abspath(os.environ.get("OW_OPENWORKER", "build/app/openworker"))
NODE = shutil.which("node") or "/usr/bin/node"
CURL = shutil.which("curl") or "/usr/bin/curl"
OPENAI_KEY = "sk-srv-test-openai-3f9e2a71c4"


def npm_ready():
    return all(os.path.isdir(os.path.join(HERE, "node_modules", p)) for p in ("ws", "openai"))


class Server:
    """openworker-server on a free port with its own home."""

    def __init__(self, home, cwd, env_extra=None, port=0, exe=SERVER):
        self.home, self.cwd = home, cwd
        env = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL") and not k.startswith("OPENWORKER_")}
        env["OPENWORKER_HOME"] = home
        env["OPENWORKER_SECRET_STORE"] = "file"
        env["OPENWORKER_RETRY_DELAYS"] = "0.05,0.05"
        # A title costs a model call after the first turn, which would take
        # a turn of every script; the tests of titles turn it back on.
        env["OPENWORKER_AUTO_TITLE"] = "0"
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        env.update(env_extra or {})
        self.env = {k: v for k, v in env.items() if v is not None}
        self.stderr_path = os.path.join(home, f"server-{time.time_ns()}.err")
        self.err = open(self.stderr_path, "w")
        self.proc = subprocess.Popen([exe, "--port", str(port), "--cwd", cwd], env=self.env,
                                     stdout=subprocess.PIPE, stderr=self.err, text=True, start_new_session=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait(timeout=10)
            raise RuntimeError(f"server did not start: {line!r} {self.stderr()}")
        self.url = line
        self.port = int(line.split(":")[2].split("/")[0])
        self.token = line.split("#token=")[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"

    def stderr(self):
        if not self.err.closed:
            self.err.flush()
        with open(self.stderr_path) as f:
            return f.read()

    def token_file(self):
        return os.path.join(self.home, "runtime", f"sidecar-{self.port}.token")

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        self.proc.stdout.close()
        return self.proc.returncode

    def kill9(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.err.close()
        self.proc.stdout.close()


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.raw = status, headers, body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def header(self, name):
        return self.headers.get(name.lower())


def curl(url, method="GET", token=None, body=None, headers=None, raw_body=None, extra=None, timeout=30):
    """One request through curl. Returns status, lower-cased headers and body."""
    with tempfile.TemporaryDirectory() as d:
        hdr_path, body_path = os.path.join(d, "h"), os.path.join(d, "b")
        argv = [CURL, "-s", "-S", "-X", method, "-D", hdr_path, "-o", body_path, "-w", "%{http_code}",
                "--max-time", str(timeout)]
        if token is not None:
            argv += ["-H", f"X-OpenWorker-Token: {token}"]
        for k, v in (headers or {}).items():
            argv += ["-H", f"{k}: {v}"]
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            argv += ["-H", "Content-Type: application/json"]
        elif raw_body is not None:
            data = raw_body if isinstance(raw_body, bytes) else raw_body.encode()
        if data is not None:
            path = os.path.join(d, "req")
            with open(path, "wb") as f:
                f.write(data)
            argv += ["--data-binary", "@" + path]
        argv += list(extra or [])
        argv.append(url)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 10)
        status = int(p.stdout.strip() or 0)
        headers = {}
        if os.path.exists(hdr_path):
            with open(hdr_path, "rb") as f:
                for line in f.read().decode("latin-1").splitlines():
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
        body_text = ""
        if os.path.exists(body_path):
            with open(body_path, "rb") as f:
                body_text = f.read().decode("utf-8", "replace")
        return Response(status, headers, body_text)


def node(script, *args, env=None, timeout=120, input_text=None):
    """Runs one of the node scripts here; returns its JSON output."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([NODE, os.path.join(HERE, script), *[str(a) for a in args]], capture_output=True, text=True,
                       timeout=timeout, env=full_env, cwd=HERE, input=input_text)
    if p.returncode != 0:
        raise AssertionError(f"node {script} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return json.loads(p.stdout)


class ServerTestCase(unittest.TestCase):
    """A temporary home and workspace, a model server when asked for and
    one openworker-server per test."""
    needs_npm = False
    script = None   # the model server's script; None = no model server

    def setUp(self):
        if self.needs_npm and not npm_ready():
            raise unittest.SkipTest("npm clients missing: run `npm ci --prefix tests/server`")
        self.tmp = tempfile.mkdtemp(prefix="ow-srv-")
        self.home = os.path.join(self.tmp, "home")
        self.ws = os.path.join(self.tmp, "ws")
        os.makedirs(self.home)
        os.makedirs(self.ws)
        self.model = None
        self.servers = []
        env = {}
        if self.script is not None:
            self.model = ModelServer(self.script, self.tmp)
            env = {"OPENAI_BASE_URL": self.model.url + "/v1", "OPENAI_API_KEY": OPENAI_KEY,
                   "OPENWORKER_MODEL": "openai:gpt-4o"}
        self.server_env = env
        self.srv = self.start_server()

    def start_server(self, **kw):
        env = dict(self.server_env)
        env.update(kw.pop("env", {}))
        s = Server(self.home, self.ws, env_extra=env, **kw)
        self.servers.append(s)
        return s

    def tearDown(self):
        for s in self.servers:
            if s.proc.poll() is None:
                code = s.stop()
                # A sanitizer report or a crash on the way out is a failure.
                if code != 0:
                    raise AssertionError(f"openworker-server exited {code}:\n{s.stderr()[-4000:]}")
        if self.model is not None:
            self.model.stop()
            self.model.proc.stdout.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def api(self, path, method="GET", body=None, token=True, **kw):
        return curl(self.srv.base + path, method=method, token=self.srv.token if token else None, body=body, **kw)

    def assertError(self, r, status, contains=None):
        self.assertEqual(r.status, status, r.raw)
        self.assertIsNotNone(r.json, r.raw)
        self.assertIs(r.json.get("ok"), False, r.raw)
        err = r.json.get("error")
        text = err if isinstance(err, str) else (err or {}).get("message", "")
        self.assertTrue(text, r.raw)
        if contains:
            self.assertIn(contains, text)
