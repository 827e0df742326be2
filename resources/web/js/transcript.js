// transcript.js: one conversation as the person sees it.
//
// The transcript is built from the same event stream whether it is live or
// replayed after a reload: person messages (turn_start), streamed answer
// text and reasoning (deltas, settled by assistant_message), tool steps
// that move proposed → waiting/running → finished, request cards that stay
// open until "approval_resolved", and notices. The server keeps every
// event in the session's log, so replaying it rebuilds exactly what was
// shown live — tool statuses, provenance and answered cards included —
// which the saved messages alone could not.
//
// Streaming text is re-rendered at most once per animation frame, so a
// fast model or a long replay costs a handful of Markdown passes, not one
// per delta.

import { copyButton, h, fill } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { STEP_STATUS, fileContentView, prettyValue, toolPhrase } from './humanize.js';
import { askFromEvent, renderAskCard, resolvedText } from './cards.js';

const FOLLOW_SLACK_PX = 48;

export class Transcript {
  // @scroller: the scrolling element around @root. @onAnswer(ask, answer)
  // → Promise sends a card's answer; @onRetry() asks to re-run after an error.
  // @onStepDone(name, args, status) hears of each finished tool step.
  constructor(root, scroller, { sessionId, onAnswer, onRetry, onStepDone }) {
    this.root = root;
    this.scroller = scroller;
    this.sessionId = sessionId;
    this.onAnswer = onAnswer;
    this.onRetry = onRetry;
    this.onStepDone = onStepDone;
    this.steps = new Map();   // call_id → step
    this.cards = new Map();   // call_id → card handle
    this.assistant = null;    // the answer block being streamed
    this.reasoning = null;    // the reasoning block being streamed
    this.dirty = new Set();
    this.frame = 0;
  }

  // ---- Following the bottom ------------------------------------------------

