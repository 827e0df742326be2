// sidebar.js: navigation and the sessions list.
//
// Pinned sessions come first, then recent ones (the server orders by
// pinned, then last update); archived sessions sit behind a disclosure.
// Each row is a real link (#/s/<id>) with a menu button beside it for
// rename, pin, archive and delete.

import { api, path } from './api.js';
import { confirmDialog } from './dialogs.js';
import { h, fill, uid } from './dom.js';

const LIVENESS_TEXT = { working: 'Working', sleeping: 'Sleeping', idle: 'Idle' };

export class Sidebar {
  constructor(app) {
    this.app = app;
    this.menu = null;
    this.renaming = null;
    this.showArchived = false;

    this.inboxBadge = h('span', { class: 'badge count', hidden: true });
    this.pinnedList = h('ul', { class: 'session-list', 'aria-label': 'Pinned sessions' });
    this.recentList = h('ul', { class: 'session-list', 'aria-label': 'Recent sessions' });
    this.archivedList = h('ul', { class: 'session-list', 'aria-label': 'Archived sessions' });
    this.pinnedSection = h('section', { class: 'sidebar-section', hidden: true },
      h('h2', { class: 'sidebar-heading' }, 'Pinned'), this.pinnedList);
    this.recentSection = h('section', { class: 'sidebar-section' },
      h('h2', { class: 'sidebar-heading' }, 'Recent'), this.recentList);
    this.emptyNote = h('p', { class: 'sidebar-empty', hidden: true }, 'No sessions yet.');
    this.archivedToggle = h('button', {
      type: 'button', class: 'button flat small', 'aria-expanded': 'false',
      onclick: () => this.toggleArchived(),
    }, 'Show archived');
    this.archivedSection = h('section', { class: 'sidebar-section', hidden: true }, this.archivedList);

    this.navLinks = {
      inbox: h('a', { href: '#/inbox', class: 'nav-row' },
        h('span', { class: 'nav-icon icon-inbox', 'aria-hidden': 'true' }), h('span', null, 'Inbox'), this.inboxBadge),
      models: h('a', { href: '#/models', class: 'nav-row' },
        h('span', { class: 'nav-icon icon-key', 'aria-hidden': 'true' }), h('span', null, 'Models & Keys')),
      connectors: h('a', { href: '#/connectors', class: 'nav-row' },
        h('span', { class: 'nav-icon icon-plug', 'aria-hidden': 'true' }), h('span', null, 'Connectors')),
    };

    this.el = h('nav', { class: 'sidebar', 'aria-label': 'Sessions and pages' },
      h('div', { class: 'sidebar-header' },
        h('span', { class: 'brand' }, 'OpenWorker'),
        h('button', { type: 'button', class: 'button suggested small', onclick: () => this.app.newSession() },
          'New session')),
      h('div', { class: 'sidebar-nav' }, this.navLinks.inbox, this.navLinks.models, this.navLinks.connectors),
      h('div', { class: 'sidebar-scroll' },
        this.pinnedSection, this.recentSection, this.emptyNote,
        h('div', { class: 'archived-toggle' }, this.archivedToggle),
        this.archivedSection));

    document.addEventListener('click', (event) => {
      if (this.menu && !this.menu.el.contains(event.target) && event.target !== this.menu.button) this.closeMenu();
    });
  }

