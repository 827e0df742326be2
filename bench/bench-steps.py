#!/usr/bin/env python3
"""bench-steps: the cost of one agent step in `openworker run`.

A scripted task of N shell tool calls (`echo step-K >> steps.txt`) against
the scripted model server on loopback with no model delay, for N = 20 and
N = 100. For each, over several runs: wall time, CPU time (user + system of
the openworker process and the shells it starts) and peak RSS of the
openworker process, and the time from starting it to the first model
request arriving at the server. Per-step overhead is
(wall@100 - wall@20) / 80, and the same for CPU.

It also weighs what goes to the model (the Content-Length of each request
the server recorded): the total sent over the run, and what each step adds
to the prompt, (last request - first request) / N: the step's assistant
message with its tool call plus the tool result the model reads on every
later call.

The baseline, measured in this same process run, is the irreducible work of
the task: the same N+1 HTTP requests on one keep-alive connection to the same
server, and the same N `echo` commands through one persistent bash.

usage: bench-steps.py OPENWORKER MODEL_SERVER OW_MEASURE [--runs R]

OW_MEASURE is bench/ow-measure (built beside this script): it starts
openworker from a small parent so the peak RSS is openworker's own.
"""
import argparse
import http.client
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def script_for(n):
    return {
        "turns": [
            {"repeat": n, "text": "", "tool_calls": [
                {"id": "call_{n}", "name": "run_shell", "arguments": {"command": "echo step-{n} >> steps.txt"}}],
             "usage": {"input": 1000, "output": 20}},
            {"text": "All steps written.", "usage": {"input": 1000, "output": 10}},
        ]
    }