  atBottom() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight < FOLLOW_SLACK_PX;
  }

  // Runs @change, keeping the view pinned to the bottom if it was there.
  follow(change) {
    const pinned = this.atBottom();
    change();
    if (pinned) this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  add(el) {
    this.follow(() => this.root.append(el));
    return el;
  }

  // ---- Streaming blocks ----------------------------------------------------

  markDirty(block) {
    this.dirty.add(block);
    if (this.frame) return;
    const flush = () => {
      this.frame = 0;
      this.flush();
    };
    // Hidden tabs get no animation frames; a timer keeps replays moving.
    this.frame = document.hidden ? setTimeout(flush, 50) : requestAnimationFrame(flush);
  }

  flush() {
    const blocks = [...this.dirty];
    this.dirty.clear();
    this.follow(() => {
      for (const block of blocks) {
        fill(block.body, renderMarkdown(block.text));
        addCodeCopyButtons(block.body);
      }
    });
  }

  ensureReasoning() {
    if (this.reasoning) return this.reasoning;
    const body = h('div', { class: 'reasoning-body' });
    const el = h('details', { class: 'reasoning' },
      h('summary', null, h('span', { class: 'reasoning-label' }, 'Thinking')), body);
    this.reasoning = { el, body, text: '' };
    this.add(el);
    return this.reasoning;
  }

  ensureAssistant() {
    if (this.assistant) return this.assistant;
    const body = h('div', { class: 'markdown' });
    const block = { body, text: '' };
    const el = h('article', { class: 'message assistant', 'aria-label': 'Assistant' }, body,
      h('div', { class: 'message-actions' }, copyButton(() => block.text, 'Copy the answer')));
    block.el = el;
    this.assistant = block;
    this.add(el);
    return this.assistant;
  }

  // The current answer is complete: render it once more and start afresh.
  settle() {
    if (this.dirty.size) this.flush();
    if (this.assistant) {
      this.assistant.el.classList.remove('streaming');
      if (!this.assistant.text.trim()) this.assistant.el.remove();
    }
    if (this.reasoning) this.reasoning.el.classList.remove('streaming');
    this.assistant = null;
    this.reasoning = null;
  }

  // ---- Items ---------------------------------------------------------------

  addUser(text, attachments = 0) {
    this.settle();
    this.add(h('article', { class: 'message user', 'aria-label': 'You' },
      h('div', { class: 'bubble' }, text),
      h('div', { class: 'message-actions' }, copyButton(() => text, 'Copy the message')),
      attachments ? h('p', { class: 'attachments' }, `${attachments} attachment${attachments > 1 ? 's' : ''}`) : null));
  }

  addNotice(text, { kind = 'info', retry = false } = {}) {
    const el = h('div', { class: ['notice', `notice-${kind}`], role: kind === 'error' ? 'alert' : 'status' },
      h('span', { class: 'notice-text' }, text));
    if (retry && this.onRetry) {
      el.append(h('button', { type: 'button', class: 'button small', onclick: () => this.onRetry() }, 'Retry'));
    }
    return this.add(el);
  }

  step(callId, name, args) {
    let step = this.steps.get(callId);
    if (step) return step;
    const status = h('span', { class: 'step-status' });
    const body = h('div', { class: 'step-body' });
    const el = h('details', { class: 'step', dataset: { callId: callId ?? '', tool: name ?? '' } },
      h('summary', null,
        h('span', { class: 'step-icon', 'aria-hidden': 'true' }),
        h('span', { class: 'step-title' }, toolPhrase(name, args)),
        status),
      body);
    step = { el, status, body, name, args, detail: {} };
    if (name === 'write_file' && typeof args?.content === 'string') {
      body.append(h('div', { class: 'step-section' }, h('h4', null, 'Content'), fileContentView(args.path, args.content)));
    } else if (args && Object.keys(args).length) {
      body.append(h('div', { class: 'step-section' }, h('h4', null, 'Arguments'),
        h('pre', null, h('code', null, prettyValue(args)))));
    }
    this.steps.set(callId, step);
    this.add(el);
    this.setStep(step, 'proposed');
    return step;
  }

  setStep(step, state) {
    step.el.dataset.status = state;
    step.status.textContent = STEP_STATUS[state] || state;
  }

  finishStep(step, data) {
    this.setStep(step, data.status || 'ok');
    this.onStepDone?.(step.name, step.args, data.status || 'ok');
    const facts = [];
    if (data.reason) facts.push(['Reason', data.reason]);
    if (data.provenance) facts.push(['Decided by', data.provenance]);
    if (data.enforcement) facts.push(['Protection', data.enforcement]);
    if (data.spilled_to) facts.push(['Full result', data.spilled_to]);
    if (facts.length) {
      step.body.append(h('dl', { class: 'step-facts' },
        facts.map(([term, value]) => [h('dt', null, term), h('dd', null, value)])));
    }
    if (data.result_preview) {
      step.body.append(h('div', { class: 'step-section' }, h('h4', null, 'Result'),
        h('pre', { class: 'result-preview' }, h('code', null, data.result_preview))));
    }
    if (data.provenance) step.el.title = data.provenance;
  }

  addCard(ask) {
    const key = ask.callId ?? `${ask.kind}-${this.cards.size}`;
    const existing = this.cards.get(key);
    if (existing) return existing; // a replayed or repeated ask keeps its one card
    const card = renderAskCard(ask, { onAnswer: (answer) => this.onAnswer(ask, answer) });
    this.cards.set(key, card);
    this.add(card.el);
    return card;
  }

  closeCard(callId, text) {
    const card = this.cards.get(callId);
    if (card) this.follow(() => card.close(text));
  }

  // ---- Events --------------------------------------------------------------

  apply(event) {
    const d = event.data && typeof event.data === 'object' ? event.data : {};
    switch (event.type) {
      case 'turn_start': {
        const input = d.display ?? d.input;
        if (input === '' || input === undefined) this.addNotice('Trying again…');
        else if (input === '(resumed)') this.addNotice('Resumed.');
        else this.addUser(textOf(input), attachmentCount(input));
        break;
      }
      case 'reasoning_delta': {
        const block = this.ensureReasoning();
        block.el.classList.add('streaming');
        block.text += d.text ?? '';
        this.markDirty(block);
        break;
      }
      case 'assistant_delta': {
        const block = this.ensureAssistant();
        block.el.classList.add('streaming');
        block.text += d.text ?? '';
        this.markDirty(block);
        break;
      }
      case 'assistant_message': {
        if (d.reasoning) {
          const block = this.ensureReasoning();
          block.text = d.reasoning;
          this.markDirty(block);
        }
        if (typeof d.text === 'string' && (d.text || this.assistant)) {
          const block = this.ensureAssistant();
          block.text = d.text;
          this.markDirty(block);
        }
        this.settle();
        break;
      }
      case 'tool_proposed':
        this.settle();
        this.step(d.call_id, d.name, d.arguments);
        break;
      case 'permission_required':
      case 'site_requested':
      case 'question_requested':
      case 'directory_requested': {
        this.settle();
        const step = this.steps.get(d.call_id) ?? this.step(d.call_id, d.name, d.arguments);
        this.setStep(step, 'waiting');
        this.addCard(askFromEvent(event.type, d, this.sessionId));
        break;
      }
      case 'review_started': {
        const step = this.steps.get(d.call_id);
        if (step) this.setStep(step, 'reviewing');
        break;
      }
      case 'review_finished': {
        const step = this.steps.get(d.call_id);
        if (step) {
          step.body.append(h('p', { class: 'step-note' }, `Reviewer: ${d.verdict}${d.reasoning ? ` — ${d.reasoning}` : ''}`));
        }
        break;
      }
      case 'approval_resolved': {
        this.closeCard(d.call_id, resolvedText(d));
        const step = this.steps.get(d.call_id);
        if (step && step.el.dataset.status === 'waiting') this.setStep(step, d.decision === 'deny' ? 'denied' : 'proposed');
        break;
      }
      case 'tool_started': {
        const step = this.steps.get(d.call_id) ?? this.step(d.call_id, d.name, null);
        this.setStep(step, 'running');
        break;
      }
      case 'tool_progress': {
        // A long call reports how far it is: a bar with a total, else the count.
        const step = this.steps.get(d.call_id);
        if (!step) break;
        step.progress?.remove();
        const total = typeof d.total === 'number' && d.total > 0 ? d.total : null;
        const bar = total !== null
          ? h('progress', { max: String(total), value: String(Math.min(d.progress, total)) })
          : h('span', { class: 'progress-count' }, String(d.progress));
        step.progress = h('div', { class: 'step-progress' }, bar, d.message ? ` ${d.message}` : '');
        step.body.append(step.progress);
        break;
      }
      case 'tool_finished': {
        const step = this.steps.get(d.call_id) ?? this.step(d.call_id, d.name, null);
        step.progress?.remove();
        step.progress = null;
        this.finishStep(step, d);
        break;
      }
      case 'standing_rule_created':
        this.addNotice(`Saved a standing rule: ${d.rule}`);
        break;
      case 'safety_check_cleared':
        this.addNotice(`Safety check cleared by the approval mode${d.check ? `: ${d.check}` : ''}.`, { kind: 'warning' });
        break;
      case 'reviewer_paused':
        this.addNotice(d.reason || 'The reviewer is paused; a person decides from now on.', { kind: 'warning' });
        break;
      case 'provider_retry':
        this.addNotice(`The model service failed (${d.error || 'error'}); trying again in ${formatSeconds(d.delay_seconds)} `
          + `(attempt ${d.attempt} of ${d.max_attempts}).`, { kind: 'warning' });
        break;
      case 'compacting':
        this.addNotice('Summarizing earlier messages to make room…');
        break;
      case 'compacted':
        if (d.trimmed) this.addNotice('The oldest messages were dropped to make room; no summary of them could be made.', { kind: 'warning' });
        else this.addNotice('Earlier messages were summarized.');
        break;
      case 'turn_end':
        this.settle();
        if (d.status === 'max_iterations_exceeded') this.addNotice('Stopped: max iterations reached.', { kind: 'warning' });
        break;
      case 'interrupted':
        this.settle();
        // After a crash the server marks the lost turn interrupted and retryable.
        this.addNotice(d.reason || 'Interrupted.', { kind: 'warning', retry: d.retryable === true });
        break;
      case 'error':
        this.settle();
        this.addNotice(d.error || 'Something went wrong.', { kind: 'error', retry: true });
        break;
      case 'input_rejected':
        this.addNotice(d.error || 'The message was not accepted.', { kind: 'warning' });
        break;
      case 'model_changed':
        this.addNotice(d.text || `Model switched to ${d.model}.`);
        break;
      case 'mode_changed':
        this.addNotice(d.text || `Approval mode: ${d.mode}.`);
        break;
      case 'turn_done':
        this.settle();
        break;
      default:
        // Events this client does not know yet are not an error.
        break;
    }
  }
}

// Each code block of a rendered answer gets its own Copy button, outside
// the Markdown renderer (which makes only inert text elements).
function addCodeCopyButtons(body) {
  for (const pre of body.querySelectorAll('pre')) {
    const wrap = h('div', { class: 'code-block' });
    pre.replaceWith(wrap);
    wrap.append(copyButton(() => pre.textContent, 'Copy code'), pre);
  }
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.filter((p) => p && p.type === 'text').map((p) => p.text).join('\n');
  }
  return content === undefined || content === null ? '' : String(content);
}

function attachmentCount(content) {
  return Array.isArray(content) ? content.filter((p) => p && p.type !== 'text').length : 0;
}

function formatSeconds(value) {
  const n = Number(value);
  return Number.isFinite(n) ? `${n < 10 ? n.toFixed(1) : Math.round(n)} s` : 'a moment';
}
