// transcript.js: the transcript page's only script.
//
// The desktop app renders everything in C (every outside string through
// its output-encoding module, markdown through cmark-gfm in safe mode) and
// sends operations here: append, replace or set an HTML fragment, change a
// class. This script applies them, adds copy buttons to code blocks, keeps
// the view following the newest text (and the person's new message; a
// "Jump to latest" button when they scrolled up), counts down retry notices, and sends
// the person's clicks back as script messages. It builds no markup from
// text itself.
'use strict';

(function () {
  const log = document.getElementById('log');
  const empty = document.getElementById('empty');
  const latest = document.getElementById('latest');
  let strings = { copy: 'Copy', copied: 'Copied', empty: '', latest: 'Jump to latest' };

  function post(message) {
    try {
      window.webkit.messageHandlers.ow.postMessage(message);
    } catch (e) {
      // No handler: the page was opened outside the app.
    }
  }

  function nearBottom() {
    const doc = document.scrollingElement;
    return doc.scrollHeight - doc.scrollTop - doc.clientHeight < 80;
  }

  function decorate(root) {
    if (!root || !root.querySelectorAll)
      return;
    const blocks = root.matches && root.matches('pre') ? [root] : root.querySelectorAll('pre');
    for (const pre of blocks) {
      if (pre.closest('.step-result') || pre.querySelector(':scope > button.copy'))
        continue;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy';
      button.textContent = strings.copy;
      button.setAttribute('aria-label', strings.copy);
      pre.appendChild(button);
    }
  }

  function updateEmpty() {
    empty.hidden = log.childElementCount > 0 || !strings.empty;
  }

  function tick() {
    const now = Date.now();
    for (const el of document.querySelectorAll('[data-until]')) {
      const left = Math.ceil((Number(el.dataset.until) - now) / 1000);
      const span = el.querySelector('.countdown');
      if (span)
        span.textContent = left > 0 ? ' ' + left + ' s' : '';
    }
  }

  function toBottom() {
    following = true;
    document.scrollingElement.scrollTop = document.scrollingElement.scrollHeight;
    latest.hidden = true;
  }

  function apply(ops) {
    let follow = nearBottom();
    for (const op of ops) {
      const el = op.id ? document.getElementById(op.id) : null;
      switch (op.op) {
        case 'init':
          strings = Object.assign(strings, op.strings || {});
          empty.textContent = strings.empty || '';
          latest.textContent = '↓ ' + strings.latest;
          latest.setAttribute('aria-label', strings.latest);
          break;
        case 'theme':
          document.documentElement.classList.toggle('dark', !!op.dark);
          break;
        case 'reset':
          log.replaceChildren();
          break;
        case 'append': {
          const parent = op.parent ? document.getElementById(op.parent) : log;
          if (!parent)
            break;
          parent.insertAdjacentHTML('beforeend', op.html);
          decorate(parent.lastElementChild);
          // A new turn is the person's own message: show it, wherever
          // they had scrolled to.
          if (parent === log)
            follow = true;
          break;
        }
        case 'replace':
          if (el) {
            const wasOpen = el.querySelector('details[open]') !== null;
            el.insertAdjacentHTML('afterend', op.html);
            const next = el.nextElementSibling;
            el.remove();
            if (next && wasOpen) {
              const d = next.querySelector('details');
              if (d)
                d.open = true;
            }
            decorate(next);
          }
          break;
        case 'set':
          if (el) {
            el.innerHTML = op.html;
            decorate(el);
          }
          break;
        case 'class':
          if (el) {
            if (op.add)
              el.classList.add(op.add);
            if (op.remove)
              el.classList.remove(op.remove);
          }
          break;
      }
    }
    updateEmpty();
    tick();
    if (follow)
      toBottom();
    else
      latest.hidden = false;
    return log.childElementCount;
  }

  // Turns out of view are sized by a guess until shown (the style sheet's
  // content-visibility), so the log grows after the operations that made
  // it: while the view follows the newest text it stays at the bottom.
  let following = true;
  // Scrolled up to read, the view stops following and offers the way back.
  window.addEventListener('scroll', () => {
    following = nearBottom();
    latest.hidden = following;
  }, { passive: true });
  latest.addEventListener('click', toBottom);
  new ResizeObserver(() => {
    if (following)
      document.scrollingElement.scrollTop = document.scrollingElement.scrollHeight;
  }).observe(log);

  // The app calls this with a JSON array of operations.
  window.owApply = function (json) {
    return apply(JSON.parse(json));
  };

  document.addEventListener('click', (event) => {
    const link = event.target.closest('a');
    if (link) {
      event.preventDefault();
      post({ action: 'open-link', href: link.getAttribute('href') || '' });
      return;
    }
    const copy = event.target.closest('button.copy');
    if (copy) {
      const code = copy.parentElement.querySelector('code') || copy.parentElement;
      // A change copies the text the file ends with: no removed lines,
      // no file names or elisions.
      const text = copy.parentElement.classList.contains('diff')
        ? Array.from(code.querySelectorAll('.line.added, .line.context'), (l) => l.textContent).join('\n')
        : code.textContent;
      post({ action: 'copy', text });
      copy.textContent = strings.copied;
      setTimeout(() => { copy.textContent = strings.copy; }, 1500);
      return;
    }
    const button = event.target.closest('[data-action]');
    if (button)
      post({ action: button.dataset.action });
  });

  setInterval(tick, 1000);
  post({ action: 'ready' });
})();
