// ws-client.mjs: one scripted WebSocket client (the `ws` npm package).
//
// Reads a plan as JSON on stdin:
//   { url, protocols: [..] | null, headers: {..},
//     send: [{ on: {type?, seq?, after_frames?}, frame: {..} | "raw text", binary?: bool, repeat?: n,
//              every?: bool (answer each matching frame, not only the first) }],
//     until: { type, count }           stop after the count-th frame of that type
//     close_after_seq: n               drop the connection (terminate, no close frame) after seq n
//     until_last_seq: true             stop once the replay reaches the last_seq `ready` announced
//     fetch: [{ on: {type}, url, headers }]  at each frame of that type, GET url at once (before
//                                      anything else is read); results in `fetched`, in order. A
//                                      send `on: {type: "_fetched"}` goes once a GET has its answer
//     notify: { path, types: [..] }     write each frame of those types as a line to the file (a
//                                      FIFO the test reads) the moment it arrives
//     timeout_ms }
// and prints {opened, protocol, frames, fetched, close: {code, reason}, error, timed_out} as JSON.
import fs from 'node:fs';
import WebSocket from 'ws';

const input = await new Promise((resolve) => {
  let s = '';
  process.stdin.on('data', (d) => (s += d));
  process.stdin.on('end', () => resolve(s));
});
const plan = JSON.parse(input);
const out = { opened: false, protocol: null, frames: [], fetched: [], close: null, error: null, timed_out: false };
let finished = false;
const fetches = [];

function finish(ws) {
  if (finished) return;
  finished = true;
  clearTimeout(timer);
  try { ws.terminate(); } catch (e) { /* gone */ }
  // A pipe is written asynchronously: exit once it is flushed. What the
  // connection does after this (its error and close events as it is torn
  // down) is not part of the result; a GET still under way is awaited.
  const write = () => process.stdout.write(JSON.stringify(out), () => process.exit(0));
  if (fetches.length === 0) write();
  else Promise.all(fetches).then(write);
}

// What a client that reacts to a frame at once finds over HTTP.
function fetchOn(frame) {
  for (const f of plan.fetch ?? []) {
    if (frame.type !== f.on.type) continue;
    const entry = { on: frame.type, seq: frame.seq ?? null };
    out.fetched.push(entry);
    fetches.push(fetch(f.url, { headers: f.headers ?? {} })
      .then(async (r) => { entry.status = r.status; entry.body = await r.json(); })
      .catch((e) => { entry.error = String(e); })
      .then(() => { if (!finished) fire({ type: '_fetched' }); }));
  }
}

const notifyFd = plan.notify ? fs.openSync(plan.notify.path, 'w') : null;
const ws = new WebSocket(plan.url, plan.protocols ?? undefined, { headers: plan.headers ?? {} });
const timer = setTimeout(() => { out.timed_out = true; finish(ws); }, plan.timeout_ms ?? 20000);
const sends = (plan.send ?? []).map((s) => ({ ...s, done: false }));
let seenOfType = {};
let lastSeq = null;

function fire(frame) {
  for (const s of sends) {
    if (s.done) continue;
    const on = s.on ?? {};
    const match = (on.type === undefined || (frame && frame.type === on.type))
      && (on.seq === undefined || (frame && frame.seq === on.seq))
      && (on.after_frames === undefined || out.frames.length >= on.after_frames)
      && (on.open === undefined || frame === null);
    if (!match) continue;
    s.done = !s.every;
    const text = typeof s.frame === 'string' ? s.frame : JSON.stringify(s.frame);
    for (let i = 0; i < (s.repeat ?? 1); i++) ws.send(s.binary ? Buffer.from(text) : text, { binary: !!s.binary });
  }
}

ws.on('open', () => { out.opened = true; out.protocol = ws.protocol || null; fire(null); });
ws.on('message', (data) => {
  let frame;
  try { frame = JSON.parse(data.toString()); } catch (e) { frame = { unparsed: data.toString() }; }
  if (notifyFd !== null && plan.notify.types.includes(frame.type)) fs.writeSync(notifyFd, JSON.stringify(frame) + '\n');
  frame._t = Date.now();
  fetchOn(frame);
  out.frames.push(frame);
  seenOfType[frame.type] = (seenOfType[frame.type] ?? 0) + 1;
  if (plan.close_after_seq !== undefined && frame.seq === plan.close_after_seq) return finish(ws);
  if (plan.until_last_seq && frame.type === 'ready') lastSeq = frame.data.last_seq ?? 0;
  if (plan.until_last_seq && lastSeq !== null && (frame.seq ?? 0) >= lastSeq) return finish(ws);
  const untils = plan.until ? (Array.isArray(plan.until) ? plan.until : [plan.until]) : [];
  if (untils.length > 0 && untils.every((u) => (seenOfType[u.type] ?? 0) >= (u.count ?? 1))) return finish(ws);
  fire(frame);
});
ws.on('unexpected-response', (req, res) => { out.error = `unexpected-response ${res.statusCode}`; finish(ws); });
ws.on('error', (e) => { if (!finished) out.error = String(e.message); });
ws.on('close', (code, reason) => { if (!finished) out.close = { code, reason: reason.toString() }; finish(ws); });
