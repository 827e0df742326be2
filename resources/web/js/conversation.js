// conversation.js: the session page — header, transcript, composer.
//
// On open the page connects the session's WebSocket asking for the whole
// event log (?since=0): the same events that stream live rebuild the
// transcript after a reload, tool steps and open cards included. The
// socket then follows the live stream and, after a drop, asks only for
// what it missed (see socket.js).

import { api, path } from './api.js';
import { h, uid } from './dom.js';
import { SessionSocket } from './socket.js';
import { Transcript } from './transcript.js';
import { DeliverablesPanel } from './deliverables.js';

const MODES = [
  // The same names as the desktop app and Settings.
  ['ask', 'Ask for approval'],
  ['auto-approve', 'Auto-approve'],
  ['bypass-approvals', 'Bypass approvals (safety checks still ask)'],
  ['plan', 'Plan (read-only)'],
  ['discuss', 'Discuss (read-only)'],
];

const askEvents = new Set(['permission_required', 'site_requested', 'question_requested', 'directory_requested']);

const CONNECTION_TEXT = {
  connecting: 'Connecting…',
  open: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Closed',
  refused: 'Not connected',
};

export class ConversationPage {
  constructor(sessionId, app) {
    this.sessionId = sessionId;
    this.app = app;
    this.info = app.sessionInfo(sessionId) || { session_id: sessionId };
    this.running = false;
    this.build();
  }

  build() {
    const titleId = uid('session-title');
    this.titleEl = h('h1', { id: titleId, class: 'page-title' });
    this.factsEl = h('p', { class: 'page-subtitle' });
    this.connEl = h('span', { class: 'connection', role: 'status', 'aria-live': 'polite' });

    this.transcriptEl = h('div', { class: 'transcript', role: 'log', 'aria-label': 'Conversation' });
    this.scroller = h('div', { class: 'scroller' }, h('div', { class: 'transcript-column' }, this.transcriptEl));
    this.transcript = new Transcript(this.transcriptEl, this.scroller, {
      sessionId: this.sessionId,
      onAnswer: (ask, answer) => this.answer(ask, answer),
      onRetry: () => this.socket?.send({ type: 'retry' }),
      onStepDone: (name, args, status) => this.deliverables.noteStep(name, args, status),
    });
    this.deliverables = new DeliverablesPanel(this.sessionId);

    const inputId = uid('composer');
    this.input = h('textarea', {
      id: inputId,
      class: 'composer-input',
      rows: '3',
      placeholder: 'Ask the coworker…',
      'aria-describedby': `${inputId}-hint`,
      onkeydown: (event) => this.onComposerKey(event),
    });
    this.sendButton = h('button', { type: 'submit', class: 'button suggested' }, 'Send');
    this.stopButton = h('button', {
      type: 'button', class: 'button destructive', hidden: true, onclick: () => this.stop(),
    }, 'Stop');
    const modeId = uid('mode');
    this.modeSelect = h('select', { id: modeId, class: 'dropdown', onchange: () => this.setMode(this.modeSelect.value) },
      MODES.map(([value, label]) => h('option', { value }, label)));

    const modelId = uid('model');
    this.modelSelect = h('select', { id: modelId, class: 'dropdown model-picker',
      onchange: () => this.setModel(this.modelSelect.value) });
    // Where a key is added: the sidebar's page (there is no Settings here).
    this.modelHint = h('a', { href: '#/models', class: 'composer-model-hint', hidden: true }, 'Add a key first');

    this.form = h('form', { class: 'composer', onsubmit: (event) => { event.preventDefault(); this.send(); } },
      h('label', { for: inputId, class: 'visually-hidden' }, 'Message'),
      this.input,
      h('div', { class: 'composer-bar' },
        h('label', { for: modelId, class: 'composer-mode-label' }, 'Model'),
        this.modelSelect,
        this.modelHint,
        h('label', { for: modeId, class: 'composer-mode-label' }, 'Approvals'),
        this.modeSelect,
        h('span', { id: `${inputId}-hint`, class: 'composer-hint' }, 'Ctrl+Enter to send · Esc to stop'),
        h('span', { class: 'spacer' }),
        this.stopButton,
        this.sendButton));

    this.el = h('section', { class: 'page conversation', 'aria-labelledby': titleId },
      h('header', { class: 'page-header' },
        h('div', { class: 'page-heading' }, this.titleEl, this.factsEl),
        this.connEl),
      h('div', { class: 'conversation-body' },
        h('div', { class: 'conversation-main' },
          this.scroller,
          h('div', { class: 'composer-column' }, this.form)),
        this.deliverables.el));
    this.showInfo();
  }

