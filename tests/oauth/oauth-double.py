#!/usr/bin/env python3
"""A loopback OAuth authorization server and protected resource, for tests.

    oauth-double.py            prints "PORT\\n" once it listens on 127.0.0.1

It speaks the real wire, and checks it: RFC 9728 protected resource
metadata, RFC 8414 / OpenID Connect discovery, RFC 7591 registration,
authorization codes with PKCE (the code_verifier is hashed and compared
with the challenge), RFC 8707 resource on both requests, the redirect URI
registered, client authentication, refresh token rotation (a refresh token
works once), and RFC 9207 iss on the redirect. Each scenario lives under its
own paths: the resource at /mcp/<name>, the issuer at /as/<name>.

    GET  /_state           counters and the last tokens issued, as JSON
    POST /_control/<name>  {"expires_in": N, "revoke": true} changes a scenario
"""
import base64
import hashlib
import json
import secrets
import sys
import threading
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKER = "owtest-secret-Zq8"
PRE_CLIENT = ("ow-pre-client", MARKER + "-client-secret")

SCENARIOS = {
    # Full discovery from the header, dynamic registration, iss on the redirect.
    "dcr": dict(header_rm=True, registration=True, iss=True, prm_scopes=["read", "write"], header_scope="read"),
    # No resource_metadata in the header; a client registered by hand (Basic auth).
    "prereg": dict(header_rm=False, registration=False, prereg=True),
    # Client ID metadata documents.
    "cimd": dict(header_rm=True, registration=False, cimd=True),
    # Only OpenID Connect discovery, at the issuer's path.
    "oidc": dict(header_rm=False, registration=True, oidc_only=True),
    # PKCE without S256, and metadata that does not mention PKCE at all.
    "nos256": dict(header_rm=True, registration=True, methods=["plain"]),
    "nopkce": dict(header_rm=True, registration=True, methods=None),
    # Resource metadata about another resource; AS metadata naming another issuer.
    "resmismatch": dict(header_rm=True, registration=True, prm_resource="/mcp/elsewhere"),
    "issmismatch": dict(header_rm=True, registration=True, md_issuer="/as/elsewhere"),
    # The redirect names another issuer.
    "badiss": dict(header_rm=True, registration=True, iss=True, iss_value="http://127.0.0.1:1/as/evil"),
    # The resource needs "read write"; the first sign-in asks for "read".
    "stepup": dict(header_rm=True, registration=True, header_scope="read", needs=["read", "write"],
                   grantable=["read", "write"]),
    # The resource asks for a scope the server never grants.
    "greedy": dict(header_rm=True, registration=True, header_scope="read", needs=["read", "admin"],
                   grantable=["read", "write"]),
}

lock = threading.Lock()
state = {
    "port": 0,
    "clients": {},        # client_id -> {redirect_uris, secret}
    "codes": {},          # code -> {...}
    "access": {},         # access token -> {resource, scope}
    "refresh": {},        # refresh token -> {client_id, resource, scope, used}
    "counts": {},         # name -> n
    "last": {},           # what was issued last, per scenario
    "errors": [],         # every refusal, with its reason
    "control": {name: {"expires_in": 3600, "revoke": False} for name in SCENARIOS},
}


def count(name):
    state["counts"][name] = state["counts"].get(name, 0) + 1


def base():
    return f"http://127.0.0.1:{state['port']}"


def issuer(name):
    return f"{base()}/as/{name}"


def resource(name):
    return f"{base()}/mcp/{name}"


