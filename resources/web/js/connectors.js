// connectors.js: the Connectors page — the machine's MCP servers as the
// server runs them (GET /v1/mcp): status, last error, tool count and, when
// a row is opened, its tools; adding one by command line or URL, enabling,
// disabling, restarting and removing. Every change goes to the server's
// routes, which save mcp.json and apply it at once: the page shows what
// every session is offered.

import { api, path } from './api.js';
import { confirmDialog } from './dialogs.js';
import { h, uid } from './dom.js';

// Statuses change on their own (a server starting, crashing): looked at
// again this often while the page shows.
const POLL_MS = 1500;

const STATUS = {
  connected: ['Connected', 'ok'],
  connecting: ['Starting', ''],
  restarting: ['Restarting', ''],
  error: ['Error', 'error'],
  needs_auth: ['Needs sign-in', 'error'],
  disabled: ['Disabled', ''],
  configured: ['Not started', ''],
  stopped: ['Stopped', ''],
};

// A command line split as a shell would for plain words and quotes (no
// expansion): "npx -y 'a b'" → ["npx", "-y", "a b"]. Null when a quote is
// left open.
export function splitCommandLine(text) {
  const words = [];
  let word = null;
  let quote = null;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = null;
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) return null;
  if (word !== null) words.push(word);
  return words;
}

