// api.js: every REST call of the page goes through here.
//
// It adds the X-OpenWorker-Token header (never a query parameter), turns
// {ok:false, error} answers and HTTP errors into ApiError with the
// server's own sentence, and reports a refused token once, so the page can
// replace itself with the "open the URL the server printed" screen.

import { getToken } from './token.js';

export class ApiError extends Error {
  constructor(message, status, body) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }
}

const authListeners = new Set();

// @listener() runs when the server refuses the token (401, or a WebSocket
// closed with 1008).
export function onAuthFailure(listener) {
  authListeners.add(listener);
}

export function reportAuthFailure() {
  for (const listener of authListeners) listener();
}

export async function api(path, { method = 'GET', body, signal } = {}) {
  const headers = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers['X-OpenWorker-Token'] = token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';

  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new ApiError('Cannot reach the OpenWorker server. Is openworker-server still running?', 0, null);
  }

  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (response.status === 401) {
    reportAuthFailure();
    throw new ApiError('The server refused this page’s access token.', 401, data);
  }
  if (!response.ok || (data && typeof data === 'object' && data.ok === false)) {
    const message = (data && typeof data.error === 'string' && data.error)
      || (data && data.error && typeof data.error.message === 'string' && data.error.message)
      || `${method} ${path} failed: HTTP ${response.status}`;
    throw new ApiError(message, response.status, data);
  }
  return data;
}

// Path segments from data (ids, names) are always encoded.
export function path(strings, ...values) {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i]) : ''), '');
}
