// load.mjs: many WebSocket clients at once (the `ws` npm package).
//
//   node load.mjs one-session  WS_BASE TOKEN N      N clients watch one session; one sends a message
//   node load.mjs many-sessions WS_BASE TOKEN N     N sessions, one client each, all sending at once
//
// Each client records every frame until its turn_done. Prints per-client
// summaries and the fan-out latency (receive time minus the first
// receiver's time, per event) as JSON; the checks are made by the caller.
import WebSocket from 'ws';

const [mode, base, token, nText] = process.argv.slice(2);
const n = Number(nText);
const stamp = Date.now().toString(36);

function client(sessionId, sendMessage) {
  return new Promise((resolve) => {
    const frames = [];
    const ws = new WebSocket(`${base}/ws/session/${sessionId}`, ['openworker', token]);
    const timer = setTimeout(() => { ws.terminate(); resolve({ sessionId, frames, timedOut: true }); }, 120000);
    let readyResolve;
    const ready = new Promise((r) => (readyResolve = r));
    ws.on('message', (data) => {
      const f = JSON.parse(data.toString());
      f._t = performance.now();
      frames.push(f);
      if (f.type === 'ready') readyResolve();
      if (f.type === 'turn_done') { clearTimeout(timer); ws.close(); }
    });
    ws.on('close', () => { clearTimeout(timer); resolve({ sessionId, frames, timedOut: false }); });
    ws.on('error', (e) => frames.push({ type: '_error', error: String(e.message) }));
    client.sockets.push({ ws, ready, sendMessage });
  });
}
client.sockets = [];

async function main() {
  let results;
  if (mode === 'one-session') {
    const sid = `load-one-${stamp}`;
    // The first connection creates the session; the rest join it.
    const first = client(sid, true);
    await client.sockets[0].ready;
    const rest = [];
    for (let i = 1; i < n; i++) rest.push(client(sid, false));
    await Promise.all(client.sockets.map((s) => s.ready));
    client.sockets[0].ws.send(JSON.stringify({ type: 'user_message', text: 'fan out, please' }));
    results = await Promise.all([first, ...rest]);
  } else {
    const all = [];
    for (let i = 0; i < n; i++) all.push(client(`load-many-${stamp}-${i}`, true));
    await Promise.all(client.sockets.map((s) => s.ready));
    for (const s of client.sockets) s.ws.send(JSON.stringify({ type: 'user_message', text: 'my own turn' }));
    results = await Promise.all(all);
  }
  // Fan-out latency: for each seq, how long after the first client the others got it.
  const bySeq = new Map();
  for (const r of results) for (const f of r.frames) if (f.seq !== undefined) {
    const key = `${r.sessionId}:${f.seq}`;
    if (!bySeq.has(key)) bySeq.set(key, []);
    bySeq.get(key).push(f._t);
  }
  const spreads = [];
  for (const times of bySeq.values()) if (times.length > 1) spreads.push(Math.max(...times) - Math.min(...times));
  spreads.sort((a, b) => a - b);
  const pick = (q) => (spreads.length ? spreads[Math.min(spreads.length - 1, Math.floor(q * spreads.length))] : 0);
  process.stdout.write(JSON.stringify({
    clients: results.map((r) => ({ session: r.sessionId, timedOut: r.timedOut,
      frames: r.frames.map((f) => ({ type: f.type, seq: f.seq, text: f.data?.text, error: f.error })) })),
    spread_ms: { p50: pick(0.5), p95: pick(0.95), max: spreads.length ? spreads[spreads.length - 1] : 0 },
  }), () => process.exit(0));
}
main();
