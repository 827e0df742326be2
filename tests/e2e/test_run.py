"""End-to-end tests of `openworker run`: the real binary against the scripted
model server, for every wire style, checking the answer, the exit code,
every record file, and that trajectory.json passes an independent ATIF-v1.7
check (atif_check.py: a JSON schema plus the validator's cross-field rules).
"""
import json
import os
import signal
import subprocess
import time
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atif_check  # noqa: E402
import wire_schema  # noqa: E402
from owtest import OPENWORKER, TEST_KEYS, RunTestCase  # noqa: E402

OPENWORKER_PATH = os.path.abspath(OPENWORKER)

TWO_TURNS = {
    "turns": [
        {"text": "Writing the file now.",
         "reasoning": "The person wants hello in out.txt.",
         "tool_calls": [{"id": "call_w1", "name": "run_shell",
                         "arguments": {"command": "printf 'hello\\n' > out.txt && echo wrote"}}],
         "usage": {"input": 1200, "output": 40, "cache_read": 300, "cache_write": 100}},
        {"text": "out.txt now says hello.", "usage": {"input": 1300, "output": 12, "cache_read": 1200}},
    ]
}

STYLES = {
    # name: (model, env builder from server url, expected request path suffix, auth header check)
    "openai-chat": ("openai:gpt-4o", lambda u: {"OPENAI_BASE_URL": u + "/v1", "OPENAI_API_KEY": TEST_KEYS["OPENAI_API_KEY"]},
                    "/v1/chat/completions", ("authorization", "Bearer " + TEST_KEYS["OPENAI_API_KEY"])),
    "openai-responses": ("ark:dola-seed-2-1-turbo-260628",
                         lambda u: {"ARK_BASE_URL": u + "/api/v3", "ARK_API_KEY": TEST_KEYS["ARK_API_KEY"]},
                         "/api/v3/responses", ("authorization", "Bearer " + TEST_KEYS["ARK_API_KEY"])),
    "anthropic": ("anthropic:claude-sonnet-4-5",
                  lambda u: {"ANTHROPIC_BASE_URL": u, "ANTHROPIC_API_KEY": TEST_KEYS["ANTHROPIC_API_KEY"]},
                  "/v1/messages", ("x-api-key", TEST_KEYS["ANTHROPIC_API_KEY"])),
    "gemini": ("gemini:gemini-2.5-flash",
               lambda u: {"GEMINI_BASE_URL": u + "/v1beta", "GEMINI_API_KEY": TEST_KEYS["GEMINI_API_KEY"]},
               ":streamGenerateContent", ("x-goog-api-key", TEST_KEYS["GEMINI_API_KEY"])),
    "ollama": ("ollama:qwen3:8b", lambda u: {"OLLAMA_BASE_URL": u}, "/api/chat", None),
    "vllm": ("vllm:nvidia/Nemotron-3-Nano",
             lambda u: {"VLLM_BASE_URL": u + "/v1", "VLLM_API_KEY": TEST_KEYS["VLLM_API_KEY"]},
             "/v1/chat/completions", ("authorization", "Bearer " + TEST_KEYS["VLLM_API_KEY"])),
}


def for_each_style(*styles):
    """Gives a test case one test_<style> method per wire style, each running
    its check_style(style)."""
    def add(cls):
        for style in styles:
            setattr(cls, "test_" + style.replace("-", "_"), lambda self, s=style: self.check_style(s))
        return cls
    return add


@for_each_style("openai-chat", "openai-responses", "anthropic", "gemini", "ollama", "vllm")
class WireStyles(RunTestCase):
    """One task with a tool call, for every provider style."""

    def check_style(self, style):
        model, env_for, path_suffix, auth = STYLES[style]
        server = self.server(TWO_TURNS)
        r = self.run_ow(["--model", model, "--approval-mode", "bypass-approvals", "--prompt", "Put hello in out.txt"],
                        self.env(**env_for(server.url)))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout, "out.txt now says hello.\n")
        with open(os.path.join(self.ws, "out.txt")) as f:
            self.assertEqual(f.read(), "hello\n")

        reqs = server.requests()
        self.assertEqual(len(reqs), 2)
        self.assertTrue(reqs[0]["path"].endswith(path_suffix), reqs[0]["path"])
        # Every request carries only what its wire defines (the second one
        # replays an assistant turn with a tool call and its result).
        for req in reqs:
            self.assertEqual(wire_schema.problems(req), [], json.dumps(req["body"])[:2000])
        if auth is not None:
            self.assertEqual(reqs[0]["headers"][auth[0]], auth[1])
        self.assertIn("wrote", json.dumps(reqs[1]["body"]))  # the tool result went back
        self.assertIn("Put hello in out.txt", json.dumps(reqs[0]["body"]))

        # The trajectory passes an independent check.
        traj = r.json("trajectory.json")
        self.assertEqual(atif_check.problems(traj), [])
        self.assertEqual(traj["schema_version"], "ATIF-v1.7")
        sources = [s["source"] for s in traj["steps"]]
        self.assertEqual(sources, ["system", "user", "agent", "agent"])
        call_step = traj["steps"][2]
        self.assertEqual(call_step["tool_calls"][0]["function_name"], "run_shell")
        self.assertEqual(call_step["tool_calls"][0]["arguments"]["command"],
                         "printf 'hello\\n' > out.txt && echo wrote")
        obs = call_step["observation"]["results"][0]
        self.assertEqual(obs["source_call_id"], call_step["tool_calls"][0]["tool_call_id"])
        self.assertIn("wrote", obs["content"])
        self.assertEqual(call_step["metrics"]["prompt_tokens"], 1600)
        # Ollama's native API reports no cache: everything counts as prompt.
        cached = 0 if style == "ollama" else 300
        self.assertEqual(call_step["metrics"]["cached_tokens"], cached)
        self.assertEqual(call_step["metrics"]["completion_tokens"], 40)
        self.assertEqual(call_step["llm_call_count"], 1)
        self.assertEqual(traj["final_metrics"]["total_prompt_tokens"], 1600 + 2500)
        self.assertEqual(traj["final_metrics"]["total_steps"], 4)

        summary = r.json("summary.json")
        self.assertEqual(summary["outcome"], "completed")
        self.assertEqual(summary["exit_code"], 0)
        self.assertEqual(summary["iterations"], 2)
        self.assertEqual(summary["tool_calls"], 1)
        self.assertEqual(summary["model"], model)
        self.assertEqual(summary["hosts"], [f"127.0.0.1:{server.port}"])
        # No saved window: compaction assumes 128,000 tokens and starts at 80 %.
        self.assertEqual(summary["context_window"], 128000)
        self.assertEqual(summary["compaction_trigger"], 102400)
        self.assertEqual(summary["tokens"]["output"], 52)
        self.assertEqual(summary["args"]["approval_mode"], "bypass-approvals")
        self.assertTrue(summary["web_tools"])
        offered = [t["function"]["name"] if "function" in t else t.get("name") for t in reqs[0]["body"].get("tools", [])]
        if style in ("openai-chat", "vllm"):
            self.assertIn("web_fetch", offered)
            self.assertIn("web_search", offered)

        events = r.lines("events.jsonl")
        self.assertEqual([e["seq"] for e in events], list(range(1, len(events) + 1)))
        types = [e["type"] for e in events]
        for t in ("turn_start", "assistant_delta", "assistant_message", "tool_proposed", "tool_started",
                  "tool_finished", "iteration_end", "turn_end"):
            self.assertIn(t, types)
        self.assertEqual(types[-1], "turn_end")

        calls = r.lines("model_calls.jsonl")
        self.assertEqual([c["status"] for c in calls], ["ok", "ok"])
        self.assertEqual(calls[0]["stop_reason"], "tool_calls")
        self.assertEqual(calls[1]["stop_reason"], "stop")
        self.assertEqual(calls[0]["usage"]["cache_read"], cached)
        self.assertEqual(calls[0]["host"], f"127.0.0.1:{server.port}")

        messages = r.json("messages.json")
        self.assertEqual([m["role"] for m in messages], ["system", "user", "assistant", "tool", "assistant"])
        self.assertEqual(r.json("answers.json"), [])
        self.assertEqual(os.path.getsize(r.path("provider_errors.log")), 0)

        db = sqlite3.connect(r.path("audit.db"))
        stages = [row[0] for row in db.execute("SELECT stage FROM audit_events ORDER BY id")]
        self.assertEqual(stages, ["proposed", "auto_allowed", "started", "finished"])
        enforcement = db.execute("SELECT enforcement FROM audit_events LIMIT 1").fetchone()[0]
        self.assertTrue(enforcement.startswith("direct, guard ("), enforcement)

        text = self.record_text()
        for key in TEST_KEYS.values():
            self.assertNotIn(key, text)


