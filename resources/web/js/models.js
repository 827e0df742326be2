// models.js: the Models & Keys page — which providers have a key, pasting,
// verifying and removing one, and the models the sessions can use.
//
// A pasted key goes to the server in a POST body and from there into the
// OS secret store; no answer ever carries a key back, so the field is
// cleared after saving. Keys from the environment are shown as such: they
// can be tested here but only removed where they were set.

import { api, path } from './api.js';
import { h, relativeTime, uid } from './dom.js';

export class ModelsPage {
  constructor(app) {
    this.app = app;
    this.providersEl = h('div', { class: 'provider-list' }, h('p', { class: 'dim' }, 'Loading providers…'));
    this.modelsEl = h('div', { class: 'model-list' }, h('p', { class: 'dim' }, 'Loading models…'));
    this.el = h('section', { class: 'page models', 'aria-labelledby': 'models-title' },
      h('header', { class: 'page-header' },
        h('div', { class: 'page-heading' },
          h('h1', { id: 'models-title', class: 'page-title' }, 'Models & Keys'),
          h('p', { class: 'page-subtitle' }, 'Keys are kept in your system’s secret store, never in a file.'))),
      h('div', { class: 'scroller' }, h('div', { class: 'page-column' },
        h('h2', { class: 'group-title' }, 'Models'), this.modelsEl,
        h('h2', { class: 'group-title' }, 'Providers'), this.providersEl)));
  }

  mount(container) {
    container.replaceChildren(this.el);
    document.title = 'Models & Keys — OpenWorker';
    this.refresh();
  }

  unmount() {}

  async refresh() {
    await Promise.all([this.loadProviders(), this.loadModels()]);
  }

  async loadProviders() {
    let providers;
    try {
      const data = await api('/v1/providers');
      providers = Array.isArray(data) ? data : Array.isArray(data?.providers) ? data.providers : [];
    } catch (error) {
      this.providersEl.replaceChildren(h('p', { class: 'form-error' }, `Could not load the providers: ${error.message}`));
      return;
    }
    // Providers with a key first, then the catalog order.
    const sorted = [...providers].sort((a, b) => Number(Boolean(b.has_key)) - Number(Boolean(a.has_key)));
    // An open row stays open across a refresh.
    const open = new Set([...this.providersEl.querySelectorAll('details[open]')].map((d) => d.dataset.provider));
    this.providersEl.replaceChildren(...sorted.map((p) => this.providerRow(p, open.has(p.name ?? p.id))));
  }

  providerRow(p, open) {
    const name = p.name ?? p.id;
    const title = p.title || name;
    const result = h('p', { class: 'provider-result', role: 'status' });
    const keyId = uid('key');
    const key = p.needs_key === false ? null : h('input', {
      id: keyId,
      type: 'password',
      class: 'entry',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: p.key_source === 'store' ? 'A key is saved — paste a new one to replace it' : 'Paste the API key',
    });
    const controls = [];
    const run = async (label, action) => {
      for (const control of controls) control.disabled = true;
      result.className = 'provider-result';
      result.textContent = label;
      try {
        await action();
      } catch (error) {
        result.textContent = error.message;
        result.classList.add('error');
      } finally {
        for (const control of controls) control.disabled = false;
      }
    };
    const typedKey = () => (key && key.value.trim() ? { api_key: key.value.trim() } : {});

    const verify = h('button', { type: 'button', class: 'button', onclick: () => run('Checking…', async () => {
      const answer = await api('/v1/providers/verify', { method: 'POST', body: { name, fields: typedKey() } });
      result.textContent = answer?.ok === false ? answer.error : `${title} accepted the key.`;
      result.classList.add('success');
    }) }, key && !p.has_key ? 'Verify' : 'Test');
    controls.push(verify);
    let save = null;
    if (key) {
      save = h('button', { type: 'submit', class: 'button suggested' }, 'Save key');
      controls.push(key, save);
    }
    let remove = null;
    if (p.key_source === 'store') {
      remove = h('button', { type: 'button', class: 'button destructive', onclick: () => run('Removing…', async () => {
        await api(path`/v1/providers/${name}`, { method: 'DELETE' });
        this.app.toast(`${title}’s key was removed.`);
        await this.refresh();
      }) }, 'Remove key');
      controls.push(remove);
    }

    const form = h('form', { class: 'provider-form', onsubmit: (event) => {
      event.preventDefault();
      if (!key || !key.value.trim()) {
        key?.focus();
        return;
      }
      run('Saving…', async () => {
        const saved = await api('/v1/providers', { method: 'POST', body: { name, fields: typedKey() } });
        key.value = '';
        this.app.toast(`${title} key saved${saved?.recommended_model ? ` — try ${saved.recommended_model}` : ''}.`);
        await this.refresh();
      });
    } },
    key ? h('div', { class: 'field' }, h('label', { for: keyId }, 'API key'), key,
      p.key_env ? h('p', { class: 'field-hint' }, 'Or set ', h('code', null, p.key_env), ' in the server’s environment.') : null)
      : h('p', { class: 'dim' }, 'This provider needs no key.'),
    h('p', { class: 'field-hint' }, 'Endpoint: ', h('code', null, p.values?.base_url || p.default_base_url || 'default'),
      p.recommended_model ? [' · recommended model ', h('code', null, p.recommended_model)] : null),
    h('div', { class: 'form-actions' }, remove, h('span', { class: 'spacer' }), verify, save),
    result);

    const facts = [
      p.key_set_at ? `key added ${relativeTime(p.key_set_at)}` : null,
      p.last_used_at ? `last used ${relativeTime(p.last_used_at)}` : null,
    ].filter(Boolean).join(' · ');
    return h('details', { class: 'provider', open, dataset: { provider: name } },
      h('summary', null,
        h('span', { class: 'provider-title' }, title),
        facts ? h('span', { class: 'dim provider-facts' }, facts) : null,
        h('span', { class: 'spacer' }),
        stateChip(p)),
      form);
  }

  async loadModels() {
    try {
      const [list, health] = await Promise.all([api('/v1/models'), api('/v1/health')]);
      const models = Array.isArray(list?.data) ? list.data : [];
      if (models.length === 0) {
        this.modelsEl.replaceChildren(h('p', { class: 'dim' }, 'No model is ready yet: save a provider’s key below.'));
        return;
      }
      this.modelsEl.replaceChildren(h('ul', { class: 'boxed-list', 'aria-label': 'Models' }, models.map((m) =>
        h('li', { class: 'model-row', dataset: { model: m.id } },
          h('code', { class: 'model-name' }, m.id),
          m.owned_by ? h('span', { class: 'dim' }, m.owned_by) : null,
          h('span', { class: 'spacer' }),
          m.id === health?.model ? h('span', { class: 'status-chip ok' }, 'Default') : null))));
    } catch (error) {
      this.modelsEl.replaceChildren(h('p', { class: 'form-error' }, `Could not load the models: ${error.message}`));
    }
  }
}

function stateChip(p) {
  if (p.needs_key === false) return h('span', { class: 'status-chip ok' }, 'No key needed');
  if (p.key_source === 'store') return h('span', { class: 'status-chip ok' }, 'Key saved');
  if (p.key_source === 'env') return h('span', { class: 'status-chip ok' }, 'Key from environment');
  return h('span', { class: 'status-chip' }, 'Not configured');
}
