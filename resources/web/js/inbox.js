// inbox.js: everything waiting for a person, across sessions, answered in
// place. The first answer wins: if another surface answered an item first,
// the server says so and the card shows it.

import { api, path } from './api.js';
import { askFromInboxItem, renderAskCard } from './cards.js';
import { h, relativeTime } from './dom.js';
import { decisionText } from './humanize.js';

const REFRESH_MS = 4000;

export class InboxPage {
  constructor(app) {
    this.app = app;
    this.cards = new Map(); // item id → {handle, el}
    this.list = h('div', { class: 'inbox-list' });
    this.empty = h('div', { class: 'empty-state', hidden: true },
      h('p', { class: 'empty-title' }, 'Nothing is waiting for you'),
      h('p', { class: 'dim' }, 'Approvals, questions and folder requests from every session land here.'));
    this.error = h('p', { class: 'form-error', role: 'alert' });
    this.el = h('section', { class: 'page inbox', 'aria-labelledby': 'inbox-title' },
      h('header', { class: 'page-header' },
        h('div', { class: 'page-heading' },
          h('h1', { id: 'inbox-title', class: 'page-title' }, 'Inbox'),
          h('p', { class: 'page-subtitle' }, 'Requests from all sessions'))),
      h('div', { class: 'scroller' }, h('div', { class: 'page-column' }, this.error, this.empty, this.list)));
  }

  mount(container) {
    container.replaceChildren(this.el);
    document.title = 'Inbox — OpenWorker';
    this.refresh();
    this.timer = setInterval(() => {
      if (!document.hidden) this.refresh();
    }, REFRESH_MS);
  }

  unmount() {
    clearInterval(this.timer);
  }

  async refresh() {
    let items;
    try {
      const data = await api('/v1/inbox?state=pending');
      items = Array.isArray(data?.items) ? data.items : [];
      this.error.textContent = '';
    } catch (error) {
      this.error.textContent = `Could not load the inbox: ${error.message}`;
      return;
    }
    const pending = items.filter((item) => (item.state ?? 'pending') === 'pending');
    const ids = new Set(pending.map((item) => item.id));
    // Items answered elsewhere close; their cards stay until the next visit.
    for (const [id, entry] of this.cards) {
      if (!ids.has(id) && !entry.handle.closed) entry.handle.close('Answered elsewhere');
    }
    for (const item of pending) {
      if (!this.cards.has(item.id)) this.addItem(item);
    }
    this.empty.hidden = this.list.childElementCount > 0;
    this.app.setInboxCount(pending.length);
  }

  addItem(item) {
    const ask = askFromInboxItem(item);
    const handle = renderAskCard(ask, {
      heading: 'h2',
      onAnswer: (answer) => this.resolve(item, ask, answer, handle),
    });
    const sessionTitle = item.session_title || 'Session';
    const context = h('p', { class: 'inbox-context' },
      h('a', { href: `#/s/${encodeURIComponent(item.session_id)}`, class: 'session-chip' }, sessionTitle),
      item.session_agent ? h('span', { class: 'dim' }, ` · ${item.session_agent}`) : null,
      item.session_workspace ? h('span', { class: 'dim' }, ` · ${item.session_workspace}`) : null,
      item.created_at ? h('span', { class: 'dim', title: item.created_at }, ` · ${relativeTime(item.created_at)}`) : null);
    handle.el.prepend(context);
    handle.el.dataset.itemId = item.id;
    this.cards.set(item.id, { handle, el: handle.el });
    this.list.prepend(handle.el);
  }

  async resolve(item, ask, answer, handle) {
    // The card's answer object is what the route takes: {decision, reason?},
    // {answer} or {granted, path, writable}.
    await api(path`/v1/inbox/${item.id}/resolve`, { method: 'POST', body: { resolution: answer } });
    handle.close(outcomeText(ask.kind, answer));
    this.app.refreshInboxCount();
  }
}

function outcomeText(kind, answer) {
  if (kind === 'question') return `Answered: ${answer.answer}`;
  if (kind === 'directory') return answer.granted ? `Access granted: ${answer.path}` : 'Declined';
  return decisionText(answer.decision);
}
