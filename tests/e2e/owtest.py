"""Helpers for OpenWorker's end-to-end tests: the scripted model server as a
process, a temporary home, and `openworker run` with a clean environment."""
import http.client
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import wire_schema

OPENWORKER = os.environ.get("OW_OPENWORKER", "build/app/openworker")
OPENWORKER_PATH = os.path.abspath(OPENWORKER)
MODEL_SERVER = os.environ.get("OW_MODEL_SERVER", "build/tests/model-server/ow-model-server")

# Keys a test sets; each is unique so leaks can be searched for.
TEST_KEYS = {
    "OPENAI_API_KEY": "sk-e2e-openai-7f3a9c1d2b",
    "ANTHROPIC_API_KEY": "sk-ant-e2e-anthropic-5e8d1c",
    "GEMINI_API_KEY": "AIzaE2eGeminiKey0123456789abcdef",
    "ARK_API_KEY": "ark-e2e-key-44c1b2a9d7e6",
    "OPENROUTER_API_KEY": "sk-or-e2e-openrouter-9a8b7c",
    "VLLM_API_KEY": "vllm-e2e-key-1a2b3c4d5e",
}


class ModelServer:
    def __init__(self, script, tmp):
        path = os.path.join(tmp, "script.json")
        with open(path, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([MODEL_SERVER, "--script", path], stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("PORT="):
            raise RuntimeError(f"model server did not start: {line!r}")
        self.port = int(line[5:])
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        c.request("GET", "/_script/requests")
        return json.loads(c.getresponse().read())

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


class Result:
    def __init__(self, code, stdout, stderr, out):
        self.code, self.stdout, self.stderr, self.out = code, stdout, stderr, out

    def path(self, name):
        return os.path.join(self.out, name)

    def json(self, name):
        with open(self.path(name)) as f:
            return json.load(f)

    def lines(self, name):
        with open(self.path(name)) as f:
            return [json.loads(l) for l in f if l.strip()]


class RunTestCase(unittest.TestCase):
    """Each test gets a temporary home, workspace and record folder."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ow-e2e-")
        self.home = os.path.join(self.tmp, "home")
        self.ws = os.path.join(self.tmp, "ws")
        self.out = os.path.join(self.tmp, "out")
        os.makedirs(self.home)
        os.makedirs(self.ws)
        self.servers = []

    def tearDown(self):
        # Every request any test made the engine send carries only what its
        # wire defines (tests/model-server/schemas/).
        problems = []
        for s in self.servers:
            if s.proc.poll() is None:
                try:
                    for req in wire_schema.model_requests(s.requests()):
                        problems += wire_schema.problems(req)
                except OSError:
                    pass
            s.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.assertEqual(problems, [], "a request left the engine with members its wire does not define")

    def server(self, script):
        s = ModelServer(script, self.tmp)
        self.servers.append(s)
        return s

    def env(self, **extra):
        env = {k: v for k, v in os.environ.items()
               if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL") and not k.startswith("OPENWORKER_")}
        env["OPENWORKER_HOME"] = self.home
        env["OPENWORKER_RETRY_DELAYS"] = "0.05,0.05"
        env.update(extra)
        return {k: v for k, v in env.items() if v is not None}

    def start(self, args, env, stdin=None, cwd=None):
        """Starts openworker with no controlling terminal."""
        return subprocess.Popen([OPENWORKER_PATH, *args], cwd=cwd or self.ws, env=env,
                                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    def run_at_terminal(self, args, env, answers, timeout=30):
        """Runs openworker with a controlling terminal; answers each prompt
        that contains a key of @answers with its value. Returns (code, transcript)."""
        import pty
        import select
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir(self.ws)
                os.execve(OPENWORKER_PATH, [OPENWORKER_PATH, "run", "--out", self.out, *args], env)
            finally:
                os._exit(127)
        transcript, pending = b"", list(answers)
        deadline = time.time() + timeout
        while time.time() < deadline:
            r, _, _ = select.select([fd], [], [], 0.5)
            if not r:
                continue
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            transcript += chunk
            if pending and pending[0][0].encode() in transcript.split(b"\x00")[-1][-400:]:
                prompt, reply = pending.pop(0)
                transcript += b"\x00"  # marks the prompt as answered
                os.write(fd, reply.encode() + b"\n")
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status), transcript.decode("utf-8", "replace")

    def run_ow(self, args, env, stdin=None, cwd=None, out=True, timeout=60):
        argv = list(args)
        if out:
            argv = ["--out", self.out] + argv
        p = self.start(["run", *argv], env, stdin=stdin, cwd=cwd)
        stdout, stderr = p.communicate(stdin, timeout=timeout)
        return Result(p.returncode, stdout, stderr, self.out)

    def record_text(self, out=None):
        """Everything in a record folder, as text, for leak checks."""
        chunks = []
        for root, _, files in os.walk(out or self.out):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    chunks.append(fh.read().decode("utf-8", "replace"))
        return "\n".join(chunks)

    def wait_for_event(self, events_path, event_type, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if os.path.exists(events_path):
                with open(events_path) as f:
                    for line in f:
                        if line.strip() and json.loads(line)["type"] == event_type:
                            return True
            time.sleep(0.02)
        return False
