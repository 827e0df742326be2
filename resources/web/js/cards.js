// cards.js: the request cards — approvals, site access, questions, folder
// requests — shared by the conversation and the inbox.
//
// A card only collects the person's answer; the caller decides how it
// travels (a WebSocket frame in a conversation, a POST from the inbox).
// Answers are {decision, reason?} for approvals and sites, {answer} for
// questions and {granted, path, writable} for folders. A card stays open
// until the server says the ask is resolved ("approval_resolved"), which
// may come from another surface; then close() replaces its buttons with
// what was decided.

import { append, h, uid } from './dom.js';
import { decisionText, fileContentView, prettyValue, toolPhrase } from './humanize.js';

// An ask from a session event, or null when @type is not one.
export function askFromEvent(type, data, sessionId) {
  const kinds = {
    permission_required: 'approval',
    site_requested: 'site',
    question_requested: 'question',
    directory_requested: 'directory',
  };
  if (!kinds[type]) return null;
  return { kind: kinds[type], callId: data.call_id ?? null, sessionId, data };
}

// An ask from an inbox item ({id, session_id, call_id, kind, data, …}).
export function askFromInboxItem(item) {
  const data = { ...(item.data || {}) };
  let kind = item.kind;
  if (kind === 'approval' && data.site) kind = 'site';
  if (kind === 'approval' || kind === 'site') {
    // The inbox keeps the attendant's request: tool, risk, suggested_rule.
    data.name ??= data.tool;
    data.reason ??= item.body;
    data.category ??= data.risk;
    data.standing_target ??= data.suggested_rule ?? null;
  }
  if (kind === 'question') data.question ??= item.title;
  if (kind === 'directory') data.reason ??= item.body;
  return { kind, callId: item.call_id ?? item.tool_call_id ?? null, sessionId: item.session_id, data, item };
}

// Builds the card. @onAnswer(answer) → Promise; a rejection is shown on the
// card and its buttons come back.
export function renderAskCard(ask, { onAnswer, heading = 'h3' } = {}) {
  const builders = { approval: approvalCard, site: siteCard, question: questionCard, directory: directoryCard };
  const build = builders[ask.kind] || unknownCard;
  const titleId = uid('card-title');
  const status = h('p', { class: 'card-status', role: 'status' });
  const card = h('section', {
    class: ['ask-card', `ask-${ask.kind}`],
    'aria-labelledby': titleId,
    dataset: { callId: ask.callId ?? '', kind: ask.kind },
  });
  let closed = false;

  const submit = async (answer) => {
    if (closed) return;
    setBusy(true);
    status.textContent = 'Sending…';
    status.classList.remove('error');
    try {
      await onAnswer(answer);
      if (!closed) status.textContent = 'Sent — waiting for the session…';
    } catch (error) {
      status.textContent = error.message || String(error);
      status.classList.add('error');
      setBusy(false);
    }
  };
  const setBusy = (busy) => {
    for (const control of card.querySelectorAll('button, input, textarea')) control.disabled = busy;
  };

  append(card, [build(ask, submit, titleId, heading), status]);

  return {
    el: card,
    // Replaces the controls with the outcome; @text e.g. "Allowed once".
    close(text) {
      if (closed) return;
      closed = true;
      for (const controls of card.querySelectorAll('.card-actions, .card-form')) controls.remove();
      status.textContent = text;
      status.classList.remove('error');
      card.classList.add('resolved');
    },
    get closed() {
      return closed;
    },
  };
}

function header(icon, titleId, heading, ...title) {
  return h('header', { class: 'card-header' },
    h('span', { class: ['card-icon', `icon-${icon}`], 'aria-hidden': 'true' }),
    h(heading, { id: titleId, class: 'card-title' }, ...title));
}

function button(label, onClick, { primary = false, destructive = false, name } = {}) {
  return h('button', {
    type: 'button',
    class: ['button', primary && 'suggested', destructive && 'destructive'],
    'data-decision': name,
    onclick: onClick,
  }, label);
}

