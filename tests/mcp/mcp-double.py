#!/usr/bin/env python3
"""mcp-double.py: a hostile stdio MCP server for the client's tests.

It speaks the real wire (newline-delimited JSON-RPC 2.0) and misbehaves on
request, one tool per misbehaviour. Settings come from the environment:
DOUBLE_VERSION (the protocolVersion it answers, default 2025-06-18),
DOUBLE_EARLY_LIST_CHANGED (send list_changed before the initialize reply),
DOUBLE_DIE_ON_INIT (exit at once with a message on stderr), DOUBLE_PAGE
(tools per tools/list page, default 2), DOUBLE_MODERN (speak the stateless
2026-07-28 generation: server/discover, _meta on every request, no
initialize), DOUBLE_SILENT_DISCOVER (a 2025 server that never answers
server/discover), DOUBLE_IGNORE_EOF (stay alive when stdin closes, as a
careless server does, so only a signal ends it), DOUBLE_PROVIDER (five more
tools for the tool provider's tests: peek, annotated read-only; rich, every
kind of content block with structured content; refuse, a JSON-RPC error;
grow and shrink, which add the tool "grown" or remove "echo" and say
list_changed before they answer; dup.name and dup_name, one name once
sanitized, which answer with their own).
"""
import base64
import json
import os
import sys
import threading
import time

out_lock = threading.Lock()
state = {"listings": 0, "cancelled": [], "waiting": {}, "last_meta": None}
MODERN = bool(os.environ.get("DOUBLE_MODERN"))
META = "io.modelcontextprotocol/"


def send(obj):
    line = json.dumps(obj, separators=(",", ":"))
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def raw(text):
    with out_lock:
        sys.stdout.write(text)
        sys.stdout.flush()


def text_result(rid, text, structured=None, is_error=False):
    result = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        result["structuredContent"] = structured
    if MODERN:
        result["resultType"] = "complete"
    send({"jsonrpc": "2.0", "id": rid, "result": result})


WEATHER = {
    "type": "object",
    "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
    "required": ["temperature", "conditions"],
}