@for_each_style("openai-chat", "openai-responses", "anthropic", "gemini", "ollama")
class Compaction(RunTestCase):
    """A history that outgrows the window is compacted mid-turn, on every wire
    style: the summarizer's call and the compacted request are the wire's
    own, and the record stays whole and valid."""

    SCRIPT = {
        "turns": [
            # The reply says the context holds 200,000 tokens: above 0.8 × 128,000.
            {"text": "Looking first.", "tool_calls": [{"id": "call_c1", "name": "run_shell",
                                                        "arguments": {"command": "echo looked"}}],
             "usage": {"input": 200000, "output": 20}},
            {"text": "## Primary request and intent\nSUMMARY-OF-THE-START"},
            {"text": "Done after compaction.", "usage": {"input": 900, "output": 8}},
        ]
    }

    def check_style(self, style):
        model, env_for, _, _ = STYLES[style]
        server = self.server(self.SCRIPT)
        r = self.run_ow(["--model", model, "--approval-mode", "bypass-approvals", "--prompt", "Look, then answer"],
                        self.env(**env_for(server.url)))
        self.assertEqual(r.code, 0, r.stderr)
        reqs = server.requests()
        self.assertEqual(len(reqs), 3)
        for req in reqs:
            self.assertEqual(wire_schema.problems(req), [], json.dumps(req["body"])[:2000])
        summarizer = json.dumps(reqs[1]["body"])
        self.assertIn("You condense the earlier part", summarizer)
        self.assertIn("[user] Look, then answer", summarizer)
        self.assertNotIn("run_shell", json.dumps(reqs[1]["body"].get("tools", [])))
        compacted = json.dumps(reqs[2]["body"])
        self.assertIn("<compacted-history>", compacted)
        self.assertIn("SUMMARY-OF-THE-START", compacted)
        self.assertIn("call_c1" if style not in ("gemini", "ollama") else "echo looked", compacted)

        types = [e["type"] for e in r.lines("events.jsonl")]
        self.assertIn("compacting", types)
        self.assertLess(types.index("compacted"), len(types) - 1)
        messages = r.json("messages.json")
        self.assertIn({"role": "notice", "kind": "compacted"},
                      [{"role": m["role"], "kind": m.get("kind")} for m in messages if m["role"] == "notice"])
        self.assertEqual(messages[-1]["content"], "Done after compaction.")
        traj = r.json("trajectory.json")
        self.assertEqual(atif_check.problems(traj), [])
        # ATIF 1.7's context-management step: what replaced the older turns,
        # and where the kept ones start (the first agent step, with its call).
        step = [s for s in traj["steps"] if (s.get("extra") or {}).get("context_management")][0]
        self.assertEqual(step["source"], "system")
        self.assertEqual(step["extra"]["context_management"], {"type": "compaction", "boundary": "replace"})
        self.assertIn("SUMMARY-OF-THE-START", step["observation"]["results"][0]["content"])
        kept = traj["steps"][step["extra"]["kept_from_step"] - 1]
        self.assertEqual(kept["source"], "agent")
        self.assertEqual(kept["tool_calls"][0]["function_name"], "run_shell")
        self.assertEqual(r.json("summary.json")["outcome"], "completed")


def openai_env(test, server):
    return test.env(OPENAI_BASE_URL=server.url + "/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"])