// The deny reason field, shared by approvals and sites.
function reasonField() {
  const id = uid('deny-reason');
  const input = h('input', { id, type: 'text', class: 'entry', maxlength: '500', autocomplete: 'off' });
  const row = h('div', { class: 'card-form reason-row' },
    h('label', { for: id }, 'Reason if you deny (optional)'), input);
  return { row, input };
}

// What the call will do, in a form a person can check before allowing it.
function argumentsView(name, args) {
  const a = args && typeof args === 'object' ? args : {};
  if (name === 'run_shell' && typeof a.command === 'string') {
    return h('pre', { class: 'card-command' }, h('code', null, a.command));
  }
  if (name === 'write_file' && typeof a.content === 'string') return fileContentView(a.path, a.content);
  if (Object.keys(a).length === 0) return null;
  return h('details', { class: 'card-args' },
    h('summary', null, 'Details'),
    h('pre', null, h('code', null, prettyValue(a))));
}

function approvalCard(ask, submit, titleId, heading) {
  const d = ask.data;
  const name = d.name || d.tool || 'tool';
  const isShell = name === 'run_shell';
  const safety = d.safety_check === true;
  const { row: reasonRow, input: reasonInput } = reasonField();
  const decide = (decision) => () => {
    const answer = { decision };
    if (decision === 'deny' && reasonInput.value.trim()) answer.reason = reasonInput.value.trim();
    submit(answer);
  };

  const badges = h('p', { class: 'card-badges' },
    d.category ? h('span', { class: 'badge' }, `Risk: ${d.category}`) : null,
    safety ? h('span', { class: 'badge warning' }, 'Safety check — asked every time') : null);

  const actions = h('div', { class: 'card-actions' },
    button('Deny', decide('deny'), { destructive: true, name: 'deny' }),
    h('span', { class: 'spacer' }),
    !safety && d.standing_target
      ? button('Always allow', decide('always_task'), { name: 'always_task' }) : null,
    !safety ? button(isShell ? 'Allow this command for this session' : 'Allow for this session',
      decide(isShell ? 'always_command' : 'always_tool'), { name: isShell ? 'always_command' : 'always_tool' }) : null,
    isShell && d.readonly_ok && !safety
      ? button('Allow read-only commands', decide('readonly_session'), { name: 'readonly_session' }) : null,
    button('Allow once', decide('once'), { primary: true, name: 'once' }));

  return [
    header('approval', titleId, heading, 'Allow: ', ...toolPhrase(name, d.arguments), '?'),
    d.reason ? h('p', { class: 'card-reason' }, d.reason) : null,
    badges.childElementCount ? badges : null,
    argumentsView(name, d.arguments),
    d.standing_target && !safety
      ? h('p', { class: 'card-note' }, 'Always allow saves a standing rule you can revoke: ',
        h('code', null, d.standing_target)) : null,
    d.reviewer_reasoning ? h('p', { class: 'card-note' }, `Reviewer: ${d.reviewer_reasoning}`) : null,
    reasonRow,
    actions,
  ];
}

function siteCard(ask, submit, titleId, heading) {
  const d = ask.data;
  const { row: reasonRow, input: reasonInput } = reasonField();
  // request_network_access is asked for the session: "once" means nothing
  // to a sandbox that keeps running.
  const onceMeaningful = d.name !== 'request_network_access';
  const decide = (decision) => () => {
    const answer = { decision };
    if (decision === 'deny' && reasonInput.value.trim()) answer.reason = reasonInput.value.trim();
    submit(answer);
  };
  return [
    header('site', titleId, heading, 'Let this session reach ', h('code', null, d.site || d.host || 'a site'), '?'),
    d.reason ? h('p', { class: 'card-reason' }, d.reason) : null,
    reasonRow,
    h('div', { class: 'card-actions' },
      button('Deny', decide('deny'), { destructive: true, name: 'deny' }),
      h('span', { class: 'spacer' }),
      button('Always allow', decide('always_task'), { name: 'always_task' }),
      button('Allow for this session', decide('always_tool'), { primary: !onceMeaningful, name: 'always_tool' }),
      onceMeaningful ? button('Allow once', decide('once'), { primary: true, name: 'once' }) : null),
  ];
}

