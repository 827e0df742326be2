// socket.js: WebSockets to the server, kept alive.
//
// The token travels as the subprotocol pair ["openworker", token] (a
// browser cannot set headers on a WebSocket, and a query parameter would
// end up in logs). A dropped socket reconnects with a growing delay; one
// the server refuses (close 1008: wrong token or origin) does not.
//
// SessionSocket follows one session. Its events carry a per-session seq
// with no gaps; after a drop it reconnects with ?since=<last seq seen>, the
// server replays exactly what was missed, and anything at or below that
// seq is dropped here as well, so no event is applied twice. Frames
// without a seq (ready, input_rejected) are connection-level and always
// delivered. AppSocket follows /ws/events (sessions_changed,
// inbox_changed) so lists can refresh when something happens.

import { api, path, reportAuthFailure } from './api.js';
import { getToken } from './token.js';

const POLICY_VIOLATION = 1008;
const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

class ReconnectingSocket {
  // @onStatus('connecting'|'open'|'reconnecting'|'closed'|'refused', reason?)
  constructor({ onStatus } = {}) {
    this.onStatus = onStatus;
    this.delay = MIN_DELAY_MS;
    this.stopped = false;
    this.ws = null;
    this.timer = 0;
    this.outbox = [];      // frames sent while disconnected go out on open
  }

  // Subclasses: the URL path and query for the next connection.
  target() {
    throw new Error('not implemented');
  }

  // Subclasses: a reason to give up instead of reconnecting, or null.
  async shouldStop() {
    return null;
  }

  connect() {
    if (this.stopped) return;
    this.onStatus?.(this.ws ? 'reconnecting' : 'connecting');
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let ws;
    try {
      ws = new WebSocket(`${scheme}//${location.host}${this.target()}`, ['openworker', getToken() || '']);
    } catch (error) {
      // A token with characters a subprotocol may not hold cannot be right.
      this.refuse('token refused');
      return;
    }
    this.ws = ws;
    ws.opened = false;
    ws.addEventListener('open', () => {
      ws.opened = true;
      this.delay = MIN_DELAY_MS;
      this.onStatus?.('open');
      for (const frame of this.outbox.splice(0)) ws.send(frame);
    });
    ws.addEventListener('message', (message) => {
      let frame;
      try {
        frame = JSON.parse(message.data);
      } catch {
        return; // not ours to interpret
      }
      if (frame && typeof frame.type === 'string') this.receive(frame);
    });
    ws.addEventListener('close', (event) => this.closed(ws, event));
  }

  receive(frame) {
    throw new Error('not implemented');
  }

  closed(ws, event) {
    if (ws !== this.ws || this.stopped) return;
    if (event.code === POLICY_VIOLATION && !/rate limit|too many/i.test(event.reason)) {
      this.refuse(event.reason || 'token refused');
      return;
    }
    this.onStatus?.('reconnecting');
    // Before trying again, ask the REST side whether it makes sense: a
    // refused token or a deleted session will not get better.
    this.shouldStop().then((reason) => {
      if (reason) this.refuse(reason);
      else if (!this.stopped) {
        this.timer = setTimeout(() => this.connect(), this.delay);
        this.delay = Math.min(this.delay * 2, MAX_DELAY_MS);
      }
    });
  }

  refuse(reason) {
    this.stopped = true;
    this.onStatus?.('refused', reason);
    if (/token/i.test(reason)) reportAuthFailure();
  }

  // Sends {type, …}; queued until the socket is open.
  send(frame) {
    const text = JSON.stringify(frame);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.outbox.push(text);
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) this.ws.close(1000, 'closed by the page');
    this.onStatus?.('closed');
  }
}

// Whether the token still works; a reason to stop, or null.
async function tokenProblem() {
  try {
    await api('/v1/agents');
    return null;
  } catch (error) {
    return error.status === 401 ? 'token refused' : null;
  }
}

export class SessionSocket extends ReconnectingSocket {
  // @since: the last seq the caller already has. The first connection asks
  // for everything after it (since=0: the whole log, which rebuilds the
  // transcript); later ones for what was missed. @onEvent({type, data, seq?}).
  constructor(sessionId, { since = 0, onEvent, onStatus }) {
    super({ onStatus });
    this.sessionId = sessionId;
    this.lastSeq = since;
    this.onEvent = onEvent;
    this.connect();
  }

  target() {
    return `/ws/session/${encodeURIComponent(this.sessionId)}?since=${this.lastSeq}`;
  }

  receive(frame) {
    if (typeof frame.seq === 'number') {
      if (frame.seq <= this.lastSeq) return; // already applied (replay overlap)
      this.lastSeq = frame.seq;
    }
    this.onEvent(frame);
  }

  async shouldStop() {
    // Connecting to an unknown id creates a session (as the original GUI
    // relies on), so a session deleted elsewhere must not come back here.
    try {
      await api(path`/v1/sessions/${this.sessionId}`);
      return null;
    } catch (error) {
      if (error.status === 401) return 'token refused';
      if (error.status === 404) return 'This session was deleted.';
      return null;
    }
  }
}

export class AppSocket extends ReconnectingSocket {
  // @onEvent({type, data}) for sessions_changed, inbox_changed, …
  constructor({ onEvent, onStatus }) {
    super({ onStatus });
    this.onEvent = onEvent;
    this.connect();
  }

  target() {
    return '/ws/events';
  }

  receive(frame) {
    this.onEvent(frame);
  }

  shouldStop() {
    return tokenProblem();
  }
}
