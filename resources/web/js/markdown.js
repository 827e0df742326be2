// markdown.js: a small Markdown renderer that builds DOM nodes.
//
// Model output is untrusted, so this renderer never produces or accepts
// HTML: raw tags in the text stay text, every piece of content becomes a
// text node, and links keep only http(s)/mailto targets. It covers what
// assistants actually write — paragraphs, headings, fenced code, lists
// (nested), block quotes, rules, simple pipe tables, and inline code,
// bold, italics, strike-through and links — and tolerates half-finished
// input, because it re-renders a streaming answer as it grows.

import { h, safeHref } from './dom.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?/;
const LIST_ITEM = /^( *)([-*+]|\d{1,9}[.)])(\s+|$)(.*)$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

// Markdown text → DocumentFragment.
export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n');
  renderBlocks(lines, fragment, 0);
  return fragment;
}

function isBlank(line) {
  return /^\s*$/.test(line);
}

function startsBlock(line) {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line);
}

function leadingSpaces(line) {
  return line.length - line.trimStart().length;
}

// Deeply nested quotes or lists in hostile input must not blow the stack.
const MAX_DEPTH = 12;

function renderBlocks(lines, parent, depth) {
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    if (depth >= MAX_DEPTH) {
      parent.append(h('p', null, lines.slice(i).join('\n')));
      return;
    }
    let m;
    if ((m = FENCE.exec(line))) {
      i = renderFence(lines, i, m, parent);
    } else if ((m = HEADING.exec(line))) {
      // Headings in a message sit below the page's own h1/h2.
      const level = Math.min(6, m[1].length + 2);
      parent.append(renderInline(m[2] || '', h(`h${level}`)));
      i++;
    } else if (RULE.test(line)) {
      parent.append(h('hr'));
      i++;
    } else if (QUOTE.test(line)) {
      const inner = [];
      while (i < lines.length && !isBlank(lines[i]) && (QUOTE.test(lines[i]) || !startsBlock(lines[i]))) {
        inner.push(lines[i].replace(QUOTE, ''));
        i++;
      }
      const quote = h('blockquote');
      renderBlocks(inner, quote, depth + 1);
      parent.append(quote);
    } else if (LIST_ITEM.test(line)) {
      i = renderList(lines, i, parent, depth);
    } else if (line.includes('|') && i + 1 < lines.length && TABLE_DELIMITER.test(lines[i + 1])
               && lines[i + 1].includes('-')) {
      i = renderTable(lines, i, parent);
    } else {
      const para = [];
      while (i < lines.length && !isBlank(lines[i]) && (para.length === 0 || !startsBlock(lines[i]))) {
        para.push(lines[i].trim());
        i++;
      }
      parent.append(renderInline(para.join('\n'), h('p')));
    }
  }
}