TOOLS = [
    {"name": "echo", "description": "Echoes its message.",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
    {"name": "garbage", "inputSchema": {"type": "object"}},
    {"name": "huge", "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}}}},
    {"name": "hang", "inputSchema": {"type": "object"}},
    {"name": "progress_hang", "inputSchema": {"type": "object"}},
    {"name": "slow_progress", "inputSchema": {"type": "object"}},
    {"name": "storm", "inputSchema": {"type": "object"}},
    {"name": "stats", "inputSchema": {"type": "object"}},
    {"name": "ask_sampling", "inputSchema": {"type": "object"}},
    {"name": "ask_ping", "inputSchema": {"type": "object"}},
    {"name": "crash", "inputSchema": {"type": "object"}},
    {"name": "good_structured", "inputSchema": {"type": "object"}, "outputSchema": WEATHER},
    {"name": "bad_structured", "inputSchema": {"type": "object"}, "outputSchema": WEATHER},
    {"name": "fails", "inputSchema": {"type": "object"}},
    {"name": "odd name/with.dots", "inputSchema": {"type": "object"}},
]
if os.environ.get("DOUBLE_PROVIDER"):
    TOOLS += [
        {"name": "peek", "title": "Peek at things", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": True, "destructiveHint": False, "openWorldHint": False}},
        {"name": "rich", "inputSchema": {"type": "object"}, "outputSchema": WEATHER},
        {"name": "refuse", "inputSchema": {"type": "object"}},
        {"name": "grow", "inputSchema": {"type": "object"}},
        {"name": "shrink", "inputSchema": {"type": "object"}},
        {"name": "dup.name", "inputSchema": {"type": "object"}},
        {"name": "dup_name", "inputSchema": {"type": "object"}},
    ]
# The bytes of rich's image block, sent in base64 (not valid UTF-8 on purpose).
PIXELS = b"\x89PNG\r\n\x1a\n\x00\xff\xfe owtest"
if MODERN:
    TOOLS = TOOLS[:1] + [{"name": "needs_input", "inputSchema": {"type": "object"}},
                         {"name": "meta", "inputSchema": {"type": "object"}}]


def progress_loop(token, rid, count, gap, then_answer):
    for i in range(count):
        time.sleep(gap)
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": i + 1, "total": count, "message": "step"}})
    if then_answer:
        text_result(rid, "done after %d steps" % count)


def call_tool(rid, params):
    name = params.get("name")
    args = params.get("arguments") or {}
    token = (params.get("_meta") or {}).get("progressToken")
    if name == "echo":
        text_result(rid, "echo: " + str(args.get("message", "")))
    elif name == "garbage":
        raw("this is not json\n")
        raw("[1,2,3]\n")
        raw('{"jsonrpc":"2.0","id":\n')
        raw('{"jsonrpc":"1.0","id":1,"result":{}}\n')
        raw("\x00\xff binary\n")
        raw("   \n")
        text_result(rid, "survived")
    elif name == "huge":
        size = int(args.get("bytes", 1 << 20))
        text_result(rid, "x" * size)
    elif name == "hang":
        pass
    elif name == "progress_hang":
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": 1}})
    elif name == "slow_progress":
        count = int(args.get("count", 6))
        gap = float(args.get("gap", 0.1))
        threading.Thread(target=progress_loop, args=(token, rid, count, gap, args.get("answer", True)),
                         daemon=True).start()
    elif name == "storm":
        for _ in range(int(args.get("count", 200))):
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text_result(rid, "stormed")
    elif name == "stats":
        text_result(rid, json.dumps(state_view()), structured=state_view())
    elif name == "ask_sampling":
        state["waiting"]["s1"] = rid
        send({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
              "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                         "maxTokens": 10}})
    elif name == "ask_ping":
        state["waiting"]["p1"] = rid
        send({"jsonrpc": "2.0", "id": "p1", "method": "ping"})
    elif name == "crash":
        sys.stderr.write("boom: the double crashed on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "good_structured":
        data = {"temperature": 21.5, "conditions": "sunny"}
        text_result(rid, json.dumps(data), structured=data)
    elif name == "bad_structured":
        data = {"temperature": "warm", "conditions": "sunny"}
        text_result(rid, json.dumps(data), structured=data)
    elif name == "needs_input":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "resultType": "input_required", "requestState": "opaque",
            "inputRequests": {"k1": {"method": "elicitation/create",
                                     "params": {"message": "Which account?", "requestedSchema": {"type": "object"}}}}}})
    elif name == "meta":
        text_result(rid, json.dumps(state["last_meta"]))
    elif name == "peek":
        text_result(rid, "peeked")
    elif name == "rich":
        data = {"temperature": 3.5, "conditions": "snow"}
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [
                {"type": "text", "text": "a picture and a report"},
                {"type": "image", "data": base64.b64encode(PIXELS).decode("ascii"), "mimeType": "image/png"},
                {"type": "resource_link", "uri": "file:///srv/report.txt", "name": "report.txt",
                 "mimeType": "text/plain"},
            ],
            "structuredContent": data, "isError": False}})
    elif name == "refuse":
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "the double refuses on purpose"}})
    elif name == "grow":
        TOOLS.append({"name": "grown", "inputSchema": {"type": "object"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text_result(rid, "grew")
    elif name == "shrink":
        TOOLS[:] = [t for t in TOOLS if t["name"] != "echo"]
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        text_result(rid, "shrank")
    elif name in ("dup.name", "dup_name"):
        text_result(rid, "I am " + name)
    elif name == "odd name/with.dots":
        text_result(rid, "called by its own name")
    elif name == "fails":
        text_result(rid, "the tool failed on purpose", is_error=True)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Unknown tool: %s" % name}})


def state_view():
    return {"listings": state["listings"], "cancelled": state["cancelled"]}


def main():
    if os.environ.get("DOUBLE_DIE_ON_INIT"):
        sys.stderr.write("fatal: missing API token for the double\n")
        sys.stderr.flush()
        sys.exit(2)
    version = os.environ.get("DOUBLE_VERSION", "2025-06-18")
    page = int(os.environ.get("DOUBLE_PAGE", "2"))
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        msg = json.loads(line)
        method = msg.get("method")
        rid = msg.get("id")
        if MODERN and rid is not None and method is not None:
            meta = (msg.get("params") or {}).get("_meta") or {}
            if META + "protocolVersion" not in meta or META + "clientCapabilities" not in meta:
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "missing _meta keys"}})
                continue
            state["last_meta"] = meta
        if method == "server/discover":
            if os.environ.get("DOUBLE_SILENT_DISCOVER"):
                continue
            if not MODERN:
                send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
                continue
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "resultType": "complete", "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "_meta": {META + "serverInfo": {"name": "mcp-double-modern", "version": "2.0"}},
                "instructions": "A modern double.", "ttlMs": 60000, "cacheScope": "public"}})
        elif method == "initialize" and MODERN:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
        elif method == "initialize":
            if os.environ.get("DOUBLE_EARLY_LIST_CHANGED"):
                send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": version,
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "mcp-double", "version": "1.0"},
                "instructions": "A hostile double."}})
        elif method == "tools/list":
            state["listings"] += 1
            start = int((msg.get("params") or {}).get("cursor", "0"))
            result = {"tools": TOOLS[start:start + page]}
            if start + page < len(TOOLS):
                result["nextCursor"] = str(start + page)
            if MODERN:
                result.update({"resultType": "complete", "ttlMs": 60000, "cacheScope": "public"})
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "tools/call":
            call_tool(rid, msg.get("params") or {})
        elif method == "notifications/cancelled":
            state["cancelled"].append((msg.get("params") or {}).get("requestId"))
        elif method is None and rid in state["waiting"]:
            waiting = state["waiting"].pop(rid)
            if "error" in msg:
                text_result(waiting, "client error %d: %s" % (msg["error"]["code"], msg["error"]["message"]))
            else:
                text_result(waiting, "client result " + json.dumps(msg.get("result")))
        elif rid is not None and method is not None and method != "notifications/initialized":
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no " + method}})

    if os.environ.get("DOUBLE_IGNORE_EOF"):
        while True:
            time.sleep(3600)


main()
