// deliverables.js: the session's deliverables — the files it made.
//
// Two sources, merged: the files the session's own tool calls wrote
// (write_file, replace_in_file and apply_patch steps that finished), known
// from the event stream as they happen, and the server's artifact listing
// of the session's scratch folder (/v1/sessions/{id}/artifacts), which
// also finds what commands made there. A file opens in a preview with a
// Copy button; the preview goes through the server's confined reader, so
// nothing outside the session's folders can be shown.

import { api, path } from './api.js';
import { copyButton, h, relativeTime } from './dom.js';

const WRITERS = new Set(['write_file', 'replace_in_file', 'apply_patch']);

export class DeliverablesPanel {
  constructor(sessionId) {
    this.sessionId = sessionId;
    this.files = new Map(); // path → {path, name, modified_at?, size?}
    this.list = h('ul', { class: 'deliverables-list', 'aria-label': 'Files' });
    this.empty = h('p', { class: 'dim deliverables-empty' }, 'Files this session writes appear here.');
    this.preview = h('div', { class: 'deliverable-preview', hidden: true });
    this.el = h('aside', { class: 'deliverables', 'aria-labelledby': `${sessionId}-deliverables` },
      h('h2', { id: `${sessionId}-deliverables`, class: 'deliverables-title' }, 'Deliverables'),
      this.empty, this.list, this.preview);
  }

  // A finished tool step: a file it wrote is a deliverable.
  noteStep(name, args, status) {
    if (!WRITERS.has(name) || status !== 'ok' || typeof args?.path !== 'string' || !args.path) return;
    this.add({ path: args.path });
  }

  add(file) {
    const known = this.files.get(file.path);
    this.files.set(file.path, { ...known, ...file });
    this.render();
  }

  async refresh() {
    try {
      const data = await api(path`/v1/sessions/${this.sessionId}/artifacts`);
      for (const a of Array.isArray(data?.artifacts) ? data.artifacts : []) {
        // A file a step named by its absolute path is the same deliverable.
        const same = [...this.files.keys()].find((p) => p === a.abs_path);
        this.add({ ...a, path: same ?? a.path });
      }
    } catch {
      // The list from the steps still stands; the listing is a complement.
    }
  }

  render() {
    this.empty.hidden = this.files.size > 0;
    this.list.replaceChildren(...[...this.files.values()].map((f) => {
      const name = f.name || f.path.split('/').pop();
      const facts = [f.path !== name ? f.path : null, f.modified_at ? relativeTime(f.modified_at) : null]
        .filter(Boolean).join(' · ');
      return h('li', { class: 'deliverable', dataset: { path: f.path } },
        h('button', { type: 'button', class: 'deliverable-open', onclick: () => this.open(f) },
          h('span', { class: 'deliverable-name' }, name),
          facts ? h('span', { class: 'dim deliverable-path' }, facts) : null));
    }));
  }

  async open(file) {
    const name = file.name || file.path.split('/').pop();
    const close = h('button', { type: 'button', class: 'button flat small', onclick: () => { this.preview.hidden = true; } },
      'Close');
    this.preview.hidden = false;
    this.preview.replaceChildren(h('p', { class: 'dim' }, `Opening ${name}…`));
    try {
      const data = await api(`/v1/sessions/${encodeURIComponent(this.sessionId)}/artifacts/read?path=`
        + encodeURIComponent(file.abs_path || file.path));
      const text = typeof data?.content === 'string' ? data.content : null;
      this.preview.replaceChildren(
        h('div', { class: 'deliverable-preview-bar' },
          h('h3', { class: 'deliverable-preview-title' }, name),
          h('span', { class: 'spacer' }),
          text !== null ? copyButton(() => text, `Copy ${name}`) : null,
          close),
        text !== null ? h('pre', { class: 'deliverable-content' }, h('code', null, text))
          : h('p', { class: 'dim' }, `This ${data?.kind || 'file'} cannot be shown here.`));
    } catch (error) {
      this.preview.replaceChildren(h('div', { class: 'deliverable-preview-bar' },
        h('p', { class: 'form-error' }, error.message), h('span', { class: 'spacer' }), close));
    }
  }
}
