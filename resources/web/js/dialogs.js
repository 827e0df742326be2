// dialogs.js: modal dialogs on the native <dialog> element, which brings
// focus trapping, Esc to cancel and the backdrop for free.

import { h, uid } from './dom.js';

// Shows @content in a modal; resolves with the returnValue ('' on Esc).
export function showDialog({ title, content, actions, className }) {
  const titleId = uid('dialog-title');
  const form = h('form', { method: 'dialog', class: 'dialog-body' },
    h('h2', { id: titleId, class: 'dialog-title' }, title),
    content,
    h('div', { class: 'dialog-actions' }, actions));
  const dialog = h('dialog', { class: ['dialog', className], 'aria-labelledby': titleId }, form);
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue);
      dialog.remove();
    });
    dialog.showModal();
  });
}

// "Delete this session?" style confirmation; resolves true to go ahead.
export async function confirmDialog({ title, body, confirm, destructive = false }) {
  const result = await showDialog({
    title,
    content: h('p', null, body),
    actions: [
      h('button', { type: 'submit', value: 'cancel', class: 'button', autofocus: true }, 'Cancel'),
      h('button', { type: 'submit', value: 'ok', class: ['button', destructive ? 'destructive-suggested' : 'suggested'] },
        confirm),
    ],
  });
  return result === 'ok';
}
