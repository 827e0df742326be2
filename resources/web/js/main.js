// main.js: the browser dev UI's entry point.
//
// Takes the token from the URL fragment, builds the shell (sidebar + one
// page at a time), routes on the fragment (#/s/<id>, #/inbox, #/models, #/connectors)
// and keeps the sessions list and the inbox count fresh. When the server
// refuses the token, the whole page becomes the "open the URL the server
// printed" screen: nothing else can work without it.

import { api, onAuthFailure } from './api.js';
import { h } from './dom.js';
import { takeToken, forgetToken, tokenInFragment } from './token.js';
import { Sidebar } from './sidebar.js';
import { ConversationPage } from './conversation.js';
import { InboxPage } from './inbox.js';
import { ModelsPage } from './models.js';
import { ConnectorsPage } from './connectors.js';
import { newSessionDialog } from './new-session.js';
import { AppSocket } from './socket.js';

// Lists follow /ws/events; this slow poll only catches what a notice could
// not say (a turn starting or ending changes a row's liveness).
const REFRESH_MS = 10000;

function parseRoute(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 's' && parts[1]) return { page: 'session', id: parts[1] };
  if (parts[0] === 'inbox') return { page: 'inbox' };
  if (parts[0] === 'models') return { page: 'models' };
  if (parts[0] === 'connectors') return { page: 'connectors' };
  return { page: 'home' };
}

class App {
  constructor() {
    this.sessions = [];
    this.page = null;
    this.locked = false;
    this.sidebar = new Sidebar(this);
    this.main = h('main', { id: 'main', class: 'main', tabindex: '-1' });
    this.toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
    this.shell = h('div', { class: 'shell' }, this.sidebar.el, this.main);
  }

  start() {
    onAuthFailure(() => this.lock());
    window.addEventListener('hashchange', () => this.onHashChange());
    this.run();
  }

  // After a server restart the person pastes the new #token=… address into
  // this same tab: that changes only the fragment, so no page load follows.
  // Take the token and start over with it, locked or not.
  onHashChange() {
    if (!tokenInFragment()) {
      this.route();
      return;
    }
    takeToken();
    this.stop();
    this.locked = false;
    this.page = null;
    document.title = 'OpenWorker';
    this.run();
  }

  stop() {
    clearInterval(this.timer);
    this.events?.close();
    this.page?.unmount();
  }

  run() {
    document.body.replaceChildren(this.shell, this.toasts);
    this.refreshSessions().then(() => {
      if (!this.locked) this.route();
    });
    this.refreshInboxCount();
    this.events = new AppSocket({
      onEvent: (frame) => {
        if (frame.type === 'sessions_changed') this.refreshSessions();
        else if (frame.type === 'inbox_changed') {
          this.refreshInboxCount();
          this.refreshSessions(); // a row's attention badge counts its pending asks
          if (this.page instanceof InboxPage) this.page.refresh();
        }
      },
    });
    this.timer = setInterval(() => {
      if (document.hidden || this.locked) return;
      this.refreshSessions();
      if (this.page?.constructor !== InboxPage) this.refreshInboxCount();
    }, REFRESH_MS);
  }

  // ---- Data ----------------------------------------------------------------

  async refreshSessions() {
    try {
      const data = await api('/v1/sessions');
      this.sessions = Array.isArray(data?.sessions) ? data.sessions : [];
      this.sidebar.render(this.sessions);
      if (this.page instanceof ConversationPage) this.page.update(this.sessionInfo(this.page.sessionId));
    } catch (error) {
      if (error.status !== 401) this.toast(`Could not load the sessions: ${error.message}`, 'error');
    }
  }

  async refreshInboxCount() {
    try {
      const data = await api('/v1/inbox?state=pending');
      const items = Array.isArray(data?.items) ? data.items : [];
      this.setInboxCount(items.filter((i) => (i.state ?? 'pending') === 'pending').length);
    } catch {
      // The badge is a hint; the inbox page reports its own errors.
    }
  }

  setInboxCount(n) {
    this.sidebar.setInboxCount(n);
  }

  sessionInfo(id) {
    return this.sessions.find((s) => s.session_id === id) || null;
  }

  // ---- Navigation ----------------------------------------------------------

  route() {
    if (this.locked) return;
    const route = parseRoute(location.hash);
    if (route.page === 'session' && this.page instanceof ConversationPage && this.page.sessionId === route.id) return;
    this.page?.unmount();
    this.sidebar.setRoute(route);
    switch (route.page) {
      case 'session':
        this.page = new ConversationPage(route.id, this);
        break;
      case 'inbox':
        this.page = new InboxPage(this);
        break;
      case 'models':
        this.page = new ModelsPage(this);
        break;
      case 'connectors':
        this.page = new ConnectorsPage(this);
        break;
      default:
        this.page = new HomePage(this);
        break;
    }
    this.page.mount(this.main);
  }

  async newSession() {
    const id = await newSessionDialog({ reusable: (...args) => this.emptySession(...args) });
    if (!id) return;
    await this.refreshSessions();
    location.hash = `#/s/${encodeURIComponent(id)}`;
  }

  // An untouched session (no message yet, idle, not archived) of @agent in
  // @workspace, which a new one would only duplicate: trying again after
  // "no model" must not leave a pile of "New session" rows. @workspace null
  // asks for a scratch folder: any empty session outside @serverFolder.
  emptySession(agent, workspace, serverFolder) {
    const sameFolder = (s) => (workspace === null ? s.workspace !== serverFolder : s.workspace === workspace);
    return this.sessions.find((s) => s.messages === 0 && !s.archived && s.liveness !== 'working'
      && (s.agent ?? 'cowork') === agent && sameFolder(s)) ?? null;
  }

  toast(text, kind = 'info') {
    const el = h('div', { class: ['toast', `toast-${kind}`] }, text);
    this.toasts.append(el);
    setTimeout(() => el.remove(), kind === 'error' ? 8000 : 4000);
  }

  // The token is missing or refused: say what to do, and stop everything.
  lock() {
    if (this.locked) return;
    this.locked = true;
    this.stop();
    forgetToken();
    document.title = 'Open the link from the server — OpenWorker';
    document.body.replaceChildren(authGate());
  }
}

class HomePage {
  constructor(app) {
    this.app = app;
    this.el = h('section', { class: 'page home', 'aria-labelledby': 'home-title' },
      h('div', { class: 'empty-state' },
        h('h1', { id: 'home-title', class: 'empty-title' }, 'What should we work on?'),
        h('p', { class: 'dim' }, 'Start a session with a coworker; it asks before anything consequential.'),
        h('button', { type: 'button', class: 'button suggested pill', onclick: () => app.newSession() }, 'New session')));
  }

  mount(container) {
    container.replaceChildren(this.el);
    document.title = 'OpenWorker';
  }

  unmount() {}
}

function authGate() {
  return h('main', { class: 'auth-gate', role: 'main', 'aria-labelledby': 'auth-title' },
    h('div', { class: 'auth-card', role: 'alert' },
      h('h1', { id: 'auth-title' }, 'Open the URL the server printed'),
      h('p', null, 'This page needs the access token that ',
        h('code', null, 'openworker-server'),
        ' prints when it starts. Open the full address it printed — it ends in ',
        h('code', null, '#token=…'),
        ' — in this browser.'),
      h('p', { class: 'dim' },
        'The token stays in this tab and is sent only to the server on 127.0.0.1. If the server was restarted, '
        + 'it printed a new address.')));
}

takeToken();
new App().start();