class Server:
    def __init__(self, exe, script, tmp):
        path = os.path.join(tmp, "script.json")
        with open(path, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([exe, "--script", path], stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        assert line.startswith("PORT="), line
        self.port = int(line[5:])
        self.url = f"http://127.0.0.1:{self.port}"

    def requests(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port)
        c.request("GET", "/_script/requests")
        return json.loads(c.getresponse().read())

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def run_openworker(exe, server_exe, measure, n, tmp):
    ws = os.path.join(tmp, "ws")
    out = os.path.join(tmp, "out")
    os.makedirs(ws)
    server = Server(server_exe, script_for(n), tmp)
    env = dict(os.environ, OPENAI_API_KEY="sk-bench-0000000000", OPENAI_BASE_URL=server.url + "/v1")
    for k in ("OPENWORKER_MODEL", "OPENWORKER_HOME", "ANTHROPIC_API_KEY"):
        env.pop(k, None)
    argv = [exe, "run", "--isolated", "--out", out, "--model", "openai:gpt-4o",
            "--approval-mode", "bypass-approvals", "--max-iterations", str(n + 5),
            "--prompt", f"Append step-1 … step-{n} to steps.txt, one command each."]
    m = json.loads(subprocess.run([measure, *argv], cwd=ws, env=env, check=True, capture_output=True,
                                  text=True).stdout)
    reqs = server.requests()
    server.stop()
    code = m["exit"]
    if code != 0:
        sys.exit(f"openworker exited {code} (N={n}); record in {out}")
    with open(os.path.join(ws, "steps.txt")) as f:
        lines = f.read().splitlines()
    if lines != [f"step-{k}" for k in range(1, n + 1)]:
        sys.exit(f"steps.txt is wrong for N={n}")
    first = (reqs[0]["received_at_us"] - m["start_us"]) / 1e6
    sizes = [int(r["headers"]["content-length"]) for r in reqs if r["method"] == "POST"]
    return {"wall": m["wall"], "cpu": m["user"] + m["sys"], "rss_kib": m["maxrss_kib"], "first_request": first,
            "sent_bytes": sum(sizes), "step_bytes": (sizes[-1] - sizes[0]) / n}


def run_baseline(server_exe, n, tmp):
    os.makedirs(os.path.join(tmp, "ws"))
    server = Server(server_exe, script_for(n), tmp)
    body = json.dumps({"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "x"}]})
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    bash = subprocess.Popen(["bash"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            cwd=os.path.join(tmp, "ws"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port)
    for k in range(1, n + 2):
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        conn.getresponse().read()
        if k <= n:
            bash.stdin.write(f"echo step-{k} >> steps.txt; echo done\n")
            bash.stdin.flush()
            bash.stdout.readline()
    bash.stdin.close()
    bash.wait()
    wall = time.perf_counter() - start
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    server.stop()
    cpu = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
           + c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime)
    return {"wall": wall, "cpu": cpu}


def median(runs, key):
    return statistics.median(r[key] for r in runs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("openworker")
    ap.add_argument("model_server")
    ap.add_argument("measure")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    args.openworker = os.path.abspath(args.openworker)
    args.model_server = os.path.abspath(args.model_server)
    args.measure = os.path.abspath(args.measure)

    results, baseline = {}, {}
    for n in (20, 100):
        results[n], baseline[n] = [], []
        for _ in range(args.runs):
            tmp = tempfile.mkdtemp(prefix="ow-bench-")
            try:
                results[n].append(run_openworker(args.openworker, args.model_server, args.measure, n, tmp))
            finally:
                shutil.rmtree(tmp)
            tmp = tempfile.mkdtemp(prefix="ow-bench-base-")
            try:
                baseline[n].append(run_baseline(args.model_server, n, tmp))
            finally:
                shutil.rmtree(tmp)

    print(f"openworker run: N shell tool calls against the scripted model server (median of {args.runs} runs)")
    print(f"{'N':>4} {'wall ms':>9} {'cpu ms':>8} {'peak RSS MiB':>13} {'1st request ms':>15}   "
          f"{'baseline wall ms':>17} {'baseline cpu ms':>16}")
    for n in (20, 100):
        print(f"{n:>4} {median(results[n], 'wall') * 1e3:9.1f} {median(results[n], 'cpu') * 1e3:8.1f} "
              f"{median(results[n], 'rss_kib') / 1024:13.2f} {median(results[n], 'first_request') * 1e3:15.1f}   "
              f"{median(baseline[n], 'wall') * 1e3:17.1f} {median(baseline[n], 'cpu') * 1e3:16.1f}")
    step_wall = (median(results[100], "wall") - median(results[20], "wall")) / 80
    step_cpu = (median(results[100], "cpu") - median(results[20], "cpu")) / 80
    base_wall = (median(baseline[100], "wall") - median(baseline[20], "wall")) / 80
    base_cpu = (median(baseline[100], "cpu") - median(baseline[20], "cpu")) / 80
    rss = max(median(results[n], "rss_kib") for n in (20, 100)) / 1024
    first = median(results[20], "first_request") * 1e3
    print()
    print(f"per-step overhead: {step_wall * 1e3:.2f} ms wall, {step_cpu * 1e3:.2f} ms CPU "
          f"(baseline {base_wall * 1e3:.2f} ms wall, {base_cpu * 1e3:.2f} ms CPU; "
          f"ratio {step_wall / base_wall:.2f}x wall, {step_cpu / base_cpu:.2f}x CPU)")
    print(f"peak RSS: {rss:.2f} MiB; time to the first model request: {first:.1f} ms")
    print(f"sent to the model at N=100: {median(results[100], 'sent_bytes') / 1e6:.2f} MB in 101 requests; "
          f"each step adds {median(results[100], 'step_bytes'):.0f} bytes to the prompt "
          f"(issue #10 measured Claude Code 361, Codex CLI 441)")
    goals = [("per-step wall <= 5 ms", step_wall * 1e3 <= 5), ("per-step CPU <= 2.5 ms", step_cpu * 1e3 <= 2.5),
             ("peak RSS <= 15 MiB", rss <= 15), ("first request <= 20 ms", first <= 20),
             ("<= 300 bytes a step", median(results[100], "step_bytes") <= 300)]
    print("goals: " + ", ".join(f"{g} {'met' if ok else 'MISSED'}" for g, ok in goals))
    print("peers on the same task (issue #2): Codex CLI 0.169 ≈ 49 ms and 28 ms CPU per step, 147 MB, 0.2 s; "
          "Claude Code 2.1 ≈ 70 ms and 34 ms CPU per step, 265–300 MB, 0.3 s")
    print(f"versus Codex CLI: {49 / (step_wall * 1e3):.0f}x faster per step, {28 / (step_cpu * 1e3):.0f}x less CPU, "
          f"{147 / (rss * 1.048576):.0f}x less memory, {200 / first:.0f}x sooner to the first request")


if __name__ == "__main__":
    main()