class CommandLine(RunTestCase):
    """Flags, task sources and exit code 2."""

    def test_no_model_says_what_to_set(self):
        r = self.run_ow(["--prompt", "hi"], self.env())
        self.assertEqual(r.code, 2)
        self.assertIn("OPENWORKER_MODEL", r.stderr)
        self.assertIn("--model", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_unknown_coworker_lists_ids(self):
        r = self.run_ow(["--coworker", "pirate", "--model", "openai:gpt-4o", "--prompt", "hi"], self.env())
        self.assertEqual(r.code, 2)
        self.assertIn("cowork", r.stderr)
        self.assertIn("code", r.stderr)

    def test_usage_errors(self):
        cases = [
            (["--isolated", "--prompt", "x"], "--out"),
            (["--model", "openai:gpt-4o", "--approval-mode", "yolo", "--prompt", "x"], "approval-mode"),
            (["--model", "openai:gpt-4o", "--prompt", "x", "--prompt-file", "f"], "not both"),
            (["--model", "nosuch:model", "--prompt", "x"], "nosuch"),
            (["--model", "openai:gpt-4o", "--prompt", "x", "--reasoning-effort", "huge"], "reasoning-effort"),
            (["--model", "openai:gpt-4o", "--prompt", "x", "--allow-site", "*.example.com"], "allow-site"),
            (["--model", "openai:gpt-4o", "--prompt", "x", "--provider-order", "a"], "OpenRouter"),
            (["--model", "openai:gpt-4o", "--prompt", "x", "--bogus"], "bogus"),
            (["--model", "openai:gpt-4o", "--prompt", "   "], "no task"),
            (["--model", "openai:gpt-4o", "--prompt", "x", "--workspace", "/nonexistent/dir"], "not a folder"),
        ]
        env = self.env(OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"])
        for args, expect in cases:
            r = self.run_ow(args, env, out=False)
            self.assertEqual(r.code, 2, (args, r.stderr))
            self.assertIn(expect, r.stderr, args)

    def test_missing_key_names_variable(self):
        r = self.run_ow(["--model", "anthropic:claude-sonnet-4-5", "--prompt", "x"], self.env())
        self.assertEqual(r.code, 2)
        self.assertIn("ANTHROPIC_API_KEY", r.stderr)

    def test_task_from_stdin_and_file(self):
        server = self.server({"turns": [{"text": "one"}, {"text": "two"}]})
        r = self.run_ow(["--model", "openai:gpt-4o"], openai_env(self, server), stdin="task from a pipe\n")
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout, "one\n")
        task = os.path.join(self.tmp, "task.md")
        with open(task, "w") as f:
            f.write("task from a file")
        out2 = os.path.join(self.tmp, "out2")
        p = self.start(["run", "--out", out2, "--model", "openai:gpt-4o", "--prompt-file", task], openai_env(self, server))
        stdout, _ = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0)
        reqs = server.requests()
        self.assertIn("task from a pipe", json.dumps(reqs[0]["body"]))
        self.assertIn("task from a file", json.dumps(reqs[1]["body"]))
        with open(os.path.join(out2, "summary.json")) as f:
            self.assertEqual(json.load(f)["args"]["task_source"], "prompt-file")

    def test_default_record_location_and_model_from_environment(self):
        server = self.server({"turns": [{"text": "ok"}]})
        env = openai_env(self, server)
        env["OPENWORKER_MODEL"] = "openai:gpt-4o"
        r = self.run_ow(["--prompt", "hi"], env, out=False)
        self.assertEqual(r.code, 0, r.stderr)
        dashed = os.path.realpath(self.ws).replace("/", "-")
        sessions = os.path.join(self.home, "data", "sessions", dashed)
        self.assertEqual(len(os.listdir(sessions)), 1)
        record = os.path.join(sessions, os.listdir(sessions)[0])
        with open(os.path.join(record, "summary.json")) as f:
            self.assertEqual(json.load(f)["outcome"], "completed")
        self.assertIn(record, r.stderr)

    def test_isolated_reads_nothing_from_the_machine(self):
        server = self.server({"turns": [{"text": "isolated ok"}]})
        os.makedirs(os.path.join(self.home, "config"))
        with open(os.path.join(self.home, "config", "config.toml"), "w") as f:
            f.write("model = [broken\n")
        env = openai_env(self, server)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], env, out=False)
        self.assertEqual(r.code, 2)
        self.assertIn("config.toml", r.stderr)
        r = self.run_ow(["--isolated", "--model", "openai:gpt-4o", "--prompt", "x"], env)
        self.assertEqual(r.code, 0, r.stderr)
        self.assertTrue(os.path.isdir(os.path.join(self.out, "state")))
        self.assertTrue(r.json("summary.json")["args"]["isolated"])

    def test_model_settings_apply_and_flags_win(self):
        server = self.server({"turns": [{"repeat": 2, "text": "ok"}]})
        os.makedirs(os.path.join(self.home, "config"))
        with open(os.path.join(self.home, "config", "model_config.json"), "w") as f:
            json.dump({"openai:gpt-4o": {"max_output_tokens": 777, "temperature": 0.25, "reasoning_effort": "low",
                                         "context_size": 65536, "compaction_threshold_pct": 0.5,
                                         "default": True}}, f)
        env = openai_env(self, server)
        r = self.run_ow(["--prompt", "x"], env)  # the model comes from model_config.json's default
        self.assertEqual(r.code, 0, r.stderr)
        body = server.requests()[0]["body"]
        self.assertEqual(body.get("max_tokens", body.get("max_completion_tokens")), 777)
        self.assertEqual(body["temperature"], 0.25)
        self.assertEqual(body["reasoning_effort"], "low")
        # Compaction sizes to the saved window and threshold.
        summary = r.json("summary.json")
        self.assertEqual(summary["context_window"], 65536)
        self.assertEqual(summary["compaction_trigger"], 32768)
        r = self.run_ow(["--prompt", "x", "--max-output-tokens", "99", "--reasoning-effort", "high"], env, out=False)
        self.assertEqual(r.code, 0, r.stderr)
        body = server.requests()[1]["body"]
        self.assertEqual(body.get("max_tokens", body.get("max_completion_tokens")), 99)
        self.assertEqual(body["reasoning_effort"], "high")

    def test_bad_model_settings_refused(self):
        os.makedirs(os.path.join(self.home, "config"))
        with open(os.path.join(self.home, "config", "model_config.json"), "w") as f:
            json.dump({"openai:gpt-4o": {"temperature": "hot"}}, f)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"],
                        self.env(OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"]), out=False)
        self.assertEqual(r.code, 2)
        self.assertIn("temperature must be a number", r.stderr)

    def test_config_sets_model_and_base_url(self):
        server = self.server({"turns": [{"text": "from config"}]})
        os.makedirs(os.path.join(self.home, "config"))
        with open(os.path.join(self.home, "config", "config.toml"), "w") as f:
            f.write(f'model = "openai:gpt-4o"\n[providers.openai]\nbase_url = "{server.url}/v1"\n')
        r = self.run_ow(["--prompt", "x"], self.env(OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"]))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout, "from config\n")


class Approvals(RunTestCase):
    """Modes and attendance without a terminal."""

    WRITE = {"turns": [
        {"tool_calls": [{"id": "c1", "name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}]},
        {"text": "finished"}]}

    def test_ask_without_terminal_refuses_and_records(self):
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "write a"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("no terminal", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "a.txt")))
        answers = r.json("answers.json")
        self.assertEqual(len(answers), 1)
        self.assertEqual(answers[0]["kind"], "approval")
        self.assertEqual(answers[0]["tool"], "write_file")
        self.assertEqual(answers[0]["answer"], "refused")
        db = sqlite3.connect(r.path("audit.db"))
        row = db.execute("SELECT status, provenance FROM audit_events WHERE stage = 'approval_resolved'").fetchone()
        self.assertEqual(row, ("denied", "refused unattended"))

    def write_config(self, text):
        os.makedirs(os.path.join(self.home, "config"), exist_ok=True)
        with open(os.path.join(self.home, "config", "config.toml"), "w") as f:
            f.write(text)

    def test_config_approval_mode_applies_and_the_flag_wins(self):
        # The server's rule: the flag, else config.toml's approval_mode, else ask.
        self.write_config('approval_mode = "bypass-approvals"\n')
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "write a"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("· bypass-approvals ·", r.stderr)
        self.assertEqual(r.json("summary.json")["approval_mode"], "bypass-approvals")
        with open(os.path.join(self.ws, "a.txt")) as f:
            self.assertEqual(f.read(), "A")

        os.remove(os.path.join(self.ws, "a.txt"))
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "ask", "--prompt", "write a"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.json("summary.json")["approval_mode"], "ask")
        self.assertFalse(os.path.exists(os.path.join(self.ws, "a.txt")))
        self.assertEqual(r.json("answers.json")[0]["answer"], "refused")

        # --isolated reads no config: the default, ask.
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--isolated", "--prompt", "write a"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.json("summary.json")["approval_mode"], "ask")
        self.assertFalse(os.path.exists(os.path.join(self.ws, "a.txt")))

    def test_config_mode_a_run_cannot_use_is_refused(self):
        self.write_config('approval_mode = "plan"\n')
        server = self.server({"turns": [{"text": "never"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 2, r.stderr)
        self.assertIn('approval_mode = "plan" in config.toml cannot be used by openworker run', r.stderr)
        self.assertEqual(len(server.requests()), 0)
        # The flag still chooses.
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "ask", "--prompt", "x"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout, "never\n")

    def test_bypass_runs_and_dangerous_warns(self):
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "dangerously-bypass-approvals",
                         "--prompt", "write a"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("WARNING", r.stderr)
        with open(os.path.join(self.ws, "a.txt")) as f:
            self.assertEqual(f.read(), "A")

    def test_file_tools_never_write_outside_the_folders(self):
        outside = os.path.join(self.tmp, "outside.txt")
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "write_file", "arguments": {"path": outside, "content": "X"}}]},
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "dangerously-bypass-approvals",
                         "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertFalse(os.path.exists(outside))
        self.assertIn("not in a writable directory", json.dumps(r.json("messages.json")))

    def test_add_dir_is_writable_and_recorded(self):
        extra = os.path.join(self.tmp, "output")
        os.makedirs(extra)
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "write_file",
                             "arguments": {"path": os.path.join(extra, "result.txt"), "content": "R"}}]},
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--add-dir", extra,
                         "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        with open(os.path.join(extra, "result.txt")) as f:
            self.assertEqual(f.read(), "R")
        self.assertEqual(r.json("summary.json")["args"]["extra_dirs"], [os.path.realpath(extra)])

    def test_questions_answered_by_rule(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "q1", "name": "ask_user", "arguments": {"question": "Which colour?"}}]},
            {"text": "blue then"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--auto-answer", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        answers = r.json("answers.json")
        self.assertEqual(answers[0]["kind"], "question")
        self.assertIn("No one is available", answers[0]["answer"])
        self.assertIn("least destructive", json.dumps(server.requests()[1]["body"]))


class EarlyStops(RunTestCase):
    """Exit codes 3 and 130, and the record written anyway."""

    def assert_record_complete(self, r, outcome, code):
        self.assertEqual(r.code, code, r.stderr)
        summary = r.json("summary.json")
        self.assertEqual(summary["outcome"], outcome)
        self.assertEqual(summary["exit_code"], code)
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])
        for name in ("answers.json", "messages.json", "events.jsonl", "model_calls.jsonl", "audit.db"):
            self.assertTrue(os.path.exists(r.path(name)), name)

    def test_permanent_error_exit_3_with_cause(self):
        server = self.server({"turns": [{"error": {"kind": "bad_key", "message": "Incorrect API key provided"}}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], openai_env(self, server))
        self.assert_record_complete(r, "model_error", 3)
        self.assertEqual(len(server.requests()), 1)
        with open(r.path("provider_errors.log")) as f:
            log = f.read()
        self.assertIn("401", log)
        self.assertIn("Incorrect API key provided", log)
        self.assertIn("OPENAI_API_KEY", r.stderr)
        self.assertNotIn(TEST_KEYS["OPENAI_API_KEY"], self.record_text() + r.stderr)

    def test_transient_error_retried_with_a_line(self):
        server = self.server({"turns": [
            {"error": {"kind": "overloaded", "message": "Overloaded"}},
            {"text": "recovered"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(r.stdout, "recovered\n")
        self.assertRegex(r.stderr, r"provider error \(\w+: .*\); retry 1/2 in 0\.05s")
        calls = r.lines("model_calls.jsonl")
        self.assertEqual([c["status"] for c in calls], ["error", "ok"])
        self.assertEqual(r.json("summary.json")["retries"], 1)

    def test_retries_exhausted_exit_3(self):
        server = self.server({"turns": [{"repeat": 3, "error": {"kind": "server", "message": "down"}}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], openai_env(self, server))
        self.assert_record_complete(r, "model_error", 3)
        self.assertEqual(len(server.requests()), 3)

    def test_iteration_limit_exit_3(self):
        server = self.server({"turns": [{"repeat": 4, "tool_calls": [
            {"id": "c{n}", "name": "run_shell", "arguments": {"command": "echo {n}"}}]}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--max-iterations", "2",
                         "--prompt", "x"], openai_env(self, server))
        self.assert_record_complete(r, "max_iterations", 3)
        self.assertEqual(r.json("summary.json")["iterations"], 2)

    def test_time_limit_exit_3(self):
        server = self.server({"turns": [{"text": "slow " * 40, "text_chunks": 40, "chunk_delay_ms": 200}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--timeout-seconds", "1", "--prompt", "x"],
                        openai_env(self, server))
        self.assert_record_complete(r, "timeout", 3)
        messages = r.json("messages.json")
        self.assertTrue(any(m.get("partial") for m in messages))

    def test_signal_exit_130_with_record(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            out = os.path.join(self.tmp, f"out-{sig}")
            server = self.server({"turns": [
                {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "sleep 60"}}]},
                {"text": "never"}]})
            p = self.start(["run", "--out", out, "--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                            "--prompt", "x"], openai_env(self, server))
            self.assertTrue(self.wait_for_event(os.path.join(out, "events.jsonl"), "tool_started"))
            os.killpg(p.pid, sig) if sig == signal.SIGINT else p.send_signal(sig)
            stdout, stderr = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 130, stderr)
            with open(os.path.join(out, "summary.json")) as f:
                self.assertEqual(json.load(f)["outcome"], "interrupted")
            with open(os.path.join(out, "trajectory.json")) as f:
                self.assertEqual(atif_check.problems(json.load(f)), [])
            with open(os.path.join(out, "messages.json")) as f:
                tool_msgs = [m for m in json.load(f) if m["role"] == "tool"]
            self.assertEqual(len(tool_msgs), 1)
            self.assertIn("interrupted", tool_msgs[0]["content"])


class Results(RunTestCase):
    def test_long_result_bounded_and_spilled(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "big1", "name": "run_shell", "arguments": {"command": "seq 1 5000"}}]},
            {"text": "ok"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                         "--tool-result-max-bytes", "200", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        spilled = os.path.join(self.out, "tool-output", "big1.txt")
        with open(spilled) as f:
            # The spill holds what the model would have read: the output as text.
            self.assertIn("4999\n5000", f.read())
        sent = json.dumps(server.requests()[1]["body"])
        self.assertIn(spilled, sent)
        self.assertNotIn("4999", sent)

    def test_mangled_call_answered_not_run(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "m1", "name": "run_shell", "arguments_raw": "{\"command\": \"touch bad"}]},
            {"text": "sorry"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "bad")))
        self.assertIn("tool call not executed", json.dumps(server.requests()[1]["body"]))
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])

    def test_trajectory_copy(self):
        server = self.server({"turns": [{"text": "ok"}]})
        copy = os.path.join(self.tmp, "copy.json")
        r = self.run_ow(["--model", "openai:gpt-4o", "--trajectory-atif", copy, "--prompt", "x"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        with open(copy) as f:
            self.assertEqual(json.load(f), r.json("trajectory.json"))


class WebTools(RunTestCase):
    """web_search and web_fetch are offered unless --no-web-tools removes them."""

    def test_no_web_tools_removes_them(self):
        server = self.server({"turns": [{"text": "ok"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--no-web-tools", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        offered = [t["function"]["name"] for t in server.requests()[0]["body"]["tools"]]
        self.assertNotIn("web_fetch", offered)
        self.assertNotIn("web_search", offered)
        self.assertIn("read_file", offered)
        summary = r.json("summary.json")
        self.assertFalse(summary["web_tools"])
        self.assertTrue(summary["args"]["no_web_tools"])

    def test_web_fetch_refuses_this_machine(self):
        # No sandbox, no list: the address guard still keeps web_fetch off
        # loopback and private addresses (SSRF), and says why.
        server = self.server({"turns": [
            {"tool_calls": [{"id": "f1", "name": "web_fetch", "arguments": {"url": f"http://127.0.0.1:{1}/"}}]},
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        sent = json.dumps(server.requests()[1]["body"])
        self.assertIn("loopback", sent)


class Terminal(RunTestCase):
    """Approvals and questions asked at a real terminal (a pseudo-terminal)."""

    def test_approve_once_and_for_session(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "write_file", "arguments": {"path": "a.txt", "content": "A"}}]},
            {"tool_calls": [{"id": "c2", "name": "write_file", "arguments": {"path": "b.txt", "content": "B"}}]},
            {"tool_calls": [{"id": "c3", "name": "run_shell", "arguments": {"command": "rm a.txt"}}]},
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(
            ["--model", "openai:gpt-4o", "--prompt", "write"], openai_env(self, server),
            [("Allow?", "s"), ("Allow?", "n not that")])
        self.assertEqual(code, 0, transcript)
        # write_file was allowed for the session: b.txt was written without a second prompt.
        self.assertEqual(transcript.count("Allow?"), 2, transcript)
        self.assertIn("$ rm a.txt", transcript)
        self.assertTrue(os.path.exists(os.path.join(self.ws, "a.txt")))
        self.assertTrue(os.path.exists(os.path.join(self.ws, "b.txt")))
        sent = json.dumps(server.requests()[3]["body"])
        self.assertIn("not that", sent)
        self.assertEqual(self.result_json("answers.json"), [])

    def test_always_saves_a_standing_rule(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "touch one.txt"}}]},
            {"text": "done"}]})
        env = openai_env(self, server)
        code, transcript = self.run_at_terminal(["--model", "openai:gpt-4o", "--prompt", "x"], env, [("Allow?", "a")])
        self.assertEqual(code, 0, transcript)
        self.assertIn("[a] always", transcript)
        rules = json.loads(subprocess.run([OPENWORKER_PATH, "rules", "list", "--json"], env=env, capture_output=True,
                                          text=True).stdout)
        self.assertEqual([(r["rule"], r["decision"], r["created_by"]) for r in rules],
                         [("run_shell:touch one.txt", "allow", "person")])
        self.assertTrue(os.path.exists(os.path.join(self.ws, "one.txt")))

    def test_safety_check_offers_only_once(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "cat ~/.ssh/config"}}]},
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                                                 "--prompt", "x"], openai_env(self, server), [("Allow?", "n")])
        self.assertEqual(code, 0, transcript)
        self.assertIn("asked every time", transcript)
        self.assertNotIn("[s] yes for this session", transcript)

    def test_question_answered_at_terminal(self):
        server = self.server({"turns": [
            {"tool_calls": [{"id": "q1", "name": "ask_user",
                             "arguments": {"question": "Which format?", "options": ["markdown", "pdf"]}}]},
            {"text": "ok"}]})
        code, transcript = self.run_at_terminal(["--model", "openai:gpt-4o", "--prompt", "x"],
                                                openai_env(self, server), [("Your answer", "2")])
        self.assertEqual(code, 0, transcript)
        self.assertIn("Which format?", transcript)
        self.assertIn('"answer":"pdf"', json.dumps(server.requests()[1]["body"]).replace("\\", "").replace(" ", ""))

    def result_json(self, name):
        with open(os.path.join(self.out, name)) as f:
            return json.load(f)


