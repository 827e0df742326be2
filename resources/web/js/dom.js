// dom.js: the only way this UI makes elements.
//
// Everything shown comes from the server, the model or the person, so no
// string is ever parsed as HTML here: h() creates elements and text nodes,
// event handlers are functions (never attribute strings), and links pass
// through safeHref() first. There is deliberately no innerHTML anywhere in
// the client.

const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction']);
const PROPERTY_ATTRIBUTES = new Set(['value', 'checked', 'disabled', 'selected', 'hidden', 'open']);

// Accepts only absolute http(s) and mailto links; anything else (javascript:,
// data:, relative paths into the API) becomes null.
export function safeHref(url) {
  if (typeof url !== 'string') return null;
  let parsed;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  return ['http:', 'https:', 'mailto:'].includes(parsed.protocol) ? parsed.href : null;
}

// h('button', {class: 'primary', onclick: fn}, 'Send') → <button>.
// Children may be strings, numbers, nodes, arrays of those, or null/false.
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'innerHTML' || key === 'outerHTML') throw new Error('h(): HTML strings are not allowed');
    if (key.startsWith('on')) {
      if (typeof value !== 'function') throw new Error(`h(): ${key} must be a function`);
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === 'class') {
      el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (URL_ATTRIBUTES.has(key)) {
      // In-page routes ("#/inbox") stay on this page; anything else must be
      // an absolute http(s) or mailto address.
      const safe = typeof value === 'string' && value.startsWith('#') ? value : safeHref(value);
      if (safe !== null) el.setAttribute(key, safe);
    } else if (PROPERTY_ATTRIBUTES.has(key)) {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

// Replaces @el's children with @children.
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// A unique id for label/for and aria-* pairs.
let nextId = 1;
export function uid(prefix = 'ow') {
  return `${prefix}-${nextId++}`;
}

// "3 min ago" style times for lists; full dates in the title attribute.
export function relativeTime(value) {
  if (!value) return '';
  const when = typeof value === 'number' ? new Date(value) : new Date(value);
  if (Number.isNaN(when.getTime())) return String(value);
  const seconds = Math.round((Date.now() - when.getTime()) / 1000);
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} d ago`;
  return when.toLocaleDateString();
}

// A "Copy" button that puts @text() on the clipboard and says so on
// itself for a moment. @label names it for screen readers ("Copy code").
export function copyButton(text, label = 'Copy') {
  const button = h('button', {
    type: 'button',
    class: 'button flat small copy-button',
    'aria-label': label,
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(text());
        button.textContent = 'Copied';
        button.dataset.state = 'copied';
      } catch {
        button.textContent = 'Copy failed';
        button.dataset.state = 'failed';
      }
      setTimeout(() => {
        button.textContent = 'Copy';
        delete button.dataset.state;
      }, 2000);
    },
  }, 'Copy');
  return button;
}