function questionCard(ask, submit, titleId, heading) {
  const d = ask.data;
  const options = Array.isArray(d.options) ? d.options.map((o) => (typeof o === 'string' ? o : o?.label ?? String(o))) : [];
  const allowText = d.allow_text !== false || options.length === 0;
  const multi = d.multi === true;
  const parts = [
    header('question', titleId, heading, d.header ? h('span', { class: 'chip' }, d.header) : null, d.question || 'A question'),
  ];
  const form = h('div', { class: 'card-form' });
  const checks = [];

  if (options.length && !multi) {
    form.append(h('div', { class: 'card-options', role: 'group', 'aria-label': 'Answers' },
      options.map((option) => button(option, () => submit({ answer: option }), { name: 'option' }))));
  } else if (options.length) {
    const group = h('fieldset', { class: 'card-options' }, h('legend', null, 'Choose any'));
    for (const option of options) {
      const box = h('input', { type: 'checkbox', value: option });
      checks.push(box);
      group.append(h('label', { class: 'check' }, box, ` ${option}`));
    }
    form.append(group);
  }
  let text = null;
  if (allowText || multi) {
    const id = uid('answer');
    text = h('textarea', { id, class: 'entry', rows: '2' });
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        send();
      }
    });
    if (allowText) form.append(h('label', { for: id }, options.length ? 'Or answer in your own words' : 'Your answer'), text);
    else text = null;
  }
  const send = () => {
    const chosen = checks.filter((c) => c.checked).map((c) => c.value);
    const typed = text ? text.value.trim() : '';
    const answer = [...chosen, ...(typed ? [typed] : [])].join(', ');
    if (!answer) return;
    submit({ answer });
  };
  if (text || multi) form.append(h('div', { class: 'card-actions' }, h('span', { class: 'spacer' }),
    button('Send answer', send, { primary: true, name: 'answer' })));
  parts.push(form);
  return parts;
}

function directoryCard(ask, submit, titleId, heading) {
  const d = ask.data;
  const pathId = uid('folder');
  const path = h('input', { id: pathId, type: 'text', class: 'entry', value: d.path || '', spellcheck: 'false',
    placeholder: '/path/to/folder' });
  const writable = h('input', { type: 'checkbox', checked: d.writable === true });
  return [
    header('folder', titleId, heading, 'Grant access to a folder?'),
    d.reason ? h('p', { class: 'card-reason' }, d.reason) : null,
    h('div', { class: 'card-form' },
      h('label', { for: pathId }, 'Folder'), path,
      h('label', { class: 'check' }, writable, ' Allow changes (read-write)')),
    h('div', { class: 'card-actions' },
      button('Decline', () => submit({ granted: false }), { destructive: true, name: 'decline' }),
      h('span', { class: 'spacer' }),
      button('Grant access', () => {
        if (!path.value.trim()) {
          path.focus();
          return;
        }
        submit({ granted: true, path: path.value.trim(), writable: writable.checked });
      }, { primary: true, name: 'grant' })),
  ];
}

function unknownCard(ask, submit, titleId, heading) {
  return [
    header('question', titleId, heading, 'The session is waiting for an answer'),
    h('pre', null, h('code', null, prettyValue(ask.data))),
  ];
}

// The words for an approval_resolved event's outcome.
export function resolvedText(data) {
  const by = data.resolved_by || data.answered_by;
  let text;
  if (data.decision === 'interrupted') text = decisionText('interrupted');
  else if (data.kind === 'question' || data.kind === 'directory') text = 'Answered';
  else if (data.kind === 'site' && data.decision !== 'deny') text = `Site ${decisionText(data.decision).toLowerCase()}`;
  else text = decisionText(data.decision);
  if (data.by_rule) text += ' (by a rule)';
  if (by) text += ` — from ${by}`;
  return text;
}