def s256(verifier):
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def as_metadata(name):
    sc = SCENARIOS[name]
    iss = issuer(name)
    md = {
        "issuer": iss,
        "authorization_endpoint": iss + "/authorize",
        "token_endpoint": iss + "/token",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "scopes_supported": sc.get("grantable", ["read", "write"]),
    }
    if sc.get("methods", ["S256"]) is not None:
        md["code_challenge_methods_supported"] = sc.get("methods", ["S256"])
    if sc.get("md_issuer"):
        md["issuer"] = base() + sc["md_issuer"]
    if sc.get("registration"):
        md["registration_endpoint"] = iss + "/register"
    if sc.get("cimd"):
        md["client_id_metadata_document_supported"] = True
    if sc.get("iss"):
        md["authorization_response_iss_parameter_supported"] = True
    if sc.get("prereg"):
        md["token_endpoint_auth_methods_supported"] = ["client_secret_basic", "client_secret_post"]
    return md


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def refuse(self, status, error, why):
        state["errors"].append(f"{self.path.split('?')[0]}: {error}: {why}")
        self.reply(status, {"error": error, "error_description": why})

    def body_form(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n).decode()
        return raw, {k: v[0] for k, v in urllib.parse.parse_qs(raw, keep_blank_values=True).items()}

    # ---- GET ---------------------------------------------------------------

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path, query = url.path, {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        with lock:
            if path == "/_state":
                return self.reply(200, {"counts": state["counts"], "last": state["last"],
                                        "errors": state["errors"], "clients": len(state["clients"])})
            if path == "/clients/openworker.json":
                return self.reply(200, {"client_id": base() + "/clients/openworker.json",
                                        "client_name": "OpenWorker",
                                        "redirect_uris": [state.get("cimd_redirect", "")],
                                        "grant_types": ["authorization_code", "refresh_token"],
                                        "token_endpoint_auth_method": "none"})
            if path.startswith("/.well-known/oauth-protected-resource/mcp/"):
                name = path.rsplit("/", 1)[1]
                if name in SCENARIOS:
                    count("prm:" + name)
                    return self.reply(200, {"resource": resource(name),
                                            "authorization_servers": [issuer(name)],
                                            "scopes_supported": SCENARIOS[name].get("prm_scopes",
                                                                                    ["read", "write"])})
            if path.startswith("/prm/"):
                name = path.rsplit("/", 1)[1]
                if name in SCENARIOS and SCENARIOS[name].get("header_rm"):
                    count("prm:" + name)
                    named = SCENARIOS[name].get("prm_resource")
                    return self.reply(200, {"resource": base() + named if named else resource(name),
                                            "authorization_servers": [issuer(name)],
                                            "scopes_supported": SCENARIOS[name].get("prm_scopes",
                                                                                    ["read", "write"])})
            if path.startswith("/.well-known/oauth-authorization-server/as/"):
                name = path.rsplit("/", 1)[1]
                if name in SCENARIOS and not SCENARIOS[name].get("oidc_only"):
                    return self.reply(200, as_metadata(name))
            if path.startswith("/as/") and path.endswith("/.well-known/openid-configuration"):
                name = path.split("/")[2]
                if name in SCENARIOS and SCENARIOS[name].get("oidc_only"):
                    md = as_metadata(name)
                    md["jwks_uri"] = issuer(name) + "/jwks"
                    md["subject_types_supported"] = ["public"]
                    md["id_token_signing_alg_values_supported"] = ["RS256"]
                    return self.reply(200, md)
            if path.startswith("/as/") and path.endswith("/authorize"):
                return self.authorize(path.split("/")[2], query)
            if path.startswith("/mcp/"):
                return self.resource(path.split("/")[2])
        self.reply(404, {"error": "not_found"})

    def authorize(self, name, q):
        if name not in SCENARIOS:
            return self.reply(404, {"error": "not_found"})
        sc = SCENARIOS[name]
        count("authorize:" + name)
        cid = q.get("client_id", "")
        redirect = q.get("redirect_uri", "")
        if q.get("response_type") != "code":
            return self.refuse(400, "unsupported_response_type", "response_type must be code")
        if sc.get("cimd") and cid == base() + "/clients/openworker.json":
            # Fetch the document the client id names, as a real server does.
            lock.release()
            try:
                with urllib.request.urlopen(cid, timeout=10) as r:
                    doc = json.loads(r.read())
            finally:
                lock.acquire()
            if doc.get("client_id") != cid or redirect not in doc.get("redirect_uris", []):
                return self.refuse(400, "invalid_client", "the metadata document does not list this redirect")
        elif sc.get("prereg") and cid == PRE_CLIENT[0]:
            pass
        elif cid in state["clients"] and state["clients"][cid]["issuer"] == issuer(name):
            if redirect not in state["clients"][cid]["redirect_uris"]:
                return self.refuse(400, "invalid_request", "redirect_uri is not registered")
        else:
            return self.refuse(400, "invalid_client", "unknown client_id")
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return self.refuse(400, "invalid_request", "PKCE S256 is required")
        if q.get("resource") != resource(name):
            return self.refuse(400, "invalid_target", "resource must be " + resource(name))
        if not q.get("state"):
            return self.refuse(400, "invalid_request", "state is required")
        asked = q.get("scope", "").split()
        granted = [s for s in asked if s in sc.get("grantable", ["read", "write"])]
        code = MARKER + "-code-" + secrets.token_urlsafe(12)
        state["codes"][code] = {"client_id": cid, "redirect_uri": redirect, "challenge": q["code_challenge"],
                                "resource": q["resource"], "scope": " ".join(granted), "scenario": name}
        state["last"].setdefault(name, {})["asked_scope"] = q.get("scope")
        params = {"code": code, "state": q["state"]}
        if sc.get("iss"):
            params["iss"] = sc.get("iss_value", issuer(name))
        sep = "&" if "?" in redirect else "?"
        self.reply(302, None, [("Location", redirect + sep + urllib.parse.urlencode(params))])

    def resource(self, name):
        if name not in SCENARIOS:
            return self.reply(404, {"error": "not_found"})
        sc = SCENARIOS[name]
        auth = self.headers.get("Authorization", "")
        params = []
        if sc.get("header_rm"):
            params.append(f'resource_metadata="{base()}/prm/{name}"')
        if sc.get("header_scope"):
            params.append(f'scope="{sc["header_scope"]}"')
        tok = state["access"].get(auth[7:]) if auth.startswith("Bearer ") else None
        if tok is None or tok["resource"] != resource(name):
            return self.reply(401, {"error": "invalid_token"},
                              [("WWW-Authenticate", "Bearer " + ", ".join(params) if params else "Bearer")])
        needs = sc.get("needs")
        if needs and not set(needs) <= set(tok["scope"].split()):
            challenge = f'Bearer error="insufficient_scope", scope="{" ".join(needs)}"'
            if sc.get("header_rm"):
                challenge += f', resource_metadata="{base()}/prm/{name}"'
            return self.reply(403, {"error": "insufficient_scope"}, [("WWW-Authenticate", challenge)])
        self.reply(200, {"ok": True, "scope": tok["scope"]})

    # ---- POST --------------------------------------------------------------

    def do_POST(self):
        path = urllib.parse.urlsplit(self.path).path
        with lock:
            if path.startswith("/_control/"):
                name = path.rsplit("/", 1)[1]
                _, _ = None, None
                n = int(self.headers.get("Content-Length", "0"))
                state["control"][name].update(json.loads(self.rfile.read(n) or b"{}"))
                if "cimd_redirect" in state["control"][name]:
                    state["cimd_redirect"] = state["control"][name]["cimd_redirect"]
                return self.reply(200, {"ok": True})
            if path.startswith("/as/") and path.endswith("/register"):
                return self.register(path.split("/")[2])
            if path.startswith("/as/") and path.endswith("/token"):
                return self.token(path.split("/")[2])
        self.reply(404, {"error": "not_found"})

    def register(self, name):
        if name not in SCENARIOS or not SCENARIOS[name].get("registration"):
            return self.reply(404, {"error": "not_found"})
        count("register:" + name)
        n = int(self.headers.get("Content-Length", "0"))
        try:
            req = json.loads(self.rfile.read(n))
        except ValueError:
            return self.refuse(400, "invalid_client_metadata", "not JSON")
        uris = req.get("redirect_uris")
        if not isinstance(uris, list) or not uris or req.get("application_type") != "native":
            return self.refuse(400, "invalid_redirect_uri", "redirect_uris and application_type native needed")
        cid = "dcr-" + secrets.token_hex(8)
        state["clients"][cid] = {"redirect_uris": uris, "issuer": issuer(name)}
        self.reply(201, {"client_id": cid, "redirect_uris": uris, "token_endpoint_auth_method": "none",
                         "client_name": req.get("client_name")})

    def client_of(self, name, form):
        """The authenticated client id, or None."""
        auth = self.headers.get("Authorization", "")
        if auth.startswith("Basic "):
            cid, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
            cid, secret = urllib.parse.unquote_plus(cid), urllib.parse.unquote_plus(secret)
            return cid if (cid, secret) == PRE_CLIENT and SCENARIOS[name].get("prereg") else None
        cid = form.get("client_id")
        if SCENARIOS[name].get("prereg"):
            return cid if (cid, form.get("client_secret")) == PRE_CLIENT else None
        if SCENARIOS[name].get("cimd") and cid == base() + "/clients/openworker.json":
            return cid
        return cid if cid in state["clients"] else None

    def issue(self, name, cid, res, scope):
        ctl = state["control"][name]
        n = state["counts"].get("issued", 0)
        count("issued")
        access = f"{MARKER}-at-{name}-{n}-{secrets.token_hex(6)}"
        refresh = f"{MARKER}-rt-{name}-{n}-{secrets.token_hex(6)}"
        state["access"][access] = {"resource": res, "scope": scope}
        state["refresh"][refresh] = {"client_id": cid, "resource": res, "scope": scope, "used": False}
        state["last"].setdefault(name, {}).update(access_token=access, refresh_token=refresh, scope=scope)
        self.reply(200, {"access_token": access, "token_type": "Bearer", "expires_in": ctl["expires_in"],
                         "refresh_token": refresh, "scope": scope})

    def token(self, name):
        if name not in SCENARIOS:
            return self.reply(404, {"error": "not_found"})
        _, form = self.body_form()
        cid = self.client_of(name, form)
        if cid is None:
            return self.refuse(401, "invalid_client", "client authentication failed")
        grant = form.get("grant_type")
        if grant == "authorization_code":
            count("code:" + name)
            code = state["codes"].pop(form.get("code", ""), None)
            if code is None or code["scenario"] != name or code["client_id"] != cid:
                return self.refuse(400, "invalid_grant", "unknown or used code")
            if form.get("redirect_uri") != code["redirect_uri"]:
                return self.refuse(400, "invalid_grant", "redirect_uri differs from the authorization request")
            if s256(form.get("code_verifier", "")) != code["challenge"]:
                return self.refuse(400, "invalid_grant", "code_verifier does not match the challenge")
            if form.get("resource") != code["resource"]:
                return self.refuse(400, "invalid_target", "resource differs from the authorization request")
            return self.issue(name, cid, code["resource"], code["scope"])
        if grant == "refresh_token":
            count("refresh:" + name)
            rt = state["refresh"].get(form.get("refresh_token", ""))
            if rt is None or rt["client_id"] != cid:
                return self.refuse(400, "invalid_grant", "unknown refresh token")
            if rt["used"]:
                return self.refuse(400, "invalid_grant", "refresh token already used (rotated)")
            if state["control"][name]["revoke"]:
                return self.refuse(400, "invalid_grant", "the grant was revoked")
            if form.get("resource") != rt["resource"]:
                return self.refuse(400, "invalid_target", "resource differs")
            rt["used"] = True
            return self.issue(name, cid, rt["resource"], rt["scope"])
        self.refuse(400, "unsupported_grant_type", str(grant))


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state["port"] = server.server_address[1]
    print(state["port"], flush=True)
    # Ends when the test closes our stdin.
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