  setRoute(route) {
    this.route = route;
    for (const [name, link] of Object.entries(this.navLinks)) {
      if (route.page === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    for (const link of this.el.querySelectorAll('.session-link')) {
      if (route.page === 'session' && link.dataset.sessionId === route.id) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
  }

  setInboxCount(n) {
    this.inboxBadge.hidden = !n;
    this.inboxBadge.textContent = n ? String(n) : '';
    this.inboxBadge.setAttribute('aria-label', `${n} waiting`);
  }

  toggleArchived() {
    this.showArchived = !this.showArchived;
    this.archivedToggle.setAttribute('aria-expanded', String(this.showArchived));
    this.archivedToggle.textContent = this.showArchived ? 'Hide archived' : 'Show archived';
    this.forceRender = true;
    this.render(this.sessions || []);
  }

  render(sessions) {
    const snapshot = JSON.stringify(sessions);
    const changed = snapshot !== this.snapshot;
    this.sessions = sessions;
    // A row being renamed or with its menu open is left alone; the next
    // refresh redraws it. An unchanged list is not redrawn at all.
    if (this.renaming || this.menu || (!changed && !this.forceRender)) return;
    this.snapshot = snapshot;
    this.forceRender = false;
    const pinned = sessions.filter((s) => s.pinned && !s.archived);
    const recent = sessions.filter((s) => !s.pinned && !s.archived);
    const archived = sessions.filter((s) => s.archived);
    const focusedId = document.activeElement?.closest?.('.session-row')?.dataset.sessionId;
    fill(this.pinnedList, pinned.map((s) => this.row(s)));
    fill(this.recentList, recent.map((s) => this.row(s)));
    fill(this.archivedList, archived.map((s) => this.row(s)));
    this.pinnedSection.hidden = pinned.length === 0;
    this.recentSection.hidden = recent.length === 0;
    this.emptyNote.hidden = pinned.length + recent.length > 0;
    this.archivedToggle.hidden = archived.length === 0;
    this.archivedSection.hidden = !this.showArchived || archived.length === 0;
    if (this.route) this.setRoute(this.route);
    if (focusedId) this.el.querySelector(`.session-row[data-session-id="${CSS.escape(focusedId)}"] .session-link`)?.focus();
  }

  row(s) {
    const title = s.title || 'New session';
    const liveness = s.liveness || 'idle';
    const menuButton = h('button', {
      type: 'button',
      class: 'row-menu-button',
      'aria-label': `Actions for ${title}`,
      'aria-haspopup': 'menu',
      'aria-expanded': 'false',
      onclick: (event) => {
        event.stopPropagation();
        this.toggleMenu(s, menuButton);
      },
    }, '⋯');
    const link = h('a', {
      href: `#/s/${encodeURIComponent(s.session_id)}`,
      class: 'session-link',
      dataset: { sessionId: s.session_id },
      title: [title, s.workspace].filter(Boolean).join('\n'),
    },
    h('span', { class: ['agent-glyph', `agent-${s.agent || 'cowork'}`], 'aria-hidden': 'true' },
      (s.agent || 'c').slice(0, 1).toUpperCase()),
    h('span', { class: 'session-title' }, title),
    liveness !== 'idle'
      ? h('span', { class: ['liveness', `liveness-${liveness}`], title: LIVENESS_TEXT[liveness] || liveness },
        h('span', { class: 'visually-hidden' }, LIVENESS_TEXT[liveness] || liveness))
      : null,
    s.attention ? h('span', { class: 'badge count', title: 'Waiting for you' }, String(s.attention),
      h('span', { class: 'visually-hidden' }, ' waiting')) : null);
    return h('li', { class: ['session-row', s.pinned && 'pinned'], dataset: { sessionId: s.session_id } },
      link, menuButton);
  }

  // ---- Row menu ------------------------------------------------------------

  toggleMenu(s, button) {
    const same = this.menu && this.menu.sessionId === s.session_id;
    this.closeMenu();
    if (same) return;
    const item = (label, action, destructive = false) => h('button', {
      type: 'button', role: 'menuitem', class: ['menu-item', destructive && 'destructive'], tabindex: '-1',
      onclick: () => {
        this.closeMenu(true);
        action();
      },
    }, label);
    const menuId = uid('menu');
    const el = h('div', { id: menuId, class: 'menu', role: 'menu', 'aria-label': `Actions for ${s.title || 'session'}` },
      item('Rename…', () => this.startRename(s)),
      item(s.pinned ? 'Unpin' : 'Pin', () => this.patch(s, { pinned: !s.pinned })),
      item(s.archived ? 'Unarchive' : 'Archive', () => this.patch(s, { archived: !s.archived })),
      h('hr', { class: 'menu-separator', role: 'separator' }),
      item('Delete…', () => this.remove(s), true));
    el.addEventListener('keydown', (event) => this.menuKey(event));
    button.setAttribute('aria-expanded', 'true');
    button.setAttribute('aria-controls', menuId);
    button.closest('.session-row').append(el);
    this.menu = { el, button, sessionId: s.session_id };
    el.querySelector('[role=menuitem]').focus();
  }

  closeMenu(refocus = false) {
    if (!this.menu) return;
    const { el, button } = this.menu;
    this.menu = null;
    el.remove();
    button.setAttribute('aria-expanded', 'false');
    if (refocus) button.focus();
  }

  menuKey(event) {
    const items = [...this.menu.el.querySelectorAll('[role=menuitem]')];
    const at = items.indexOf(document.activeElement);
    const moves = { ArrowDown: 1, ArrowUp: -1 };
    if (event.key in moves) {
      event.preventDefault();
      items[(at + moves[event.key] + items.length) % items.length].focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1].focus();
    } else if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      this.closeMenu(true);
    }
  }

  // ---- Actions -------------------------------------------------------------

  async patch(s, changes) {
    try {
      await api(path`/v1/sessions/${s.session_id}`, { method: 'PATCH', body: changes });
    } catch (error) {
      this.app.toast(error.message, 'error');
    }
    await this.app.refreshSessions();
  }

  startRename(s) {
    const row = this.el.querySelector(`.session-row[data-session-id="${CSS.escape(s.session_id)}"]`);
    if (!row) return;
    const inputId = uid('rename');
    const input = h('input', { id: inputId, type: 'text', class: 'entry rename-entry', value: s.title || '', maxlength: '120' });
    const form = h('form', { class: 'rename-form' },
      h('label', { for: inputId, class: 'visually-hidden' }, 'Session name'), input);
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true;
      this.renaming = null;
      this.forceRender = true; // the row holds the rename field: redraw it
      const title = input.value.trim();
      if (save && title && title !== s.title) {
        try {
          await api(path`/v1/sessions/${s.session_id}`, { method: 'PATCH', body: { title } });
        } catch (error) {
          this.app.toast(error.message, 'error');
        }
      }
      await this.app.refreshSessions();
      this.el.querySelector(`.session-row[data-session-id="${CSS.escape(s.session_id)}"] .session-link`)?.focus();
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      finish(true);
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        finish(false);
      }
    });
    input.addEventListener('blur', () => finish(true));
    this.renaming = s.session_id;
    row.replaceChildren(form);
    input.focus();
    input.select();
  }

  async remove(s) {
    const ok = await confirmDialog({
      title: 'Delete this session?',
      body: `“${s.title || 'New session'}” and its messages will be deleted. Files it wrote stay where they are.`,
      confirm: 'Delete',
      destructive: true,
    });
    if (!ok) return;
    try {
      await api(path`/v1/sessions/${s.session_id}`, { method: 'DELETE' });
    } catch (error) {
      this.app.toast(error.message, 'error');
    }
    if (this.route?.page === 'session' && this.route.id === s.session_id) location.hash = '#/';
    await this.app.refreshSessions();
  }
}
