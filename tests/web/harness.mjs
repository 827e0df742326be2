// harness.mjs: the real programs for the browser test — the scripted model
// server, openworker-server in a temporary home, and Debian's Chromium.
//
// Nothing here fakes the API: the page under test talks to the server the
// person would run, and the server talks to the model server exactly as it
// would talk to OpenAI.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';

export const CHROMIUM = process.env.OW_CHROMIUM || '/usr/bin/chromium';
const SERVER = process.env.OW_SERVER || 'build/app/openworker-server';
const MODEL_SERVER = process.env.OW_MODEL_SERVER || 'build/tests/model-server/ow-model-server';
export const ARTIFACTS = process.env.OW_WEB_ARTIFACTS || path.resolve('build/tests/web/artifacts');
export const TEST_KEY = 'sk-web-e2e-openai-3c9f1a7d52';

// Fails with a sentence that says what to install, instead of a stack trace.
export async function loadPlaywright() {
  for (const [what, file] of [['Chromium', CHROMIUM], ['openworker-server', SERVER], ['the model server', MODEL_SERVER]]) {
    if (!fs.existsSync(file)) throw new Error(`${what} is missing at ${file}. ` +
      (what === 'Chromium' ? 'Install Debian\'s chromium package (apt-get install chromium).' : 'Build it first (ninja -C <build dir>).'));
  }
  try {
    return await import('playwright-core');
  } catch (error) {
    throw new Error(`playwright-core is not installed: run "npm ci" in tests/web (${error.message})`);
  }
}

export function makeTempTree() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ow-web-'));
  const dirs = { root, home: path.join(root, 'home'), ws: path.join(root, 'ws'), runtime: path.join(root, 'runtime') };
  for (const d of [dirs.home, dirs.ws, dirs.runtime]) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  return dirs;
}

// Reads lines from a child's stream until @pattern matches one; rejects on
// exit or after @timeoutMs with what the program printed.
function waitForLine(child, streams, pattern, timeoutMs, label) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk.toString();
      const m = pattern.exec(seen);
      if (m) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code, signal) => {
      cleanup();
      reject(new Error(`${label} exited (${code ?? signal}) before it was ready:\n${seen}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${label} was not ready after ${timeoutMs} ms:\n${seen}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      for (const s of streams) s.off('data', onData);
      child.off('exit', onExit);
    };
    for (const s of streams) s.on('data', onData);
    child.on('exit', onExit);
  });
}

export class ModelServer {
  static async start(script, dir) {
    const file = path.join(dir, 'model-script.json');
    fs.writeFileSync(file, JSON.stringify(script, null, 2));
    const child = spawn(MODEL_SERVER, ['--script', file, '--log', path.join(dir, 'model-requests.jsonl')],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    const m = await waitForLine(child, [child.stdout], /PORT=(\d+)/, 10000, 'the model server');
    const server = new ModelServer();
    server.child = child;
    server.port = Number(m[1]);
    server.url = `http://127.0.0.1:${server.port}`;
    server.stderr = '';
    child.stderr.on('data', (c) => { server.stderr += c; });
    return server;
  }

  async requests() {
    const response = await fetch(`${this.url}/_script/requests`);
    return response.json();
  }

  async stop() {
    await stopChild(this.child);
  }
}

export class OwServer {
  // Starts openworker-server on a free port (or @port: a restart keeps the
  // page's origin) in @dirs.home, with @env added.
  static async start(dirs, env, { port } = {}) {
    const log = fs.openSync(path.join(dirs.root, 'server.log'), 'a');
    const child = spawn(SERVER, ['--cwd', dirs.ws, '--port', String(port ?? await freePort())], {
      cwd: dirs.ws,
      // The title call after a first turn would take a scripted turn.
      env: { ...cleanEnv(), OPENWORKER_HOME: dirs.home, XDG_RUNTIME_DIR: dirs.runtime, OPENWORKER_AUTO_TITLE: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new OwServer();
    server.child = child;
    server.output = '';
    const keep = (chunk) => {
      server.output += chunk;
      fs.writeSync(log, chunk);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const m = await waitForLine(child, [child.stdout, child.stderr],
      /(http:\/\/127\.0\.0\.1:(\d+)\/)#token=([A-Za-z0-9_-]+)/, 20000, 'openworker-server');
    server.base = m[1];
    server.port = Number(m[2]);
    server.token = m[3];
    server.url = `${m[1]}#token=${m[3]}`;
    return server;
  }

  // A REST call with the token, for checks from the test itself.
  async api(route, { method = 'GET', body, token = this.token } = {}) {
    const headers = {};
    if (token) headers['X-OpenWorker-Token'] = token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(new URL(route, this.base), {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: response.status, json, text };
  }

  async stop() {
    await stopChild(this.child);
  }
}

// The test's own environment minus anything that could reach a real
// provider or change where OpenWorker keeps its state.
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.endsWith('_API_KEY') || k.endsWith('_BASE_URL') || k.startsWith('OPENWORKER_')) continue;
    env[k] = v;
  }
  return env;
}

async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
  await once(child, 'exit');
  clearTimeout(timer);
}

// Polls @check until it returns a truthy value.
export async function eventually(check, { timeout = 15000, interval = 50, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