DEEP = "[" * 200000

# A reply in each wire's own shape with no usage at all, and one whose
# members have the wrong types (usage a string, ids numbers, finish reasons
# objects), each sent whole (not streamed). The text is still readable, so
# the run can finish.
NO_USAGE = {
    "openai-chat": {"id": "c1", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "fine"}, "finish_reason": "stop"}]},
    "openai-responses": {"id": "r1", "object": "response", "status": "completed", "output": [
        {"type": "message", "id": "m1", "role": "assistant", "content": [{"type": "output_text", "text": "fine"}]}]},
    "anthropic": {"id": "msg_1", "type": "message", "role": "assistant",
                  "content": [{"type": "text", "text": "fine"}], "stop_reason": "end_turn"},
    "gemini": {"candidates": [{"content": {"role": "model", "parts": [{"text": "fine"}]}, "finishReason": "STOP"}]},
    "ollama": {"model": "qwen3:8b", "message": {"role": "assistant", "content": "fine"}, "done": True,
               "done_reason": "stop"},
}
ODD_TYPES = {
    "openai-chat": {"id": 7, "model": [], "object": "chat.completion", "choices": [
        {"index": "0", "message": {"role": 1, "content": "fine", "tool_calls": "none", "reasoning_content": 5},
         "finish_reason": {"x": 1}}, 3, None],
        "usage": {"prompt_tokens": "ten", "completion_tokens": None, "prompt_tokens_details": 4,
                  "completion_tokens_details": "x"}},
    "openai-responses": {"id": [], "object": "response", "status": 9, "model": {}, "output": [
        {"type": "message", "id": 1, "role": "assistant", "content": [{"type": "output_text", "text": "fine"}, 2, "x"]},
        {"type": "function_call", "name": 3, "call_id": None, "arguments": {}}, "junk"],
        "usage": {"input_tokens": "1", "output_tokens": [], "input_tokens_details": 0, "output_tokens_details": "z"},
        "incomplete_details": "why"},
    "anthropic": {"id": 1, "type": "message", "role": "assistant", "model": 5,
                  "content": [{"type": "text", "text": "fine"}, {"type": "tool_use", "id": 4, "name": None, "input": 3},
                              "junk", 5],
                  "stop_reason": ["end_turn"], "usage": {"input_tokens": "12", "output_tokens": {},
                                                         "cache_read_input_tokens": []}},
    "gemini": {"candidates": [{"content": {"role": 2, "parts": [{"text": "fine"}, {"functionCall": "x"}, 7]},
                               "finishReason": 1}, "junk"],
               "usageMetadata": {"promptTokenCount": "3", "candidatesTokenCount": [], "thoughtsTokenCount": {}},
               "modelVersion": 4},
    "ollama": {"model": 3, "message": {"role": [], "content": "fine", "thinking": 2, "tool_calls": {"a": 1}},
               "done": True, "done_reason": 5, "prompt_eval_count": "9", "eval_count": []},
}