function renderFence(lines, i, match, parent) {
  const marker = match[1];
  const language = match[2].replace(/[^\w+#.-]/g, '');
  const body = [];
  i++;
  while (i < lines.length) {
    const closing = lines[i].trim();
    if (closing.startsWith(marker[0].repeat(marker.length)) && /^[`~]+$/.test(closing)) {
      i++;
      break;
    }
    body.push(lines[i]);
    i++;
  }
  const code = h('code', language ? { class: `language-${language}` } : null, body.join('\n'));
  parent.append(h('pre', language ? { 'data-language': language } : null, code));
  return i;
}

function renderList(lines, i, parent, depth) {
  const first = LIST_ITEM.exec(lines[i]);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const list = ordered ? h('ol') : h('ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) list.setAttribute('start', String(start));
  }

  while (i < lines.length) {
    const m = LIST_ITEM.exec(lines[i]);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const contentIndent = indent + m[2].length + Math.max(1, Math.min(m[3].length, 4));
    const content = [m[4]];
    i++;
    while (i < lines.length) {
      const line = lines[i];
      if (isBlank(line)) {
        // A blank line continues the item only when indented text follows.
        let next = i + 1;
        while (next < lines.length && isBlank(lines[next])) next++;
        if (next < lines.length && leadingSpaces(lines[next]) >= contentIndent) {
          content.push('');
          i++;
          continue;
        }
        break;
      }
      const spaces = leadingSpaces(line);
      if (spaces > indent && (spaces >= contentIndent || LIST_ITEM.test(line))) {
        content.push(line.slice(Math.min(spaces, contentIndent)));
      } else if (LIST_ITEM.test(line) || startsBlock(line)) {
        break;
      } else {
        content.push(line.trim()); // a lazy continuation of the item's paragraph
      }
      i++;
    }
    const item = h('li');
    renderBlocks(content, item, depth + 1);
    // A one-paragraph item reads as plain text, not a spaced paragraph.
    if (item.childElementCount === 1 && item.firstElementChild.tagName === 'P') {
      item.replaceChildren(...item.firstElementChild.childNodes);
    }
    list.append(item);
    // Blank lines between items keep the list going.
    let next = i;
    while (next < lines.length && isBlank(lines[next])) next++;
    const again = next < lines.length ? LIST_ITEM.exec(lines[next]) : null;
    if (again && again[1].length === indent && /\d/.test(again[2]) === ordered) i = next;
  }
  parent.append(list);
  return i;
}

function splitRow(line) {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function renderTable(lines, i, parent) {
  const header = splitRow(lines[i]);
  const aligns = splitRow(lines[i + 1]).map((cell) =>
    cell.startsWith(':') && cell.endsWith(':') ? 'center' : cell.endsWith(':') ? 'right' : null);
  const cellFor = (tag, text, column) =>
    renderInline(text, h(tag, aligns[column] ? { class: `align-${aligns[column]}` } : null));
  const thead = h('thead', null, h('tr', null, header.map((text, c) => cellFor('th', text, c))));
  const tbody = h('tbody');
  i += 2;
  while (i < lines.length && !isBlank(lines[i]) && lines[i].includes('|')) {
    const cells = splitRow(lines[i]);
    tbody.append(h('tr', null, header.map((_, c) => cellFor('td', cells[c] ?? '', c))));
    i++;
  }
  parent.append(h('div', { class: 'table-scroll' }, h('table', null, thead, tbody)));
  return i;
}

// ---- Inline ---------------------------------------------------------------

// One scanner for everything inline; each alternative is handled below.
const INLINE = /\\([\\`*_{}[\]()#+\-.!~|>])|(`+)|(\[)|(\*\*|__)|(\*|_)|(~~)|<(https?:\/\/[^>\s]+)>|(https?:\/\/[^\s<>]*[^\s<>.,:;!?"')\]])|(\n)/g;

// Appends @text's inline content to @parent and returns @parent.
function renderInline(text, parent, depth = 0) {
  let pos = 0;
  let plain = '';
  const flush = () => {
    if (plain) parent.append(document.createTextNode(plain));
    plain = '';
  };
  if (depth > MAX_DEPTH) {
    parent.append(document.createTextNode(text));
    return parent;
  }

  INLINE.lastIndex = 0;
  for (;;) {
    INLINE.lastIndex = pos;
    const m = INLINE.exec(text);
    if (!m) break;
    plain += text.slice(pos, m.index);
    pos = m.index + m[0].length;

    if (m[1] !== undefined) {            // \* and friends: the character itself
      plain += m[1];
    } else if (m[2] !== undefined) {     // `code`
      const close = text.indexOf(m[2], pos);
      if (close < 0) {
        plain += m[2];
        continue;
      }
      flush();
      let code = text.slice(pos, close).replace(/\n/g, ' ');
      if (/^ .* $/.test(code)) code = code.slice(1, -1);
      parent.append(h('code', null, code));
      pos = close + m[2].length;
    } else if (m[3] !== undefined) {     // [text](url)
      const link = matchLink(text, m.index);
      if (!link) {
        plain += '[';
        continue;
      }
      flush();
      appendLink(parent, link.label, link.url, depth);
      pos = link.end;
    } else if (m[4] !== undefined || m[5] !== undefined || m[6] !== undefined) {
      const marker = m[4] ?? m[5] ?? m[6];
      const close = findClosing(text, pos, marker);
      const before = m.index > 0 ? text[m.index - 1] : ' ';
      // snake_case words are not emphasis; neither is "* " (a lone star).
      const intraword = marker[0] === '_' && /[\p{L}\p{N}]/u.test(before);
      if (close < 0 || intraword || /\s/.test(text[pos] ?? ' ')) {
        plain += marker;
        continue;
      }
      flush();
      const tag = marker === '~~' ? 'del' : marker.length === 2 ? 'strong' : 'em';
      parent.append(renderInline(text.slice(pos, close), h(tag), depth + 1));
      pos = close + marker.length;
    } else if (m[7] !== undefined || m[8] !== undefined) { // <https://…> and bare URLs
      flush();
      appendLink(parent, null, m[7] ?? m[8], depth);
    } else if (m[9] !== undefined) {     // a line break inside a paragraph
      flush();
      parent.append(h('br'));
    }
  }
  plain += text.slice(pos);
  flush();
  return parent;
}

// The closing @marker for an emphasis opened just before @from: not
// preceded by whitespace, and for single markers not part of a double one.
function findClosing(text, from, marker) {
  let at = from;
  for (;;) {
    const close = text.indexOf(marker, at);
    if (close < 0 || close === from) return close === from ? -1 : close;
    const doubled = marker.length === 1 && (text[close + 1] === marker || text[close - 1] === marker);
    if (!/\s/.test(text[close - 1]) && !doubled) {
      if (marker === '_' && /[\p{L}\p{N}]/u.test(text[close + 1] ?? ' ')) {
        at = close + 1;
        continue;
      }
      return close;
    }
    at = close + (doubled ? 2 : 1);
  }
}

// [label](url "title") starting at @start, with balanced brackets in the label.
function matchLink(text, start) {
  let depthCount = 0;
  let i = start;
  for (; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
    } else if (text[i] === '[') {
      depthCount++;
    } else if (text[i] === ']') {
      depthCount--;
      if (depthCount === 0) break;
    }
  }
  if (depthCount !== 0 || text[i + 1] !== '(') return null;
  const rest = /^\(\s*<?([^\s()<>]*(?:\([^\s()<>]*\)[^\s()<>]*)*)>?(?:\s+"[^"]*")?\s*\)/.exec(text.slice(i + 1));
  if (!rest) return null;
  return { label: text.slice(start + 1, i), url: rest[1], end: i + 1 + rest[0].length };
}

function appendLink(parent, label, url, depth) {
  const href = safeHref(url);
  if (href === null) {
    // Not a link we may follow: show the words, and the target as code so
    // nothing is hidden from the reader.
    if (label !== null) renderInline(label, parent, depth + 1);
    if (url) parent.append(' ', h('code', { class: 'blocked-link', title: 'Link not opened: unsupported address' }, url));
    return;
  }
  const a = h('a', { href, target: '_blank', rel: 'noopener noreferrer' });
  if (label !== null && label !== '') renderInline(label, a, depth + 1);
  else a.textContent = url;
  parent.append(a);
}
