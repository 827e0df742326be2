#!/usr/bin/env python3
"""A stand-in for NVIDIA's `openshell` CLI (0.1.x), for tests/platform/test-openshell.c.

It speaks the verbs and flags the OpenShell backend uses, records every call
(FAKE_OPENSHELL_DIR/calls.jsonl), checks the rendered policy and the mounts
against what the wall promises, and runs a sandbox as a small container of
its own: a new mount namespace whose root is a tmpfs holding only the
system folders and exactly the bind mounts the backend asked for, read-only
where asked (so the runner's wall probe inside sees what a real sandbox
would: the session's folders at their paths, the home folder absent). The
main command runs there; `sandbox exec` enters the same namespace.

Needs root (mount namespaces), util-linux (unshare, nsenter) and python3.

Environment:
  FAKE_OPENSHELL_DIR          state and logs (required)
  FAKE_OPENSHELL_MODE         comma-separated faults: disconnected, old-version,
                              no-bind-mounts, no-landlock, never-ready
  FAKE_OPENSHELL_FORBIDDEN    ':'-separated paths no mount or policy entry may hold
  FAKE_OPENSHELL_EXPECT_HOSTS ','-separated host:port the policy must allow, exactly
  OW_REAL_RUNNER              the real openworker-tool-runner, mounted at
                              /opt/openworker/real-runner for the stand-in runner
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

STATE = os.environ.get("FAKE_OPENSHELL_DIR", "")
MODE = set(filter(None, os.environ.get("FAKE_OPENSHELL_MODE", "").split(",")))
RUNNER = "/opt/openworker/openworker-tool-runner"
SOCKET = "/tmp/openworker-runner.sock"
SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"]
TOOLS_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
CHROOT = shutil.which("chroot", path=TOOLS_PATH) or "chroot"
NSENTER = shutil.which("nsenter", path=TOOLS_PATH) or "nsenter"
UNSHARE = shutil.which("unshare", path=TOOLS_PATH) or "unshare"


def fail(message, code=1):
    print(message, file=sys.stderr)
    sys.exit(code)


def log(argv):
    with open(os.path.join(STATE, "calls.jsonl"), "a", encoding="utf-8") as f:
        f.write(json.dumps({"argv": argv}) + "\n")


def box_path(name):
    return os.path.join(STATE, "sandboxes", name + ".json")


def load(name):
    try:
        with open(box_path(name), encoding="utf-8") as f:
            return json.load(f)
    except OSError:
        fail(f"Error: sandbox {name} not found")


def save(name, box):
    os.makedirs(os.path.join(STATE, "sandboxes"), exist_ok=True)
    with open(box_path(name), "w", encoding="utf-8") as f:
        json.dump(box, f)


def within(a, b):
    return a == b or a.startswith(b.rstrip("/") + "/")


def check_policy(policy, mounts, env, main):
    """What the backend must have rendered; each violation ends the create."""
    problems = []
    fs = policy.get("filesystem_policy", {})
    ro, rw = fs.get("read_only", []), fs.get("read_write", [])
    if policy.get("version") != 1:
        problems.append("version is not 1")
    if policy.get("landlock", {}).get("compatibility") != "hard_requirement":
        problems.append("Landlock is not a hard requirement")
    if fs.get("include_workdir") is not False:
        problems.append("include_workdir is not false")
    if policy.get("process", {}).get("run_as_user") != str(os.getuid()):
        problems.append("run_as_user is not the folders' owner")
    if "/opt/openworker" not in ro or "/opt/openworker" in rw:
        problems.append("the runner's folder is not read-only")
    runner_mounts = [m for m in mounts if m.get("target") == RUNNER]
    if len(runner_mounts) != 1 or runner_mounts[0].get("read_only") is not True:
        problems.append("the runner is not mounted read-only at " + RUNNER)
    for m in mounts:
        if m.get("type") != "bind":
            problems.append(f"mount {m} is not a bind mount")
        if m.get("target") == RUNNER:
            continue
        if m.get("source") != m.get("target"):
            problems.append(f"{m.get('source')} is not mounted at its own path")
        listed = ro if m.get("read_only") else rw
        other = rw if m.get("read_only") else ro
        if m.get("target") not in listed or m.get("target") in other:
            problems.append(f"{m.get('target')} is mounted {'read-only' if m.get('read_only') else 'read-write'} "
                            "but the policy says otherwise")
    system = ("/usr", "/lib", "/etc", "/proc", "/dev/urandom", "/var/log", "/sandbox", "/tmp", "/dev/null",
              "/dev/pts", "/opt/openworker")
    for path in filter(None, os.environ.get("FAKE_OPENSHELL_FORBIDDEN", "").split(":")):
        for entry in ro + rw + [m.get("source", "") for m in mounts if m.get("target") != RUNNER]:
            if entry not in system and (within(entry, path) or within(path, entry)):
                problems.append(f"{entry} reaches the forbidden {path}")
    expect = os.environ.get("FAKE_OPENSHELL_EXPECT_HOSTS")
    if expect is not None:
        want = sorted(filter(None, expect.split(",")))
        got = []
        for rule in policy.get("network_policies", {}).values():
            if rule.get("binaries") != [{"path": "/**"}]:
                problems.append("a network rule is not for every program")
            got += [f"{e['host']}:{e['port']}" for e in rule.get("endpoints", [])]
        if sorted(got) != want:
            problems.append(f"network endpoints {sorted(got)} are not {want}")
    if main != [RUNNER, "--socket", SOCKET]:
        problems.append(f"the main command {main} is not the runner on its socket")
    if any(e.split("=", 1)[0] in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY") for e in env):
        problems.append("a secret is passed into the sandbox")
    return problems


def start_container(name, box):
    """The main command in a mount namespace whose root holds only what was mounted."""
    root = os.path.join(STATE, "roots", name)
    os.makedirs(root, exist_ok=True)
    script = ["set -e", f'R="{root}"', 'mount -t tmpfs -o mode=0755 owfake "$R"']
    for d in SYSTEM:
        if os.path.isdir(d) and not os.path.islink(d):
            script += [f'mkdir -p "$R{d}"', f'mount --rbind {d} "$R{d}"']
        elif os.path.islink(d):
            script += [f'ln -s {os.readlink(d)} "$R{d}"']
    script += ['mkdir -p "$R/proc" "$R/dev" "$R/tmp" "$R/opt/openworker"', 'chmod 1777 "$R/tmp"',
               'mount -t proc proc "$R/proc"', 'mount --rbind /dev "$R/dev"']
    mounts = list(box["mounts"])
    real = os.environ.get("OW_REAL_RUNNER")
    if real:
        mounts.append({"source": real, "target": "/opt/openworker/real-runner", "read_only": True})
    for m in mounts:
        src, dst = m["source"], m["target"]
        make = f'mkdir -p "$R{dst}"' if os.path.isdir(src) else f'mkdir -p "$(dirname "$R{dst}")"; touch "$R{dst}"'
        script += [make, f'mount --bind "{src}" "$R{dst}"']
        if m.get("read_only"):
            script += [f'mount -o remount,bind,ro "$R{dst}"']
    # Ready only once every mount is in place, as a real sandbox is: a
    # `sandbox exec` that came sooner would find an empty root (exit 127).
    ready = os.path.join(STATE, name + ".ready")
    script += [f': > "{ready}"', f'exec {CHROOT} "$R" "$@"']
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for e in box["env"]:
        k, _, v = e.partition("=")
        env[k] = v
    err = open(os.path.join(STATE, name + ".log"), "ab")
    proc = subprocess.Popen([UNSHARE, "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                             "\n".join(script), "sh", *box["main"]],
                            stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=env, start_new_session=True)
    box["pid"] = proc.pid
    box["root"] = root
    box["env_map"] = env
    deadline = time.monotonic() + 30
    while not os.path.exists(ready) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)


def cmd_create(args):
    opts = {"--label": [], "--env": []}
    flags = set()
    main = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            main = args[i + 1:]
            break
        if a in ("--name", "--from", "--policy", "--driver-config-json"):
            opts[a] = args[i + 1]
            i += 2
        elif a in ("--label", "--env"):
            opts[a].append(args[i + 1])
            i += 2
        elif a in ("--no-tty", "--detach", "--no-auto-providers"):
            flags.add(a)
            i += 1
        else:
            fail(f"error: unexpected argument '{a}' found", 2)
    for need in ("--name", "--from", "--policy", "--driver-config-json"):
        if need not in opts:
            fail(f"error: the backend did not pass {need}", 2)
    if "--detach" not in flags or "--no-auto-providers" not in flags:
        fail("error: the backend must create detached and without providers", 2)
    if "no-bind-mounts" in MODE:
        fail("Error: failed to create sandbox: bind mounts are disabled for the docker driver; "
             "set enable_bind_mounts = true in the gateway configuration")
    if "no-landlock" in MODE:
        fail("Error: sandbox failed to start: ContainerExited (exit code 78): landlock is not supported by this kernel")
    with open(opts["--policy"], encoding="utf-8") as f:
        policy = json.load(f)
    mounts = json.loads(opts["--driver-config-json"])["docker"]["mounts"]
    problems = check_policy(policy, mounts, opts["--env"], main)
    if problems:
        fail("fake-openshell: the rendered sandbox is wrong: " + "; ".join(problems), 3)
    name = opts["--name"]
    if os.path.exists(box_path(name)):
        fail(f"Error: sandbox {name} already exists")
    box = {"name": name, "image": opts["--from"], "policy": policy, "mounts": mounts, "labels": opts["--label"],
           "env": opts["--env"], "main": main, "endpoints": [],
           "phase": "Provisioning" if "never-ready" in MODE else "Ready"}
    if box["phase"] == "Ready":
        start_container(name, box)
    save(name, box)
    print(f"Created sandbox {name}")


def cmd_get(args):
    box = load(args[0])
    print(f"Sandbox: {box['name']}\nImage: {box['image']}\nPhase: {box['phase']}")


def cmd_exec(args):
    name = None
    i = 0
    while i < len(args) and args[i] != "--":
        if args[i] in ("--name", "-n"):
            name = args[i + 1]
            i += 2
        elif args[i] == "--no-tty":
            i += 1
        else:
            fail(f"error: unexpected argument '{args[i]}' found", 2)
    command = args[i + 1:]
    box = load(name)
    if box["phase"] != "Ready":
        fail(f"Error: sandbox {name} is not ready")
    os.execve(NSENTER, [NSENTER, f"--mount=/proc/{box['pid']}/ns/mnt", "--", CHROOT, box["root"], *command],
              box["env_map"])


def cmd_delete(args):
    for name in args:
        box = load(name)
        if box.get("pid"):
            try:
                os.killpg(box["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.remove(box_path(name))
        shutil.rmtree(os.path.join(STATE, "roots", name), ignore_errors=True)
        try:
            os.remove(os.path.join(STATE, name + ".ready"))
        except FileNotFoundError:
            pass
        print(f"Deleted sandbox {name}")


def cmd_list(args):
    if args[:2] != ["--selector", "openworker=1"]:
        fail("error: list without the openworker selector", 2)
    folder = os.path.join(STATE, "sandboxes")
    for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        print(entry[:-5])


def cmd_policy_update(args):
    name, rest = args[0], args[1:]
    if "--add-endpoint" not in rest or rest[rest.index("--add-endpoint") + 1].count(":") != 1:
        fail("error: --add-endpoint host:port is required", 2)
    if "--binary" not in rest or rest[rest.index("--binary") + 1] != "/**":
        fail("error: without --binary '/**' the rule lets no program through", 2)
    if "--wait" not in rest:
        fail("error: the backend must wait for the policy", 2)
    box = load(name)
    box["endpoints"].append(rest[rest.index("--add-endpoint") + 1])
    save(name, box)
    print("Policy updated")


def main():
    if not STATE:
        fail("fake-openshell: FAKE_OPENSHELL_DIR is not set", 2)
    args = sys.argv[1:]
    log(args)
    if args == ["--version"]:
        print("openshell 0.0.116" if "old-version" in MODE else "openshell 0.1.2")
    elif args == ["status"]:
        if "disconnected" in MODE:
            print("Gateway: openshell\nStatus: Disconnected (connection refused)")
            sys.exit(1)
        print("Gateway: openshell\nServer: http://127.0.0.1:8080\nStatus: Connected\nVersion: 0.1.2")
    elif args[:2] == ["sandbox", "create"]:
        cmd_create(args[2:])
    elif args[:2] == ["sandbox", "get"]:
        cmd_get(args[2:])
    elif args[:2] == ["sandbox", "exec"]:
        cmd_exec(args[2:])
    elif args[:2] == ["sandbox", "delete"]:
        cmd_delete(args[2:])
    elif args[:2] == ["sandbox", "list"]:
        cmd_list(args[2:])
    elif args[:2] == ["policy", "update"]:
        cmd_policy_update(args[2:])
    else:
        fail(f"error: unrecognized subcommand {args}", 2)


if __name__ == "__main__":
    main()