  mount(container) {
    container.replaceChildren(this.el);
    this.onKey = (event) => this.onPageKey(event);
    document.addEventListener('keydown', this.onKey);
    this.mounted = true;
    this.connect();
    this.loadModels();
    this.deliverables.refresh();
    this.input.focus();
    // For the test and for trying reconnection by hand from the console.
    window.openworkerDebug = {
      dropConnection: () => this.socket?.ws?.close(4000, 'dropped for testing'),
      lastSeq: () => this.socket?.lastSeq ?? 0,
    };
  }

  // Connecting to an id the server does not know would create a session
  // under it, so an unknown id (a stale link, a session deleted in another
  // tab) is checked first.
  async connect() {
    if (!this.app.sessionInfo(this.sessionId)) {
      try {
        this.update(await api(path`/v1/sessions/${this.sessionId}`));
      } catch (error) {
        if (error.status === 404) {
          this.gone('There is no such session. It may have been deleted.');
          return;
        }
      }
    }
    if (!this.mounted) return;
    this.socket = new SessionSocket(this.sessionId, {
      since: 0,
      onEvent: (event) => this.onEvent(event),
      onStatus: (status, reason) => this.onStatus(status, reason),
    });
  }

  // The session cannot be shown: say why, and leave nothing to type into.
  gone(text) {
    this.connEl.textContent = CONNECTION_TEXT.refused;
    this.connEl.dataset.state = 'refused';
    this.transcript.addNotice(text, { kind: 'error' });
    this.form.hidden = true;
  }

  unmount() {
    this.mounted = false;
    document.removeEventListener('keydown', this.onKey);
    this.socket?.close();
    delete window.openworkerDebug;
  }

  // Called when the sidebar's list is refreshed.
  update(info) {
    if (!info) return;
    this.info = { ...this.info, ...info };
    this.showInfo();
  }

  showInfo() {
    const i = this.info;
    this.titleEl.textContent = i.title || 'New session';
    document.title = `${i.title || 'Session'} — OpenWorker`;
    const facts = [i.agent_title || i.agent, i.workspace, i.model, i.mode].filter(Boolean);
    this.factsEl.textContent = facts.join(' · ');
    if (i.mode && [...this.modeSelect.options].some((o) => o.value === i.mode)) this.modeSelect.value = i.mode;
    this.showModels();
  }

  // ---- The model picker ----------------------------------------------------

  // The models that can run here (a key saved or in the environment, or a
  // local server named in the settings), as the desktop's picker lists them.
  async loadModels() {
    try {
      this.models = await api('/v1/settings/models');
    } catch {
      this.models = { choices: [], default: null };
    }
    this.showModels();
  }

  showModels() {
    if (!this.modelSelect) return;
    const choices = Array.isArray(this.models?.choices) ? this.models.choices : [];
    const current = this.info.model || null;
    const options = choices.map((c) => h('option', { value: c.id }, c.label || c.id));
    // The session's own model stays visible even when it is not (or no
    // longer) ready here: the picker shows what a turn will use.
    if (current && !choices.some((c) => c.id === current)) options.unshift(h('option', { value: current }, current));
    if (!current) {
      options.unshift(h('option', { value: '', disabled: true },
        choices.length ? 'Choose a model' : 'No model yet'));
    }
    this.modelSelect.replaceChildren(...options);
    this.modelSelect.value = current ?? '';
    this.modelSelect.disabled = options.length <= 1 && !current && !choices.length;
    this.modelHint.hidden = !this.models || choices.length > 0;
  }

  setModel(model) {
    if (!model || model === this.info.model) return;
    this.socket?.send({ type: 'set_model', model });
  }

  // ---- Socket --------------------------------------------------------------

  onStatus(status, reason) {
    this.connEl.textContent = CONNECTION_TEXT[status] || status;
    this.connEl.dataset.state = status;
    if (status === 'refused' && reason && !/token/i.test(reason)) this.gone(reason);
  }

