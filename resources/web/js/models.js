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
    // Cloud and reseller services get a base-URL field (a proxy, a gateway,
    // a compatible server); local servers are set up where they run.
    const baseId = uid('base-url');
    const baseUrl = p.group === 'local' ? null : h('input', {
      id: baseId,
      type: 'url',
      class: 'entry',
      autocomplete: 'off',
      spellcheck: 'false',
      value: p.values?.base_url ?? '',
      placeholder: (p.base_url_source === 'env' ? p.base_url : p.default_base_url) || 'https://…',
    });
    const typedBase = () => (baseUrl ? baseUrl.value.trim() : '');
    const baseChanged = () => baseUrl && typedBase() !== (p.values?.base_url ?? '');
    const typedKey = () => ({
      ...(key && key.value.trim() ? { api_key: key.value.trim() } : {}),
      ...(baseChanged() ? { base_url: typedBase() || null } : {}),
    });

    const verify = h('button', { type: 'button', class: 'button', onclick: () => run('Checking…', async () => {
      const fields = typedKey();
      if (fields.base_url === null) delete fields.base_url;
      const answer = await api('/v1/providers/verify', { method: 'POST', body: { name, fields } });
      result.textContent = answer?.ok === false ? answer.error : `${title} accepted the key.`;
      result.classList.add('success');
    }) }, key && !p.has_key ? 'Verify' : 'Test');
    controls.push(verify);
    let save = null;
    if (key || baseUrl) {
      save = h('button', { type: 'submit', class: 'button suggested' }, key ? 'Save' : 'Save base URL');
      controls.push(...[key, baseUrl].filter(Boolean), save);
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
      const fields = typedKey();
      if (!fields.api_key && !('base_url' in fields)) {
        (key ?? baseUrl)?.focus();
        return;
      }
      run('Saving…', async () => {
        const saved = await api('/v1/providers', { method: 'POST', body: { name, fields } });
        if (key) key.value = '';
        const what = fields.api_key ? `${title} key saved` : `${title} base URL saved`;
        this.app.toast(saved?.default_model ? `${what} — ${saved.default_model} is now the default model.` : `${what}.`);
        await this.refresh();
      });
    } },
    key ? h('div', { class: 'field' }, h('label', { for: keyId }, 'API key'), key,
      p.key_env ? h('p', { class: 'field-hint' }, 'Or set ', h('code', null, p.key_env), ' in the server’s environment.') : null)
      : h('p', { class: 'dim' }, 'This provider needs no key.'),
    baseUrl ? h('div', { class: 'field' }, h('label', { for: baseId }, 'Base URL (optional)'), baseUrl,
      h('p', { class: 'field-hint' }, 'Leave empty for ', h('code', null, p.default_base_url || 'the default'),
        p.base_url_env ? [' or ', h('code', null, p.base_url_env), ' in the server’s environment'] : null,
        '. Saved in config.toml under ', h('code', null, `[providers.${name}]`), '.')) : null,
    h('p', { class: 'field-hint provider-endpoint' }, 'Endpoint: ', h('code', null, p.base_url || p.default_base_url || 'default'),
      ENDPOINT_SOURCE[p.base_url_source] ? ` (${ENDPOINT_SOURCE[p.base_url_source](p)})` : null,
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
    let data;
    try {
      data = await api('/v1/settings/models');
    } catch (error) {
      this.modelsEl.replaceChildren(h('p', { class: 'form-error' }, `Could not load the models: ${error.message}`));
      return;
    }
    const choices = Array.isArray(data?.choices) ? data.choices : [];
    if (choices.length === 0) {
      this.modelsEl.replaceChildren(h('p', { class: 'dim' }, 'No model is ready yet: save a provider’s key below.'));
      return;
    }
    // The default model, for every new session on every surface; only the
    // one kept in model_config.json can change here.
    const pickerId = uid('default-model');
    const fixed = data.default_source === 'env' || data.default_source === 'config';
    const picker = h('select', { id: pickerId, class: 'dropdown', disabled: fixed,
      onchange: () => this.setDefault(picker.value) },
    data.default ? null : h('option', { value: '', disabled: true }, 'Choose the default model'),
    choices.map((c) => h('option', { value: c.id }, c.label || c.id)));
    if (data.default && !choices.some((c) => c.id === data.default)) {
      picker.prepend(h('option', { value: data.default }, data.default));
    }
    picker.value = data.default ?? '';
    this.modelsEl.replaceChildren(
      h('div', { class: 'field default-model' }, h('label', { for: pickerId }, 'Default model'), picker,
        h('p', { class: 'field-hint' }, fixed
          ? [data.default_source === 'env' ? 'OPENWORKER_MODEL' : 'model in config.toml', ' chooses it; change it there.']
          : 'New sessions use it, here, in the desktop app and in openworker run.')),
      h('ul', { class: 'boxed-list', 'aria-label': 'Models' }, choices.map((m) =>
        h('li', { class: 'model-row', dataset: { model: m.id } },
          h('code', { class: 'model-name' }, m.id),
          h('span', { class: 'dim' }, m.label),
          h('span', { class: 'spacer' }),
          m.id === data.default ? h('span', { class: 'status-chip ok' }, 'Default') : null))));
  }

  async setDefault(model) {
    if (!model) return;
    try {
      await api('/v1/settings/model-config', { method: 'POST', body: { model, values: { default: true } } });
      this.app.toast(`${model} is now the default model.`);
    } catch (error) {
      this.app.toast(`Could not set the default model: ${error.message}`, 'error');
    }
    await this.loadModels();
  }
}

const ENDPOINT_SOURCE = {
  env: (p) => `from ${p.base_url_env || 'the environment'}`,
  config: () => 'from config.toml',
};

function stateChip(p) {
  if (p.needs_key === false) return h('span', { class: 'status-chip ok' }, 'No key needed');
  if (p.key_source === 'store') return h('span', { class: 'status-chip ok' }, 'Key saved');
  if (p.key_source === 'env') return h('span', { class: 'status-chip ok' }, 'Key from environment');
  return h('span', { class: 'status-chip' }, 'Not configured');
}
