#!/usr/bin/env python3
"""An OAuth-protected streamable-HTTP MCP server, for tests.

    mcp-oauth-double.py        prints "PORT\\n" once it listens on 127.0.0.1

tests/oauth/oauth-double.py is the authorization server, unchanged: its
discovery, registration, PKCE, resource and refresh rotation checks all
apply. This adds what it lacks, an MCP server at each scenario's resource:

    POST /mcp/<name>       JSON-RPC (initialize, notifications, tools/list,
                           tools/call of "whoami"), answered as JSON, only
                           with a bearer token the authorization server
                           issued for this resource (else 401 with the
                           scenario's WWW-Authenticate), and with the scope
                           the scenario needs (else 403 insufficient_scope)
    POST /_revoke/<name>   the resource forgets every access token issued
                           for it (the refresh tokens stay, unless
                           /_control/<name> {"revoke": true} says otherwise)
    GET  /_mcp_state       what the MCP side saw: methods, and how many
                           requests carried no token, a good one, a bad one
"""
import importlib.util
import json
import os
import sys
import urllib.parse

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "oauth_double", os.environ.get("OW_OAUTH_DOUBLE", os.path.join(here, "..", "oauth", "oauth-double.py")))
od = importlib.util.module_from_spec(spec)
spec.loader.exec_module(od)

seen = {"methods": [], "no_token": 0, "good_token": 0, "bad_token": 0}


class McpHandler(od.Handler):
    def do_GET(self):
        if urllib.parse.urlsplit(self.path).path == "/_mcp_state":
            with od.lock:
                return self.reply(200, seen)
        return super().do_GET()

    def do_DELETE(self):
        self.reply(405, {"error": "no sessions"})

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/_revoke/"):
            name = path.rsplit("/", 1)[1]
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with od.lock:
                for tok in [t for t, v in od.state["access"].items() if v["resource"] == od.resource(name)]:
                    del od.state["access"][tok]
            return self.reply(200, {"ok": True})
        if path.startswith("/mcp/"):
            with od.lock:
                return self.mcp(path.split("/")[2])
        return super().do_POST()

    def mcp(self, name):
        if name not in od.SCENARIOS:
            return self.reply(404, {"error": "not_found"})
        sc = od.SCENARIOS[name]
        n = int(self.headers.get("Content-Length", "0"))
        msg = json.loads(self.rfile.read(n) or b"{}")
        method = msg.get("method")
        seen["methods"].append(method)
        auth = self.headers.get("Authorization", "")
        params = []
        if sc.get("header_rm"):
            params.append(f'resource_metadata="{od.base()}/prm/{name}"')
        if sc.get("header_scope"):
            params.append(f'scope="{sc["header_scope"]}"')
        tok = od.state["access"].get(auth[7:]) if auth.startswith("Bearer ") else None
        if tok is None or tok["resource"] != od.resource(name):
            seen["bad_token" if auth else "no_token"] += 1
            return self.reply(401, {"error": "invalid_token"},
                              [("WWW-Authenticate", "Bearer " + ", ".join(params) if params else "Bearer")])
        seen["good_token"] += 1
        needs = sc.get("needs")
        if needs and not set(needs) <= set(tok["scope"].split()):
            challenge = f'Bearer error="insufficient_scope", scope="{" ".join(needs)}"'
            if sc.get("header_rm"):
                challenge += f', resource_metadata="{od.base()}/prm/{name}"'
            return self.reply(403, {"error": "insufficient_scope"}, [("WWW-Authenticate", challenge)])
        if "id" not in msg:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if method == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "mcp-oauth-double", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "description": "Says which scope the token has.",
                                 "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": "scope: " + tok["scope"]}]}
        else:
            return self.reply(200, {"jsonrpc": "2.0", "id": msg["id"],
                                    "error": {"code": -32601, "message": "no such method"}})
        return self.reply(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})


if __name__ == "__main__":
    od.Handler = McpHandler
    od.main()