def sse(*events):
    """SSE text from (event name or None, data object or text) pairs."""
    out = ""
    for name, data in events:
        out += (f"event: {name}\n" if name else "") + "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
    return out


# Streams whose events have members of the wrong type, unknown shapes and
# missing fields, with enough of a normal reply around them to finish.
ODD_STREAMS = {
    "openai-chat": sse(
        (None, {"id": 5, "choices": [7, {"index": "x", "delta": "str"},
                                     {"index": 0, "delta": {"role": 1, "content": "fi", "reasoning_content": [],
                                                            "tool_calls": [5, {"index": "a", "function": "f"},
                                                                           {"index": 0, "id": 3, "function": {
                                                                               "name": 7, "arguments": {}}}]}}],
                "usage": "lots"}),
        (None, {"choices": [{"index": 0, "delta": {"content": "ne"}, "finish_reason": 9}],
                "usage": {"prompt_tokens": "1", "completion_tokens_details": 7}}),
        (None, "[DONE]")),
    "openai-responses": sse(
        ("response.created", {"type": "response.created", "response": "x"}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": "0", "item": 5}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 1,
                                        "item": {"type": "function_call", "id": 3, "call_id": [], "name": {}}}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "fine", "output_index": []}),
        ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta",
                                                    "item_id": 4, "output_index": "1", "delta": {}}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 1, "item": "done"}),
        ("response.completed", {"type": "response.completed", "response": {
            "status": 7, "id": 2, "output": [3, {"type": "message", "content": "x"}],
            "usage": {"input_tokens": "3", "output_tokens_details": []}}})),
    "anthropic": sse(
        ("message_start", {"type": "message_start", "message": {"id": 4, "usage": "x", "model": []}}),
        ("content_block_start", {"type": "content_block_start", "index": "0", "content_block": "text"}),
        ("content_block_start", {"type": "content_block_start", "index": 1,
                                 "content_block": {"type": "tool_use", "id": 5, "name": [], "input": "q"}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": "fine"}}),
        ("content_block_delta", {"type": "content_block_delta", "index": "1",
                                 "delta": {"type": "input_json_delta", "partial_json": 5}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 9, "delta": "x"}),
        ("content_block_stop", {"type": "content_block_stop", "index": []}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": 5}, "usage": {"output_tokens": "7"}}),
        ("message_stop", {"type": "message_stop"})),
    "gemini": sse(
        (None, {"candidates": [5, {"content": "x"}], "usageMetadata": "u"}),
        (None, {"candidates": [{"content": {"parts": [{"text": "fine"}, {"functionCall": {"name": 3, "args": 4}},
                                                      {"thought": "yes", "text": 2}]},
                                "finishReason": ["STOP"]}],
                "usageMetadata": {"promptTokenCount": {}, "thoughtsTokenCount": "1"}})).replace("\n", "\r\n"),
    "ollama": "\n".join(json.dumps(line) for line in [
        {"model": 1, "message": "x", "done": "no"},
        {"message": {"role": [], "content": "fine", "thinking": {}, "tool_calls": [3, {"function": "f"},
                                                                                 {"function": {"name": 4}}]},
         "done": False},
        {"message": {"content": 7}, "done": True, "done_reason": [], "prompt_eval_count": "1", "eval_count": {}},
    ]) + "\n",
}


def deep_stream(style):
    """A 200,000-deep document as one event of the wire's stream."""
    if style == "ollama":
        return {"status": 200, "headers": {"content-type": "application/x-ndjson"}, "body": DEEP + "\n"}
    return {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": "data: " + DEEP + "\n\n"}


class HostileReplies(RunTestCase):
    """Replies built to break the reader: nesting that overflows a recursive
    parser, repeated call ids, thousands of calls, missing or mistyped
    members. Each run must end on its own terms, with its record; criticals
    are fatal here, since one reachable from a reply is a bug."""

    def hostile_env(self, style, server):
        return self.env(G_DEBUG="fatal-criticals", **STYLES[style][1](server.url))

    def run_style(self, style, turns, *flags):
        server = self.server({"turns": turns})
        r = self.run_ow(["--model", STYLES[style][0], "--approval-mode", "bypass-approvals", *flags,
                         "--prompt", "x"], self.hostile_env(style, server))
        return r, server

    def assert_stopped_with_record(self, r, reason):
        self.assertEqual(r.code, 3, r.stderr[-3000:])
        self.assertIn(reason, r.stderr)
        summary = r.json("summary.json")
        self.assertEqual(summary["outcome"], "model_error")
        self.assertEqual(summary["exit_code"], 3)
        self.assertIn(reason, summary["error"])
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])
        for name in ("answers.json", "messages.json", "events.jsonl", "model_calls.jsonl", "audit.db"):
            self.assertTrue(os.path.exists(r.path(name)), name)

    def check_deep_body(self, style):
        r, server = self.run_style(style, [{"repeat": 3, "stream": False, "raw": {
            "status": 200, "headers": {"content-type": "application/json" if style != "ollama"
                                       else "application/x-ndjson"}, "body": DEEP}}])
        self.assert_stopped_with_record(r, "nested deeper than 512 levels")
        self.assertEqual(len(server.requests()), 3)  # retried like any unreadable reply

    def check_deep_stream_line(self, style):
        r, _ = self.run_style(style, [{"repeat": 3, "raw": deep_stream(style)}])
        self.assert_stopped_with_record(r, "nested deeper than 512 levels")

    def check_no_usage(self, style):
        r, _ = self.run_style(style, [{"raw": {"status": 200, "headers": {"content-type": "application/json"},
                                               "body": json.dumps(NO_USAGE[style])}}])
        self.assertEqual(r.code, 0, r.stderr[-3000:])
        self.assertEqual(r.stdout, "fine\n")
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])
        self.assertNotIn("CRITICAL", r.stderr)

    def check_odd_types(self, style):
        r, _ = self.run_style(style, [{"repeat": 3, "raw": {"status": 200, "headers": {"content-type": "application/json"},
                                                            "body": json.dumps(ODD_TYPES[style])}},
                                      {"text": "fine"}])
        self.assert_survived(r)

    def assert_survived(self, r):
        # Read what can be read, or refuse the reply with a reason; never abort.
        self.assertIn(r.code, (0, 3), r.stderr[-3000:])
        self.assertNotIn("CRITICAL", r.stderr)
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])
        self.assertEqual(r.json("summary.json")["exit_code"], r.code)

    def check_odd_stream(self, style):
        kind = "application/x-ndjson" if style == "ollama" else "text/event-stream"
        r, _ = self.run_style(style, [{"repeat": 3, "raw": {"status": 200, "headers": {"content-type": kind},
                                                            "body": ODD_STREAMS[style]}},
                                      {"text": "fine"}])
        self.assert_survived(r)

    def test_deep_arguments_answered_not_run(self):
        # A model caught repeating "[" is told, like any unreadable
        # arguments, and the run goes on; the positive control is the next
        # call, which runs.
        r, server = self.run_style("openai-chat", [
            {"tool_calls": [{"id": "d1", "name": "run_shell", "arguments_raw": DEEP}]},
            {"tool_calls": [{"id": "d2", "name": "run_shell", "arguments": {"command": "touch ran"}}]},
            {"text": "done"}])
        self.assertEqual(r.code, 0, r.stderr[-3000:])
        sent = json.dumps(server.requests()[1]["body"])
        self.assertIn("nested deeper than 512 levels", sent)
        self.assertIn("tool call not executed", sent)
        self.assertLess(len(sent), 100000)  # history keeps a short copy of the text
        self.assertTrue(os.path.exists(os.path.join(self.ws, "ran")))
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])

    def test_duplicate_call_ids_exit_3(self):
        dup = [{"id": "same", "name": "run_shell", "arguments": {"command": "touch one"}},
               {"id": "same", "name": "run_shell", "arguments": {"command": "touch two"}}]
        r, server = self.run_style("openai-chat", [{"repeat": 3, "tool_calls": dup}])
        self.assert_stopped_with_record(r, "two tool calls under the same id 'same'")
        self.assertFalse(os.path.exists(os.path.join(self.ws, "one")))
        # Positive control: distinct ids run.
        self.tearDown()
        self.setUp()
        ok = [dict(dup[0], id="a"), dict(dup[1], id="b")]
        r, _ = self.run_style("openai-chat", [{"tool_calls": ok}, {"text": "done"}])
        self.assertEqual(r.code, 0, r.stderr[-3000:])
        self.assertTrue(os.path.exists(os.path.join(self.ws, "two")))

    def calls(self, n):
        return [{"id": f"c{i}", "name": "list_files", "arguments": {"path": "."}} for i in range(n)]

    def test_thousands_of_calls_capped(self):
        # Whole, not streamed: the stream reader keeps at most 1025 call slots.
        r, server = self.run_style("openai-chat", [{"stream": False, "tool_calls": self.calls(5000)}, {"text": "done"}])
        self.assertEqual(r.code, 0, r.stderr[-3000:])
        self.assertIn("asked for 5000 tool calls in one reply; the first 64 ran, the other 4936 were answered "
                      "without running (limit 64 per reply)", r.stderr)
        events = r.lines("events.jsonl")
        self.assertEqual(sum(e["type"] == "tool_started" for e in events), 64)
        capped = [e for e in events if e["type"] == "tool_calls_capped"]
        self.assertEqual(len(capped), 1)
        self.assertEqual(capped[0]["data"]["not_run"], 4936)
        # Every call has its result, so the next request is valid.
        tool_msgs = [m for m in r.json("messages.json") if m["role"] == "tool"]
        self.assertEqual(len(tool_msgs), 5000)
        self.assertIn("only the first 64 of a reply are run", tool_msgs[-1]["content"])
        self.assertNotIn("only the first 64", tool_msgs[63]["content"])
        self.assertEqual(atif_check.problems(r.json("trajectory.json")), [])
        self.assertEqual(r.json("summary.json")["tool_calls"], 64)

    def test_calls_at_the_cap_all_run(self):
        r, _ = self.run_style("openai-chat", [{"tool_calls": self.calls(64)}, {"text": "done"}])
        self.assertEqual(r.code, 0, r.stderr[-3000:])
        self.assertNotIn("tool calls in one reply", r.stderr)
        self.assertEqual(r.json("summary.json")["tool_calls"], 64)


