"""An independent check of ATIF-v1.7 trajectories for OpenWorker's tests.

The JSON schema (atif-v1.7.schema.json) covers shapes and unknown keys; the
functions here add the validator's cross-field rules: step ids 1..n,
agent-only fields, llm_call_count, observations tied to calls of the same
step, unique call ids, ISO 8601 timestamps and subagent references.
"""
import datetime
import json
import os

import jsonschema

_SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "atif-v1.7.schema.json")
_AGENT_ONLY = ("model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics")


def _schema():
    with open(_SCHEMA_PATH) as f:
        return json.load(f)


def problems(trajectory, embedded=False):
    """Returns a list of problems; empty when the trajectory is valid."""
    found = [f"schema: {e.message} at {list(e.absolute_path)}"
             for e in jsonschema.Draft202012Validator(_schema()).iter_errors(trajectory)]
    if found:
        return found
    if embedded and not trajectory.get("trajectory_id"):
        found.append("embedded trajectory without trajectory_id")
    sub_ids = []
    for sub in trajectory.get("subagent_trajectories") or []:
        found += problems(sub, embedded=True)
        if sub.get("trajectory_id") in sub_ids:
            found.append(f"duplicate subagent trajectory_id {sub.get('trajectory_id')}")
        sub_ids.append(sub.get("trajectory_id"))
    for i, step in enumerate(trajectory["steps"]):
        where = f"steps[{i}]"
        if step["step_id"] != i + 1:
            found.append(f"{where}.step_id: expected {i + 1}, got {step['step_id']}")
        if step.get("timestamp") is not None:
            try:
                datetime.datetime.fromisoformat(step["timestamp"].replace("Z", "+00:00"))
            except ValueError:
                found.append(f"{where}.timestamp: not ISO 8601")
        if step["source"] != "agent":
            for key in _AGENT_ONLY:
                if step.get(key) is not None:
                    found.append(f"{where}.{key}: only for agent steps")
        if step.get("llm_call_count") == 0 and step["source"] == "agent":
            if step.get("metrics") is not None or step.get("reasoning_content") is not None:
                found.append(f"{where}: llm_call_count 0 with metrics or reasoning_content")
        ids = [c["tool_call_id"] for c in step.get("tool_calls") or []]
        if len(ids) != len(set(ids)):
            found.append(f"{where}: duplicate tool_call_id")
        for r in (step.get("observation") or {}).get("results", []):
            sid = r.get("source_call_id")
            if sid is not None and sid not in ids:
                found.append(f"{where}: observation for {sid} matches no call of the same step")
            for ref in r.get("subagent_trajectory_ref") or []:
                if not ref.get("trajectory_id") and not ref.get("trajectory_path"):
                    found.append(f"{where}: subagent ref without id or path")
                if not ref.get("trajectory_path") and ref.get("trajectory_id") not in sub_ids:
                    found.append(f"{where}: subagent ref {ref.get('trajectory_id')} unresolved")
    return found


def check_file(path):
    with open(path) as f:
        return problems(json.load(f))