// The mcpServers entry for what the person typed.
export function entryForTarget(target) {
  const text = target.trim();
  if (/^https?:\/\//i.test(text)) return { url: text };
  const argv = splitCommandLine(text);
  if (!argv || argv.length === 0) return null;
  return { command: argv[0], args: argv.slice(1) };
}

export class ConnectorsPage {
  constructor(app) {
    this.app = app;
    this.timer = null;
    this.tools = new Map();   // server name → its tools, loaded when its row opens
    this.seen = null;         // the last GET /v1/mcp answer shown
    const nameId = uid('server-name');
    const targetId = uid('server-target');
    this.nameInput = h('input', { id: nameId, class: 'entry', autocomplete: 'off', spellcheck: 'false',
      placeholder: 'memory' });
    this.targetInput = h('input', { id: targetId, class: 'entry', autocomplete: 'off', spellcheck: 'false',
      placeholder: 'npx -y @modelcontextprotocol/server-memory  or  https://…/mcp' });
    this.addError = h('p', { class: 'form-error', role: 'alert' });
    this.addButton = h('button', { type: 'submit', class: 'button suggested' }, 'Add server');
    this.listEl = h('div', { class: 'provider-list', 'aria-label': 'MCP servers' },
      h('p', { class: 'dim connector-empty' }, 'Loading servers…'));
    const form = h('form', { class: 'provider-form connector-add', 'aria-label': 'Add a server',
      onsubmit: (event) => { event.preventDefault(); this.add(); } },
    h('div', { class: 'field' }, h('label', { for: nameId }, 'Name'), this.nameInput),
    h('div', { class: 'field' }, h('label', { for: targetId }, 'Command line or URL'), this.targetInput),
    h('div', { class: 'form-actions' }, h('span', { class: 'spacer' }), this.addButton),
    this.addError);
    this.el = h('section', { class: 'page connectors', 'aria-labelledby': 'connectors-title' },
      h('header', { class: 'page-header' },
        h('div', { class: 'page-heading' },
          h('h1', { id: 'connectors-title', class: 'page-title' }, 'Connectors'),
          h('p', { class: 'page-subtitle' },
            'MCP servers give every session more tools. Changes are saved in mcp.json and apply at once.'))),
      h('div', { class: 'scroller' }, h('div', { class: 'page-column' },
        h('h2', { class: 'group-title' }, 'MCP servers'), this.listEl,
        h('h2', { class: 'group-title' }, 'Add a server'), h('div', { class: 'boxed-list' }, form))));
  }

  mount(container) {
    container.replaceChildren(this.el);
    document.title = 'Connectors — OpenWorker';
    this.refresh();
    this.timer = setInterval(() => this.refresh(), POLL_MS);
  }

  unmount() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async refresh() {
    let data;
    try {
      data = await api('/v1/mcp');
    } catch (error) {
      this.listEl.replaceChildren(h('p', { class: 'form-error' }, `Could not load the servers: ${error.message}`));
      return;
    }
    const servers = Array.isArray(data?.servers) ? data.servers : [];
    // Rebuilt only when something changed, so polling never moves the
    // person's focus; an open row stays open.
    const seen = JSON.stringify(data);
    if (seen === this.seen) return;
    this.seen = seen;
    const open = new Set([...this.listEl.querySelectorAll('details[open]')].map((d) => d.dataset.server));
    const rows = servers.map((s) => this.serverRow(s, open.has(s.name)));
    if (data?.error) rows.unshift(h('p', { class: 'form-error' }, data.error));
    if (servers.length === 0 && !data?.error) {
      rows.push(h('p', { class: 'dim connector-empty' }, 'No servers yet. Add one below by its command or its URL.'));
    }
    this.listEl.replaceChildren(...rows);
    for (const s of servers) if (open.has(s.name)) this.loadTools(s);
  }

  serverRow(s, open) {
    const [word, tone] = STATUS[s.status] ?? [s.status, ''];
    const result = h('p', { class: 'provider-result', role: 'status' });
    const toolsEl = h('ul', { class: 'connector-tools', 'aria-label': `Tools of ${s.name}` });
    const cached = this.tools.get(s.name);
    if (cached) this.fillTools(toolsEl, cached, s.requires_approval);
    const run = async (label, action) => {
      result.className = 'provider-result';
      result.textContent = label;
      try {
        await action();
        result.textContent = '';
      } catch (error) {
        result.textContent = error.message;
        result.classList.add('error');
      }
    };
    const enabledId = uid('enabled');
    const enabled = h('input', { id: enabledId, type: 'checkbox', checked: Boolean(s.enabled),
      onchange: () => run(enabled.checked ? 'Enabling…' : 'Disabling…', async () => {
        await api(path`/v1/mcp/${s.name}`, { method: 'PATCH', body: { enabled: enabled.checked } });
        this.tools.delete(s.name);
        enabled.blur();
        await this.refresh();
      }) });
    const restart = h('button', { type: 'button', class: 'button', disabled: !s.enabled || s.status === 'disabled',
      onclick: () => run('Restarting…', async () => {
        await api(path`/v1/mcp/${s.name}/connect`, { method: 'POST' });
        this.tools.delete(s.name);
        restart.blur();
        await this.refresh();
      }) }, 'Restart');
    const remove = h('button', { type: 'button', class: 'button destructive', onclick: () => run('', async () => {
      const ok = await confirmDialog({ title: `Remove ${s.name}?`, destructive: true, confirm: 'Remove',
        body: 'Its tools leave every session at once, and its entry leaves mcp.json.' });
      if (!ok) return;
      await api(path`/v1/mcp/${s.name}`, { method: 'DELETE' });
      this.tools.delete(s.name);
      this.app.toast(`${s.name} was removed.`);
      remove.blur();
      await this.refresh();
    }) }, 'Remove');

    const details = h('details', { class: 'provider connector', open, dataset: { server: s.name, status: s.status },
      ontoggle: () => { if (details.open) this.loadTools(s); } },
    h('summary', null,
      h('span', { class: 'provider-title' }, s.name),
      h('span', { class: 'dim provider-facts connector-count' },
        s.status === 'connected' ? `${s.tool_count} ${s.tool_count === 1 ? 'tool' : 'tools'}` : s.transport),
      h('span', { class: 'spacer' }),
      h('span', { class: ['status-chip', tone], dataset: { role: 'status' } }, word),
      // The last error shows with the row closed: it is what to act on.
      s.last_error && (s.status === 'error' || s.status === 'needs_auth')
        ? h('span', { class: 'form-error connector-error' }, s.last_error) : null),
    h('div', { class: 'provider-form' },
      h('div', { class: 'form-actions' },
        h('label', { for: enabledId, class: 'connector-enabled' }, enabled, ' Enabled'),
        h('span', { class: 'spacer' }), restart, remove),
      result,
      toolsEl));
    return details;
  }

  async loadTools(s) {
    const name = s.name;
    let tools;
    try {
      tools = (await api(path`/v1/mcp/${name}/tools`)).tools ?? [];
    } catch (error) {
      tools = error.status === 404 ? [] : null;
    }
    if (tools === null) return;
    this.tools.set(name, tools);
    const el = this.listEl.querySelector(`details[data-server="${CSS.escape(name)}"] .connector-tools`);
    if (el) this.fillTools(el, tools, s.requires_approval);
  }

  fillTools(el, tools, asks) {
    el.replaceChildren(...(tools.length === 0 ? [h('li', { class: 'dim' }, 'No tools offered.')]
      : tools.map((t) => h('li', { class: 'model-row connector-tool', dataset: { tool: t.server_name } },
        h('code', { class: 'model-name' }, t.server_name),
        // The server's own title (the API falls back to the model's name for the tool).
        t.title && t.title !== t.name ? h('span', null, t.title) : null,
        h('span', { class: 'dim connector-description' }, t.description ?? ''),
        h('span', { class: 'spacer' }),
        asks ? h('span', { class: 'status-chip' }, 'Asks before running') : null))));
  }

  async add() {
    const name = this.nameInput.value.trim();
    const entry = entryForTarget(this.targetInput.value);
    this.addError.textContent = '';
    if (!name) {
      this.addError.textContent = 'Give the server a name.';
      this.nameInput.focus();
      return;
    }
    if (!entry) {
      this.addError.textContent = 'Give the server’s command line or its URL (check its quotes).';
      this.targetInput.focus();
      return;
    }
    this.addButton.disabled = true;
    try {
      await api('/v1/mcp', { method: 'POST', body: { name, config: entry } });
      this.nameInput.value = '';
      this.targetInput.value = '';
      this.app.toast(`${name} was added.`);
      await this.refresh();
    } catch (error) {
      this.addError.textContent = error.message;
    } finally {
      this.addButton.disabled = false;
    }
  }
}