  onEvent(event) {
    const d = event.data && typeof event.data === 'object' ? event.data : {};
    switch (event.type) {
      case 'ready':
        // Events up to here are the log being replayed: rebuild the view
        // from them, but do not react to them as news.
        this.replayUntil ??= typeof d.last_seq === 'number' ? d.last_seq : 0;
        this.update({
          agent: d.agent, model: d.model, mode: d.mode, workspace: d.workspace,
          ...(d.title ? { title: d.title } : {}),
        });
        if (typeof d.running === 'boolean') this.setRunning(d.running);
        if (d.last_seq === 0 && this.transcriptEl.childElementCount === 0) this.showIntro();
        break;
      case 'session_title':
        this.update({ title: d.title });
        this.app.refreshSessions();
        break;
      case 'model_changed':
        this.update({ model: d.model });
        break;
      case 'mode_changed':
        this.update({ mode: d.mode });
        break;
      default:
        break;
    }
    if (event.type === 'turn_start') this.intro?.remove();
    this.transcript.apply(event);
    const live = typeof event.seq !== 'number' || event.seq > (this.replayUntil ?? 0);
    if (event.type === 'turn_start') this.setRunning(true);
    if (event.type === 'turn_done') this.setRunning(false);
    if (event.type === 'input_rejected') this.setRunning(this.running); // Send comes back
    if (!live) return;
    // The row turns "working" (and gets its title) or idle again.
    if (event.type === 'turn_start' || event.type === 'turn_done') this.app.refreshSessions();
    // A command may have made files the steps do not name.
    if (event.type === 'turn_done') this.deliverables.refresh();
    if (event.type === 'approval_resolved' || askEvents.has(event.type)) this.app.refreshInboxCount();
  }

  // A new session's empty page says what it is for.
  showIntro() {
    const agent = this.info.agent === 'code' ? 'Code' : 'Cowork';
    this.intro = h('div', { class: 'intro' },
      h('p', { class: 'intro-title' }, `${agent} is ready`),
      h('p', { class: 'dim' }, this.info.workspace ? `Working in ${this.info.workspace}.` : 'Working in a new scratch folder.',
        ' It asks before changing anything; you decide on each card.'));
    this.transcriptEl.append(this.intro);
  }

  setRunning(running) {
    this.running = running;
    this.stopButton.hidden = !running;
    this.sendButton.disabled = running;
    this.transcriptEl.setAttribute('aria-busy', running ? 'true' : 'false');
  }

  // ---- Actions -------------------------------------------------------------

  send() {
    const text = this.input.value.trim();
    if (!text || this.running || !this.socket) return;
    this.socket.send({ type: 'user_message', text, attachments: [] });
    this.input.value = '';
    // The turn_start event confirms it; until then Send stays off.
    this.sendButton.disabled = true;
  }

  stop() {
    if (this.running) this.socket?.send({ type: 'interrupt' });
  }

  setMode(mode) {
    this.socket?.send({ type: 'set_mode', mode });
  }

  // A card's answer, as the WebSocket frame the server expects.
  answer(ask, answer) {
    const base = { call_id: ask.callId };
    if (ask.kind === 'approval' || ask.kind === 'site') {
      this.socket.send({ type: 'approval', ...base, decision: answer.decision, ...(answer.reason ? { reason: answer.reason } : {}) });
    } else if (ask.kind === 'question') {
      this.socket.send({ type: 'question_response', ...base, answer: answer.answer });
    } else if (ask.kind === 'directory') {
      this.socket.send({ type: 'directory_response', ...base, granted: answer.granted, path: answer.path ?? '',
        writable: answer.writable === true });
    }
    return Promise.resolve();
  }

  onComposerKey(event) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      this.send();
    }
  }

  onPageKey(event) {
    // Esc stops the turn unless something closer (a dialog, a menu, a rename
    // field) is using it.
    if (event.key !== 'Escape' || event.defaultPrevented || !this.running) return;
    if (document.querySelector('dialog[open]')) return;
    // In a card's own field (a deny reason, an answer) Esc is not meant for
    // the turn.
    const target = event.target;
    if (target !== this.input && target instanceof Element && target.closest('input, textarea, select')) return;
    event.preventDefault();
    this.stop();
  }
}