for _style in ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama"):
    for _check in ("deep_body", "deep_stream_line", "no_usage", "odd_types", "odd_stream"):
        setattr(HostileReplies, f"test_{_check}_{_style.replace('-', '_')}",
                lambda self, s=_style, c=_check: getattr(self, "check_" + c)(s))


class WireHygiene(RunTestCase):
    """What goes over the wire besides the messages: prompt caching where the
    service offers it, the region refusal as its own permanent error, and a
    lean run_shell result with the full record kept in the event log."""

    SHELL = {"turns": [
        {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "echo one"}}]},
        {"tool_calls": [{"id": "c2", "name": "run_shell", "arguments": {"command": "mkdir -p sub && cd sub && false"}}]},
        {"tool_calls": [{"id": "c3", "name": "run_shell", "arguments": {"command": "true"}}]},
        {"text": "done"}]}

    def test_openai_prompt_cache_key_is_stable_per_session(self):
        keys = []
        for _ in range(2):
            server = self.server(TWO_TURNS)
            r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                            openai_env(self, server))
            self.assertEqual(r.code, 0, r.stderr)
            reqs = server.requests()
            self.assertEqual(len(reqs), 2)
            run_keys = [q["body"].get("prompt_cache_key") for q in reqs]
            self.assertIsNotNone(run_keys[0])
            self.assertEqual(run_keys[0], run_keys[1])
            keys.append(run_keys[0])
        # Another session, another key; and no session id goes out as such.
        self.assertNotEqual(keys[0], keys[1])

    def test_compatible_servers_get_no_cache_key(self):
        # Control: the member is OpenAI's; a strict compatible server would refuse it.
        model, env_for, _, _ = STYLES["vllm"]
        server = self.server(TWO_TURNS)
        r = self.run_ow(["--model", model, "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.env(**env_for(server.url)))
        self.assertEqual(r.code, 0, r.stderr)
        for q in server.requests():
            self.assertNotIn("prompt_cache_key", q["body"])
            self.assertEqual(wire_schema.problems(q), [])

    def test_anthropic_breakpoints(self):
        model, env_for, _, _ = STYLES["anthropic"]
        server = self.server(self.SHELL)
        r = self.run_ow(["--model", model, "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        self.env(**env_for(server.url)))
        self.assertEqual(r.code, 0, r.stderr)
        last = server.requests()[-1]["body"]
        self.assertIn("cache_control", last["system"][-1])
        self.assertIn("cache_control", last["tools"][-1])
        self.assertNotIn("cache_control", last["tools"][0])
        self.assertIn("cache_control", last["messages"][-1]["content"][-1])
        # The rolling point: where the previous request ended.
        self.assertIn("cache_control", last["messages"][-3]["content"][-1])
        self.assertEqual(json.dumps(last).count('"cache_control"'), 4)

    def test_region_refusal_is_permanent_mid_stream(self):
        server = self.server({"turns": [
            {"text": "Starting", "error": {"kind": "permission", "in_stream": True}},
            {"text": "never served"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 3, r.stderr)
        self.assertEqual(len(server.requests()), 1)  # not retried
        self.assertIn("country or region", r.stderr)
        self.assertNotIn("set a valid key", r.stderr.lower())
        self.assertNotIn("retry 1/2", r.stderr)

    def test_in_stream_failure_still_retried(self):
        # Control: the same stream failing as an overload is retried.
        server = self.server({"turns": [
            {"text": "Starting", "error": {"kind": "overloaded", "in_stream": True}},
            {"text": "recovered"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        self.assertEqual(len(server.requests()), 2)

    def test_shell_result_is_lean_and_the_record_whole(self):
        server = self.server(self.SHELL)
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        tool = {m["tool_call_id"]: m["content"] for m in r.json("messages.json") if m["role"] == "tool"}
        sub = os.path.join(os.path.realpath(self.ws), "sub")
        self.assertEqual(tool["c1"], "one")
        self.assertEqual(tool["c2"], f"[exit code 1]\n[now in {sub}]")
        self.assertEqual(tool["c3"], "(no output)")  # same folder, exit 0: nothing else to say
        # What the model was sent is that text, not the record.
        sent = json.dumps(server.requests()[-1]["body"]["messages"])
        for word in ("timed_out", "truncated", '\\"cwd\\"', "mkdir -p sub && cd sub && false\\\", \\\"cwd"):
            self.assertNotIn(word, sent)
        # The event log keeps everything.
        finished = {e["data"]["call_id"]: e["data"] for e in r.lines("events.jsonl") if e["type"] == "tool_finished"}
        rec = finished["c2"]["result"]
        self.assertEqual(rec["command"], "mkdir -p sub && cd sub && false")
        self.assertEqual(rec["cwd"], sub)
        self.assertEqual(rec["exit_code"], 1)
        self.assertIs(rec["timed_out"], False)
        self.assertIs(rec["truncated"], False)
        self.assertEqual(finished["c1"]["result"]["output"], "one\n")


class ToolSalvage(RunTestCase):
    """A local model that writes its tool call as text gets it run, only for
    an offered tool and never from a code block; the cloud wires, which have
    structured calls, are left alone."""

    def run_text_reply(self, style, text):
        model, env_for, _, _ = STYLES[style]
        server = self.server({"turns": [{"text": text}, {"text": "finished"}]})
        r = self.run_ow(["--model", model, "--approval-mode", "bypass-approvals", "--prompt", "make it"],
                        self.env(**env_for(server.url)))
        self.assertEqual(r.code, 0, r.stderr)
        return r, server.requests()

    def test_local_wires_salvage_offered_calls(self):
        for style, text in (
                ("ollama", '<tool_call>\n{"name": "run_shell", "arguments": {"command": "echo hi > made.txt"}}\n</tool_call>'),
                ("vllm", "Making it.\n<function=run_shell>\n<parameter=command>\necho hi > made.txt\n</parameter>\n"
                         "</function>"),
                ("openai-chat", '{"name": "run_shell", "arguments": {"command": "echo hi > made.txt"}}')):
            made = os.path.join(self.ws, "made.txt")
            if os.path.exists(made):
                os.unlink(made)
            r, reqs = self.run_text_reply(style, text)
            self.assertTrue(os.path.exists(made), style)
            self.assertEqual(len(reqs), 2, style)
            # The history holds a real call, answered on the wire's own terms.
            self.assertEqual(wire_schema.problems(reqs[1]), [], style)
            assistant = [m for m in r.json("messages.json") if m["role"] == "assistant"][0]
            self.assertEqual(assistant["tool_calls"][0]["function"]["name"], "run_shell", style)
            self.assertNotIn("<tool_call>", assistant["content"])
            self.assertNotIn("<function=", assistant["content"])

    def test_unoffered_and_example_calls_stay_text(self):
        for text in ('<tool_call>{"name": "format_disk", "arguments": {}}</tool_call>',
                     'To run it yourself:\n```\n<tool_call>{"name": "run_shell", "arguments": '
                     '{"command": "echo hi > made.txt"}}</tool_call>\n```'):
            r, reqs = self.run_text_reply("ollama", text)
            self.assertFalse(os.path.exists(os.path.join(self.ws, "made.txt")), text)
            self.assertEqual(len(reqs), 1, text)  # the reply was the answer
            self.assertEqual(r.json("summary.json")["tool_calls"], 0)

    def test_cloud_wires_are_left_alone(self):
        r, reqs = self.run_text_reply(
            "anthropic", '<tool_call>{"name": "run_shell", "arguments": {"command": "echo hi > made.txt"}}</tool_call>')
        self.assertFalse(os.path.exists(os.path.join(self.ws, "made.txt")))
        self.assertEqual(len(reqs), 1)


class ReadsAtOnce(RunTestCase):
    """Low-risk reads of one reply run at once; everything else in order, and
    the results go back in the order the model asked. The overlap is proved
    by the calls themselves, not by a clock: a stand-in git makes `status`
    and `log` each wait until the other has started, which can only happen
    when both run together (run one after the other, the first gives up
    after its bound and says so)."""

    FAKE_GIT = """#!/bin/sh
me=other; peer=other
# Only the tools' own calls coordinate (the system prompt's git lines use
# other options and get nothing).
case " $* " in
  *" status --short --branch "*) me=status; peer=log ;;
  *" --date=short "*) me=log; peer=status ;;
  *) exit 0 ;;
esac
touch "$PWD/.started-$me"
i=0
while [ ! -e "$PWD/.started-$peer" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
if [ -e "$PWD/.started-$peer" ]; then said="$me saw $peer running"; else said="$me ran alone"; fi
if [ $me = log ]; then printf 'abc1234\\037A\\0372026-01-01\\037%s\\n' "$said"; else echo "## $said"; fi
"""

    def test_reads_overlap_and_results_keep_their_order(self):
        bindir = os.path.join(self.tmp, "bin")
        os.makedirs(bindir)
        git = os.path.join(bindir, "git")
        with open(git, "w") as f:
            f.write(self.FAKE_GIT)
        os.chmod(git, 0o755)
        # The git tools are offered in a repository.
        subprocess.run(["git", "init", "-q", self.ws], check=True)
        server = self.server({"turns": [
            {"tool_calls": [{"id": "r1", "name": "git_status", "arguments": {}},
                            {"id": "r2", "name": "git_log", "arguments": {}},
                            {"id": "w1", "name": "write_file", "arguments": {"path": "n.txt", "content": "new"}},
                            {"id": "r3", "name": "read_file", "arguments": {"path": "n.txt"}}]},
            {"text": "done"}]})
        env = openai_env(self, server)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        r = self.run_ow(["--model", "openai:gpt-4o", "--coworker", "code", "--approval-mode", "bypass-approvals",
                         "--prompt", "x"], env)
        self.assertEqual(r.code, 0, r.stderr)
        tool = [m for m in r.json("messages.json") if m["role"] == "tool"]
        self.assertEqual([m["tool_call_id"] for m in tool], ["r1", "r2", "w1", "r3"])
        self.assertIn("status saw log running", tool[0]["content"])
        self.assertIn("log saw status running", tool[1]["content"])
        # The read after the write is not started ahead of it: it sees the file.
        self.assertIn("new", tool[3]["content"])
        # Every surface sees each call's events in the order it was asked.
        events = [(e["type"], e["data"]["call_id"]) for e in r.lines("events.jsonl")
                  if e["type"] in ("tool_started", "tool_finished")]
        self.assertEqual(events, [("tool_started", "r1"), ("tool_finished", "r1"), ("tool_started", "r2"),
                                  ("tool_finished", "r2"), ("tool_started", "w1"), ("tool_finished", "w1"),
                                  ("tool_started", "r3"), ("tool_finished", "r3")])
        self.assertEqual(wire_schema.problems(server.requests()[1]), [])


class WireSchemaSelfTest(unittest.TestCase):
    """The request schemas must be able to fail: a good body of each wire
    passes, and the same body with one member the wire does not define on a
    message (the finish_reason we used to send, among others) fails."""

    CALL = {"id": "call_1", "type": "function", "function": {"name": "run_shell", "arguments": "{}"}}
    GOOD = {
        "/v1/chat/completions": {"model": "m", "stream": True, "messages": [
            {"role": "system", "content": "s"}, {"role": "user", "content": "u"},
            {"role": "assistant", "content": "", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"}]},
        "/v1/responses": {"model": "m", "input": [
            {"role": "user", "content": "u"},
            {"type": "function_call", "call_id": "call_1", "name": "run_shell", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "ok"}]},
        "/v1/messages": {"model": "m", "max_tokens": 10, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "u"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "run_shell", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}]},
        "/v1beta/models/g:streamGenerateContent": {"contents": [
            {"role": "user", "parts": [{"text": "u"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "run_shell", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run_shell", "response": {"r": "ok"}}}]}]},
        "/api/chat": {"model": "m", "messages": [
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "run_shell", "arguments": {}}}]},
            {"role": "tool", "tool_name": "run_shell", "content": "ok"}]},
    }

    def request(self, path, body):
        return {"method": "POST", "path": path, "body": body}

    def test_good_passes(self):
        for path, body in self.GOOD.items():
            self.assertEqual(wire_schema.problems(self.request(path, body)), [], path)

    def test_unknown_members_fail(self):
        for path, body in self.GOOD.items():
            key = "contents" if "contents" in body else "input" if "input" in body else "messages"
            for i in range(len(body[key])):
                for extra in ({"finish_reason": "tool_calls"}, {"ts": 1}, {"_openai": {}}):
                    bad = json.loads(json.dumps(body))
                    bad[key][i].update(extra)
                    self.assertNotEqual(wire_schema.problems(self.request(path, bad)), [], (path, i, extra))
            bad = dict(body, unknown_member=1)
            self.assertNotEqual(wire_schema.problems(self.request(path, bad)), [], path)

    def test_chat_tool_arguments_are_text(self):
        bad = json.loads(json.dumps(self.GOOD["/v1/chat/completions"]))
        bad["messages"][2]["tool_calls"][0]["function"]["arguments"] = {}
        self.assertNotEqual(wire_schema.problems(self.request("/v1/chat/completions", bad)), [])

    def test_unknown_route_is_a_problem(self):
        self.assertNotEqual(wire_schema.problems(self.request("/v2/elsewhere", {})), [])


class AtifCheckSelfTest(unittest.TestCase):
    """The independent checker must be able to fail."""

    GOOD = {"schema_version": "ATIF-v1.7", "agent": {"name": "a", "version": "1"},
            "steps": [{"step_id": 1, "source": "user", "message": "hi"},
                      {"step_id": 2, "source": "agent", "message": "",
                       "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": {}}],
                       "observation": {"results": [{"source_call_id": "c", "content": "x"}]}}]}

    def mutated(self, fn):
        t = json.loads(json.dumps(self.GOOD))
        fn(t)
        return atif_check.problems(t)

    def test_good_passes(self):
        self.assertEqual(atif_check.problems(self.GOOD), [])

    def test_bad_fail(self):
        bad = [
            lambda t: t["steps"][1].update(step_id=5),
            lambda t: t["steps"][0].update(model_name="m"),
            lambda t: t["steps"][1]["observation"]["results"][0].update(source_call_id="zz"),
            lambda t: t["steps"][1]["tool_calls"][0].update(arguments="{}"),
            lambda t: t.update(unknown=1),
            lambda t: t["steps"][0].update(timestamp="not a time"),
            lambda t: t["steps"][1].update(llm_call_count=0, metrics={"prompt_tokens": 1}),
            lambda t: t.update(steps=[]),
        ]
        for fn in bad:
            self.assertNotEqual(self.mutated(fn), [])



class Steps(RunTestCase):
    """What a person watching a run is told: each command's output, the
    refusals in the closing line, a retry's cause once, and the read-only
    grant doing what its label says."""

    def test_command_output_under_its_step(self):
        key = TEST_KEYS["OPENAI_API_KEY"]
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell",
                             "arguments": {"command": f"seq 1 9; echo 'the key is {key}'; exit 3"}}]},
            {"tool_calls": [{"id": "c2", "name": "run_shell", "arguments": {"command": "echo fine"}}]},
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                                                 "--prompt", "x"], openai_env(self, server), [])
        self.assertEqual(code, 0, transcript)
        lines = [l.rstrip("\r") for l in transcript.split("\n")]
        # The last six lines of output, the hidden ones counted, the key redacted.
        self.assertIn("    │ … 4 earlier lines", lines, transcript)
        for n in range(5, 10):
            self.assertIn(f"    │ {n}", lines)
        self.assertNotIn("    │ 4", lines)
        self.assertNotIn(key, transcript)
        self.assertTrue(any(l.startswith("    │ the key is ") for l in lines), transcript)
        self.assertIn("    └ exit code 3", lines)
        # A command that succeeds shows its output and no exit code.
        after = lines[next(i for i, l in enumerate(lines) if "run_shell echo fine" in l):]
        self.assertEqual(after[1], "    │ fine")
        self.assertFalse(after[2].startswith("    └ exit code"), after[:4])

    WRITE = Approvals.WRITE

    def test_closing_line_counts_refused_calls(self):
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "write a"], openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        closing = r.stderr.strip().split("\n")[-1]
        self.assertIn("completed · 2 iterations · 0 tool calls run, 1 refused ·", closing)
        # Positive control: the same run allowed says nothing of refusals.
        server = self.server(self.WRITE)
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "write a"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        closing = r.stderr.strip().split("\n")[-1]
        self.assertIn("completed · 2 iterations · 1 tool call run ·", closing)
        self.assertNotIn("refused", closing)

    def test_unreachable_host_cause_said_once(self):
        env = self.env(OPENAI_BASE_URL="http://127.0.0.1:9/v1", OPENAI_API_KEY=TEST_KEYS["OPENAI_API_KEY"],
                       OPENWORKER_RETRY_DELAYS="0.05,0.05,0.05")
        r = self.run_ow(["--model", "openai:gpt-4o", "--prompt", "x"], env)
        self.assertEqual(r.code, 3, r.stderr)
        retry_lines = [l for l in r.stderr.split("\n") if "retry " in l]
        self.assertEqual(len(retry_lines), 3, r.stderr)
        self.assertRegex(retry_lines[0], r"provider error \(\w+: .+\); retry 1/3 in 0\.05s$")
        self.assertEqual(retry_lines[0].count("Connection refused"), 1, retry_lines[0])
        self.assertEqual(retry_lines[1], "openworker: retry 2/3 in 0.05s")
        self.assertEqual(retry_lines[2], "openworker: retry 3/3 in 0.05s")


    def test_allow_read_only_commands_allows_them(self):
        with open(os.path.join(self.ws, "a.txt"), "w") as f:
            f.write("alpha\n")
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": "cat a.txt"}}]},
            {"tool_calls": [{"id": "c2", "name": "run_shell", "arguments": {"command": "ls | wc -l"}}]},
            {"tool_calls": [{"id": "c3", "name": "run_shell", "arguments": {"command": "touch b.txt"}}]},
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(["--model", "openai:gpt-4o", "--prompt", "x"],
                                                openai_env(self, server), [("Allow?", "r"), ("Allow?", "n")])
        self.assertEqual(code, 0, transcript)
        prompts = [p for p in transcript.split("Allow?")[1:]]
        # Asked for cat (with the grant offered) and for touch (without it);
        # ls | wc ran under the grant.
        self.assertEqual(len(prompts), 2, transcript)
        self.assertIn("[r] all read-only commands", prompts[0])
        self.assertNotIn("[r] all read-only commands", prompts[1])
        self.assertIn("    │ alpha", transcript)
        self.assertFalse(os.path.exists(os.path.join(self.ws, "b.txt")))
        summary = self.result_json("summary.json")
        self.assertEqual(summary["approval_mode"], "ask")   # the session was not put in plan mode
        self.assertEqual(summary["tool_results"], {"ok": 2, "denied": 1})
        db = sqlite3.connect(os.path.join(self.out, "audit.db"))
        rows = db.execute("SELECT call_id, stage, provenance FROM audit_events WHERE stage IN "
                          "('approval_resolved', 'auto_allowed') ORDER BY id").fetchall()
        self.assertEqual(rows, [("c1", "approval_resolved", "user-approved read-only commands for session"),
                                ("c2", "auto_allowed", "user-approved read-only commands for session"),
                                ("c3", "approval_resolved", "denied by person")])
        with open(os.path.join(self.out, "events.jsonl")) as f:
            events = [json.loads(l) for l in f if l.strip()]
        offered = {e["data"]["call_id"]: e["data"]["readonly_ok"] for e in events if e["type"] == "permission_required"}
        self.assertEqual(offered, {"c1": True, "c3": False})

    def test_write_outside_the_folders_refused_without_a_card(self):
        outside = os.path.join(self.tmp, "outside.txt")
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "write_file", "arguments": {"path": outside, "content": "X"}}]},
            {"tool_calls": [{"id": "c2", "name": "write_file", "arguments": {"path": "inside.txt", "content": "I"}}]},
            {"text": "done"}]})
        code, transcript = self.run_at_terminal(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals",
                                                 "--prompt", "x"], openai_env(self, server), [("Allow?", "y")])
        self.assertEqual(code, 0, transcript)
        self.assertNotIn("Allow?", transcript)
        self.assertFalse(os.path.exists(outside))
        self.assertIn("path is not in a writable directory", json.dumps(server.requests()[1]["body"]))
        # Positive control: the write inside the folder ran in the same run.
        with open(os.path.join(self.ws, "inside.txt")) as f:
            self.assertEqual(f.read(), "I")

    def test_files_a_command_changed_are_recorded(self):
        ws = os.path.realpath(self.ws)
        with open(os.path.join(ws, "old.txt"), "w") as f:
            f.write("untouched")
        with open(os.path.join(ws, "edited.txt"), "w") as f:
            f.write("before")
        os.makedirs(os.path.join(ws, ".git"))
        os.makedirs(os.path.join(ws, "node_modules"))
        command = ("printf one > made.txt && mkdir -p out/deep && printf 'a,b' > out/deep/t.csv"
                   " && printf after > edited.txt && printf x > .git/HEAD && printf y > node_modules/m.js; exit 1")
        server = self.server({"turns": [
            {"tool_calls": [{"id": "c1", "name": "run_shell", "arguments": {"command": command}}]},
            {"tool_calls": [{"id": "c2", "name": "run_shell", "arguments": {"command": "cat made.txt"}}]},
            {"text": "done"}]})
        r = self.run_ow(["--model", "openai:gpt-4o", "--approval-mode", "bypass-approvals", "--prompt", "x"],
                        openai_env(self, server))
        self.assertEqual(r.code, 0, r.stderr)
        finished = {e["data"]["call_id"]: e["data"] for e in r.lines("events.jsonl") if e["type"] == "tool_finished"}
        # Made or changed, in the session's folder, even by a command that failed;
        # not what it only read, nor .git or node_modules.
        self.assertEqual(finished["c1"]["files_changed"],
                         [os.path.join(ws, p) for p in ("edited.txt", "made.txt", "out/deep/t.csv")])
        self.assertNotIn("files_changed", finished["c2"])

    def result_json(self, name):
        with open(os.path.join(self.out, name)) as f:
            return json.load(f)


if __name__ == "__main__":
    unittest.main()
