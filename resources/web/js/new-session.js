// new-session.js: the "New session" dialog — which coworker, which folder.

import { api } from './api.js';
import { h, uid } from './dom.js';

// Resolves with the created session's id, or null when cancelled.
// @reusable(agent, workspace|null, serverFolder) may name an empty session to open
// instead of creating one.
export async function newSessionDialog({ reusable = () => null } = {}) {
  const titleId = uid('new-title');
  const folderId = uid('folder');
  const hintId = uid('folder-hint');
  const error = h('p', { class: 'form-error', role: 'alert' });
  const choices = h('div', { class: 'coworker-choices' }, h('p', { class: 'dim' }, 'Loading coworkers…'));
  const folder = h('input', {
    id: folderId, name: 'workspace', type: 'text', class: 'entry', spellcheck: 'false', autocomplete: 'off',
    placeholder: '/home/you/project', 'aria-describedby': hintId,
  });
  const hint = h('p', { id: hintId, class: 'field-hint' }, 'Leave empty to work in a new scratch folder.');
  const create = h('button', { type: 'submit', class: 'button suggested', disabled: true }, 'Create');
  const cancel = h('button', { type: 'button', class: 'button' }, 'Cancel');
  const form = h('form', { class: 'dialog-body' },
    h('h2', { id: titleId, class: 'dialog-title' }, 'New session'),
    h('fieldset', { class: 'field' }, h('legend', null, 'Coworker'), choices),
    h('div', { class: 'field' }, h('label', { for: folderId }, 'Folder'), folder, hint),
    error,
    h('div', { class: 'dialog-actions' }, cancel, create));
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form);
  document.body.append(dialog);

  let agents = [];
  // The folder the server was started in (--cwd): where a folder-gated
  // coworker works when none is given.
  let serverFolder = null;
  const selected = () => agents.find((a) => a.name === form.querySelector('input[name=agent]:checked')?.value);
  const updateHint = () => {
    const agent = selected();
    if (!agent?.requires_folder) hint.textContent = 'Leave empty to work in a new scratch folder.';
    else if (serverFolder) hint.textContent = `Leave empty to work in ${serverFolder}.`;
    else hint.textContent = `${agent.title || agent.name} works in a project folder: enter its path.`;
    folder.placeholder = agent?.requires_folder && serverFolder ? serverFolder : '/home/you/project';
  };
  api('/v1/health').then((health) => {
    serverFolder = typeof health?.default_workspace === 'string' ? health.default_workspace : null;
    updateHint();
  }).catch(() => {});

  api('/v1/agents').then((data) => {
    agents = Array.isArray(data?.agents) ? data.agents : [];
    if (agents.length === 0) {
      choices.replaceChildren(h('p', { class: 'form-error' }, 'The server lists no coworkers.'));
      return;
    }
    const fallback = agents.find((a) => a.default) || agents[0];
    choices.replaceChildren(...agents.map((a) => {
      const id = uid('agent');
      return h('label', { class: 'choice', for: id },
        h('input', { id, type: 'radio', name: 'agent', value: a.name, checked: a === fallback, onchange: updateHint }),
        h('span', { class: 'choice-text' },
          h('span', { class: 'choice-title' }, a.title || a.name),
          a.tagline ? h('span', { class: 'choice-detail' }, a.tagline) : null));
    }));
    create.disabled = false;
    updateHint();
  }).catch((e) => {
    choices.replaceChildren(h('p', { class: 'form-error' }, `Could not load the coworkers: ${e.message}`));
  });

  return new Promise((resolve) => {
    let result = null;
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const agent = selected();
      if (!agent) return;
      const workspace = folder.value.trim();
      if (agent.requires_folder && !workspace && !serverFolder) {
        error.textContent = 'Choose a folder for this coworker.';
        folder.focus();
        return;
      }
      create.disabled = true;
      error.textContent = '';
      const empty = reusable(agent.name, workspace || (agent.requires_folder ? serverFolder : null), serverFolder);
      if (empty) {
        result = empty.session_id;
        dialog.close();
        return;
      }
      try {
        const body = { agent: agent.name };
        if (workspace) body.workspace = workspace;
        const created = await api('/v1/sessions', { method: 'POST', body });
        result = created.session_id ?? created.session?.session_id ?? null;
        if (!result) throw new Error('The server did not say which session it created.');
        dialog.close();
      } catch (e) {
        error.textContent = e.message;
        create.disabled = false;
      }
    });
    dialog.showModal();
  });
}
