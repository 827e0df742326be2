// test-web-ui.mjs: the browser dev UI end to end.
//
// Debian's Chromium (driven by playwright-core) opens the URL that the real
// openworker-server printed; the server's model is the scripted model
// server, speaking OpenAI Chat. The test works the page as a person would —
// keyboard and buttons — and checks the effects where they land: files on
// disk, the server's REST answers, a second tab. Screenshots of each main
// screen go to $OW_WEB_ARTIFACTS.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { ARTIFACTS, CHROMIUM, ModelServer, OwServer, TEST_KEY, eventually, loadPlaywright, makeTempTree } from './harness.mjs';

const SOURCE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NOTES = '# Notes\n\nWritten from the browser test.\n';
const COUNT = 'One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen '
  + 'seventeen eighteen nineteen twenty.';
const LONG = 'This answer is long on purpose, so that there is time to stop it. '.repeat(6);

// One model turn per request, in order (see tests/model-server/README.md).
const script = (extraFolder) => ({
  style: 'openai-chat',
  turns: [
    // Message 1: a slowly streamed answer, then a file write that needs approval.
    {
      comment: 'message 1: stream, then ask to write notes.md',
      text: 'Sure — I will write **notes.md** for you now, with a short heading and one line of text.',
      text_chunks: 12,
      chunk_delay_ms: 120,
      tool_calls: [{ id: 'call_write_1', name: 'write_file', arguments: { path: 'notes.md', content: NOTES } }],
    },
    {
      comment: 'message 1: after the write; the raw HTML must stay text',
      text: 'Done: `notes.md` is written. <img src=x onerror="window.__pwned=1">\n\n- a heading\n- one line',
    },
    // Message 2: a shell command that the person denies, with a reason.
    {
      comment: 'message 2: a shell command to deny',
      text: 'I will mark the folder.',
      tool_calls: [{ id: 'call_shell_1', name: 'run_shell', arguments: { command: 'touch shell-was-here.txt' } }],
    },
    { comment: 'message 2: after the denial', text: 'Understood — I did not run it.' },
    // Message 3: a question, answered from the inbox.
    {
      comment: 'message 3: ask a question',
      tool_calls: [{ id: 'call_ask_1', name: 'ask_user',
        arguments: { question: 'Which format do you prefer?', options: ['Markdown', 'Plain text'] } }],
    },
    { comment: 'message 3: after the answer', text: 'Markdown it is.' },
    // Message 4: a long stream; the page drops its connection half-way.
    { comment: 'message 4: stream through a reconnect', text: COUNT, text_chunks: 20, chunk_delay_ms: 100 },
    // Message 5: a stream the person stops with Esc.
    { comment: 'message 5: stopped with Esc', text: LONG, text_chunks: 40, chunk_delay_ms: 150 },
    // Message 6: a folder request, granted from its card.
    {
      comment: 'message 6: ask for a folder',
      tool_calls: [{ id: 'call_dir_1', name: 'request_directory',
        arguments: { reason: 'The reference notes are there.', path: extraFolder, writable: false } }],
    },
    { comment: 'message 6: after the grant', text: 'Thanks, I can read the reference notes now.' },
  ],
});

let playwright;
let dirs;
let model;
let server;
let browser;
let context;
let page;
const pageErrors = [];

async function shot(p, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
}

function watch(p, label) {
  p.on('pageerror', (error) => pageErrors.push(`${label}: ${error.message}`));
  p.on('console', (message) => {
    if (message.type() === 'error') {
      fs.appendFileSync(path.join(ARTIFACTS, 'console.log'), `${label}: ${message.text()}\n`);
      // A Content-Security-Policy violation means the page broke its own rules.
      if (/Content Security Policy/i.test(message.text())) pageErrors.push(`${label}: ${message.text()}`);
    }
  });
  return p;
}

async function newPage(label) {
  return watch(await context.newPage(), label);
}

// A second tab as a person opens one: the printed URL (the token lives in
// each tab's sessionStorage, so a bare link would be refused), then a click
// in the sidebar.
async function openTab(label, linkName) {
  const p = await newPage(label);
  await p.goto(server.url);
  await p.getByRole('link', { name: linkName }).first().click();
  return p;
}

// Controls a screen reader could not name: buttons without words, fields
// without a label.
async function unnamedControls(p) {
  return p.evaluate(() => [...document.querySelectorAll('button, input, textarea, select, a[href]')]
    .filter((el) => el.offsetParent !== null)
    .filter((el) => {
      if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')) return false;
      if (['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)) return !(el.labels && el.labels.length);
      return !el.textContent.trim();
    })
    .map((el) => el.outerHTML.slice(0, 120)));
}

// Runs a test step; a failure leaves a screenshot of every open page
// (@pages(): those of the main browser context unless told).
function step(name, fn, pages = () => context?.pages() ?? []) {
  it(name, async () => {
    try {
      await fn();
    } catch (error) {
      const slug = name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      for (const [i, p] of pages().entries()) {
        await shot(p, `FAILED-${slug}-${i}`).catch(() => {});
      }
      throw error;
    }
  });
}

// Sends @text from the composer with Ctrl+Enter.
async function sendMessage(p, text) {
  // As a person would: only once the previous turn is over (Send is off
  // while a turn runs).
  await p.locator('button:has-text("Send"):enabled').waitFor();
  const input = p.getByRole('textbox', { name: 'Message' });
  await input.fill(text);
  await input.press('Control+Enter');
}

describe('the files of the dev UI', () => {
  it('are all compiled into the GResource the server serves', () => {
    const web = path.join(SOURCE_ROOT, 'resources', 'web');
    const xml = fs.readFileSync(path.join(SOURCE_ROOT, 'resources', 'openworker.gresource.xml'), 'utf8');
    const files = fs.readdirSync(web, { recursive: true })
      .filter((f) => fs.statSync(path.join(web, f)).isFile())
      .map((f) => f.split(path.sep).join('/'));
    assert.ok(files.includes('index.html'));
    for (const f of files) {
      assert.ok(xml.includes(`alias="${f}"`) && xml.includes(`>web/${f}<`), `${f} is missing from openworker.gresource.xml`);
    }
  });

  it('never parse strings as HTML', () => {
    const js = path.join(SOURCE_ROOT, 'resources', 'web', 'js');
    for (const f of fs.readdirSync(js)) {
      const code = fs.readFileSync(path.join(js, f), 'utf8');
      assert.doesNotMatch(code, /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(/,
        `${f} builds HTML from strings`);
    }
  });
});

describe('browser dev UI', () => {
  before(async () => {
    fs.rmSync(ARTIFACTS, { recursive: true, force: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    playwright = await loadPlaywright();
    dirs = makeTempTree();
    dirs.extra = path.join(dirs.root, 'reference');
    fs.mkdirSync(dirs.extra);
    model = await ModelServer.start(script(dirs.extra), dirs.root);
    server = await OwServer.start(dirs, {
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: TEST_KEY,
      OPENWORKER_MODEL: 'openai:gpt-4o',
    });
    browser = await playwright.chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    context.setDefaultTimeout(20000);
    page = await newPage('main');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await model?.stop();
    if (dirs) {
      for (const log of ['server.log', 'model-requests.jsonl']) {
        const from = path.join(dirs.root, log);
        if (fs.existsSync(from)) fs.copyFileSync(from, path.join(ARTIFACTS, log));
      }
      fs.rmSync(dirs.root, { recursive: true, force: true });
    }
  });

  step('opens with the token from the fragment and keeps it out of the address bar', async () => {
    await page.goto(server.url);
    await page.getByRole('button', { name: 'New session' }).first().waitFor();
    assert.ok(!page.url().includes('token'), `the token is still in the URL: ${page.url()}`);
    const stored = await page.evaluate(() => sessionStorage.getItem('openworker.token'));
    assert.equal(stored, server.token);
    await shot(page, '01-home');
  });

  step('creates a session from the dialog', async () => {
    await page.getByRole('button', { name: 'New session' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.waitFor();
    await dialog.getByRole('radio', { name: /cowork/i }).check();
    await dialog.getByRole('textbox', { name: 'Folder' }).fill(dirs.ws);
    await shot(page, '02-new-session-dialog');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/#\/s\//);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const listed = await server.api('/v1/sessions');
    assert.equal(listed.status, 200);
    assert.equal(listed.json.sessions.length, 1, 'one session stored');
    assert.equal(listed.json.sessions[0].agent, 'cowork');
  });

  step('streams the answer, shows an approval card and writes the file once allowed', async () => {
    // Record every length the answer had, to prove it grew in steps.
    await page.evaluate(() => {
      window.__lengths = [];
      const log = document.querySelector('.transcript');
      new MutationObserver(() => {
        const answer = log.querySelector('.message.assistant .markdown');
        if (answer) window.__lengths.push(answer.textContent.length);
      }).observe(log, { subtree: true, childList: true, characterData: true });
    });
    await sendMessage(page, 'Please write notes.md');
    await page.locator('.message.user', { hasText: 'Please write notes.md' }).waitFor();
    await page.locator('.message.assistant.streaming').waitFor();
    await shot(page, '03-streaming');

    const card = page.locator('.ask-card.ask-approval');
    await card.waitFor();
    await assert.doesNotReject(card.getByRole('heading', { name: /Write notes\.md/ }).waitFor());
    const lengths = await page.evaluate(() => window.__lengths);
    const final = 'Sure — I will write notes.md for you now, with a short heading and one line of text.'.length;
    const partial = new Set(lengths.filter((n) => n > 0 && n < final));
    assert.ok(partial.size >= 3, `the answer should arrive in pieces, saw lengths ${JSON.stringify(lengths)}`);
    assert.equal(await page.locator('.message.assistant .markdown').first().innerText(), 'Sure — I will write notes.md for you now, with a short heading and one line of text.');
    assert.ok(!fs.existsSync(path.join(dirs.ws, 'notes.md')), 'nothing is written before the approval');
    await card.scrollIntoViewIfNeeded();
    await shot(page, '04-approval-card');
    assert.deepEqual(await unnamedControls(page), [], 'every control on the page has a name');

    await card.getByRole('button', { name: 'Allow once' }).click();
    await card.locator('.card-status', { hasText: 'Allowed once' }).waitFor();
    await eventually(() => fs.existsSync(path.join(dirs.ws, 'notes.md')), { what: 'notes.md on disk' });
    assert.equal(fs.readFileSync(path.join(dirs.ws, 'notes.md'), 'utf8'), NOTES);
    const step = page.locator('.step[data-call-id="call_write_1"]');
    await page.locator('.step[data-call-id="call_write_1"][data-status="ok"]').waitFor();
    await page.locator('.message.assistant', { hasText: 'Done: notes.md is written.' }).waitFor();
    const done = page.locator('.message.assistant', { hasText: 'Done: notes.md is written.' });
    // The reply may still be streaming its last words: wait for the end of
    // the turn (the message stops streaming) before reading it whole.
    await page.locator('.message.assistant.streaming').waitFor({ state: 'detached' });
    assert.match(await done.innerText(), /<img src=x onerror="window.__pwned=1">/, 'model HTML is shown as text');
    assert.equal(await done.locator('img').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    await step.locator(':scope > summary').click(); // open the step to show its details
    await shot(page, '05-approved');
    assert.match(await step.innerText(), /Decided by/);
  });

  step('shows the history after a reload', async () => {
    await page.reload();
    await page.locator('.message.user', { hasText: 'Please write notes.md' }).waitFor();
    await page.locator('.message.assistant', { hasText: 'Done: notes.md is written.' }).waitFor();
    await page.locator('.step[data-call-id="call_write_1"][data-status="ok"]').waitFor();
    // The answered card is shown answered, not as a fresh question.
    assert.equal(await page.locator('.ask-card:not(.resolved)').count(), 0, 'no open card after reload');
    assert.equal(await page.locator('.message.user').count(), 1, 'nothing is shown twice');
    assert.equal(await page.locator('.step').count(), 1);
    await shot(page, '06-after-reload');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '06-after-reload-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  step('closes the card in every tab when one tab denies, with the reason', async () => {
    const second = await openTab('second tab', 'Please write notes.md');
    await second.getByRole('textbox', { name: 'Message' }).waitFor();
    assert.equal(second.url(), page.url(), 'both tabs show the session');

    await sendMessage(page, 'Mark the folder please');
    const card = page.locator('.ask-card.ask-approval:not(.resolved)');
    const otherCard = second.locator('.ask-card.ask-approval:not(.resolved)');
    await card.waitFor();
    await otherCard.waitFor();
    assert.match(await card.innerText(), /touch shell-was-here\.txt/);
    await card.getByRole('textbox', { name: /Reason if you deny/ }).fill('not in this folder');
    await card.getByRole('button', { name: 'Deny' }).click();

    await second.locator('.ask-card.ask-approval.resolved .card-status', { hasText: 'Denied' }).waitFor();
    await page.locator('.step[data-call-id="call_shell_1"][data-status="denied"]').waitFor();
    await page.locator('.message.assistant', { hasText: 'Understood — I did not run it.' }).waitFor();
    assert.ok(!fs.existsSync(path.join(dirs.ws, 'shell-was-here.txt')), 'the denied command did not run');
    await shot(second, '07-denied-in-other-tab');
    await second.close();

    const requests = await model.requests();
    const last = JSON.stringify(requests.at(-1).body.messages.at(-1));
    assert.match(last, /not in this folder/, 'the model is told the person’s reason');
  });

  step('answers a question from the inbox and the session goes on', async () => {
    const sessionUrl = page.url();
    await sendMessage(page, 'Ask me about the format');
    await page.locator('.ask-card.ask-question:not(.resolved)').waitFor();

    const inbox = await openTab('inbox', /^Inbox/);
    const item = inbox.locator('.ask-card.ask-question', { hasText: 'Which format do you prefer?' });
    await item.waitFor();
    await shot(inbox, '08-inbox');
    await item.getByRole('button', { name: 'Markdown' }).click();
    await item.locator('.card-status', { hasText: /Answered/ }).waitFor();

    await page.locator('.ask-card.ask-question.resolved').waitFor();
    await page.locator('.message.assistant', { hasText: 'Markdown it is.' }).waitFor();
    await inbox.close();
    assert.equal(page.url(), sessionUrl);
  });

  step('reconnects after a drop and applies only what it missed', async () => {
    const sockets = [];
    const onSocket = (ws) => sockets.push(ws.url());
    page.on('websocket', onSocket);
    await sendMessage(page, 'Count to twenty');
    const answer = page.locator('.message.assistant', { hasText: 'One two' });
    await answer.waitFor();
    await eventually(async () => (await answer.innerText()).length > 20, { what: 'some of the answer' });
    const seqBefore = await page.evaluate(() => window.openworkerDebug.lastSeq());
    await page.evaluate(() => window.openworkerDebug.dropConnection());
    await page.locator('.connection[data-state="open"]').waitFor();
    await page.locator('.message.assistant', { hasText: 'nineteen twenty.' }).waitFor();
    page.off('websocket', onSocket);

    assert.equal(await answer.count(), 1, 'one answer block');
    assert.equal(await answer.locator('.markdown').innerText(), COUNT, 'every piece exactly once');
    const resumed = sockets.map((u) => Number(new URL(u).searchParams.get('since'))).filter((n) => n > 0);
    assert.ok(resumed.length >= 1 && resumed[0] >= seqBefore,
      `the page reconnected with ?since=<last seq> (saw ${JSON.stringify(sockets)}, last seq ${seqBefore})`);
  });

  step('stops a running turn with Esc', async () => {
    await sendMessage(page, 'Tell me something long');
    const answer = page.locator('.message.assistant', { hasText: 'long on purpose' });
    await answer.waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.notice', { hasText: 'Interrupted.' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
    assert.ok((await answer.locator('.markdown').innerText()).length < LONG.length, 'the answer stopped part-way');
  });

  step('grants a folder from its card', async () => {
    await sendMessage(page, 'Look at my reference notes');
    const card = page.locator('.ask-card.ask-directory:not(.resolved)');
    await card.waitFor();
    assert.equal(await card.getByRole('textbox', { name: 'Folder' }).inputValue(), dirs.extra);
    assert.equal(await card.getByRole('checkbox', { name: /read-write/ }).isChecked(), false);
    await card.scrollIntoViewIfNeeded();
    await shot(page, '08b-folder-card');
    await card.getByRole('button', { name: 'Grant access' }).click();
    await page.locator('.ask-card.ask-directory.resolved').waitFor();
    await page.locator('.message.assistant', { hasText: 'I can read the reference notes now.' }).waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const roots = await server.api(`/v1/sessions/${encodeURIComponent(id)}/roots`);
    const added = roots.json.roots.find((r) => r.path === fs.realpathSync(dirs.extra) || r.path === dirs.extra);
    assert.ok(added, `the folder is one of the session's now: ${JSON.stringify(roots.json)}`);
    assert.equal(added.writable, false);
  });

  step('renders hostile Markdown as inert text and safe links', async () => {
    const result = await page.evaluate(async () => {
      const { renderMarkdown } = await import('/js/markdown.js');
      const hostile = [
        '<script>window.__pwned = 1</script>',
        '<img src=x onerror="window.__pwned=1">',
        '[click](javascript:window.__pwned=1) [data](data:text/html,<script>1</script>) [ok](https://example.org/a)',
        '```html\n<iframe src="https://example.org"></iframe>\n```',
        '**<b onclick="x()">bold</b>** `<svg onload=alert(1)>`',
        '> > > > > > > > > > > > > > > > > > > > > > > > > > > > > deep',
        '- '.repeat(400) + 'nested',
      ].join('\n\n');
      const box = document.createElement('div');
      box.append(renderMarkdown(hostile));
      const allowed = new Set(['P', 'A', 'CODE', 'PRE', 'STRONG', 'EM', 'DEL', 'BR', 'UL', 'OL', 'LI', 'BLOCKQUOTE',
        'H3', 'H4', 'H5', 'H6', 'HR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'DIV']);
      const elements = [...box.querySelectorAll('*')];
      return {
        tags: [...new Set(elements.map((e) => e.tagName))].filter((t) => !allowed.has(t)),
        handlers: elements.flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith('on')),
        hrefs: [...box.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        text: box.textContent,
        pwned: window.__pwned,
      };
    });
    assert.deepEqual(result.tags, [], 'only the renderer’s own elements');
    assert.deepEqual(result.handlers, [], 'no event handler attributes');
    assert.deepEqual(result.hrefs, ['https://example.org/a'], 'only the https link is a link');
    assert.match(result.text, /<script>window.__pwned = 1<\/script>/);
    assert.match(result.text, /<iframe src=/);
    assert.equal(result.pwned, undefined);
  });

  step('renames and pins a session from its menu', async () => {
    const row = page.locator('.session-row').first();
    await row.hover();
    await row.getByRole('button', { name: /Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'Rename…' }).click();
    const entry = page.getByRole('textbox', { name: 'Session name' });
    await entry.fill('Browser test notes');
    await entry.press('Enter');
    await page.locator('.session-title', { hasText: 'Browser test notes' }).waitFor();
    await page.locator('.page-title', { hasText: 'Browser test notes' }).waitFor();

    const renamed = page.locator('.session-row', { hasText: 'Browser test notes' });
    await renamed.hover();
    await renamed.getByRole('button', { name: /Actions for/ }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Pin' }).click();
    await page.getByRole('list', { name: 'Pinned sessions' }).locator('.session-row', { hasText: 'Browser test notes' }).waitFor();
    const listed = await server.api('/v1/sessions');
    assert.equal(listed.json.sessions[0].title, 'Browser test notes');
    assert.equal(listed.json.sessions[0].pinned, true);
  });

  step('archives and deletes a session', async () => {
    const firstUrl = page.url();
    await page.getByRole('button', { name: 'New session' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByRole('radio', { name: /Code/ }).check();
    // A code session with no folder works in the folder the server was started in.
    await dialog.getByText(`Leave empty to work in ${fs.realpathSync(dirs.ws)}`).waitFor();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL((url) => url.href !== firstUrl && url.hash.startsWith('#/s/'));
    const id = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const info = await server.api(`/v1/sessions/${encodeURIComponent(id)}`);
    assert.equal(info.json.agent, 'code');
    assert.equal(info.json.workspace, fs.realpathSync(dirs.ws));

    const row = page.locator(`.session-row[data-session-id="${id}"]`);
    await row.hover();
    await row.getByRole('button', { name: /Actions for/ }).click();
    await page.getByRole('menu').waitFor();
    await shot(page, '11-row-menu');
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    await page.getByRole('button', { name: 'Show archived' }).click();
    const archived = page.getByRole('list', { name: 'Archived sessions' }).locator(`.session-row[data-session-id="${id}"]`);
    await archived.waitFor();
    assert.equal((await server.api(`/v1/sessions/${encodeURIComponent(id)}`)).json.archived, true);

    await archived.hover();
    await archived.getByRole('button', { name: /Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this session?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await archived.waitFor({ state: 'detached' });
    assert.equal((await server.api(`/v1/sessions/${encodeURIComponent(id)}`)).status, 404);
    assert.ok(new URL(page.url()).hash === '#/', 'the deleted session’s page is left');
    await page.goto(firstUrl);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  });

  step('shows the providers and models', async () => {
    await page.getByRole('link', { name: 'Models & Keys' }).click();
    await page.getByRole('heading', { name: 'Models & Keys' }).waitFor();
    const openai = page.locator('.provider[data-provider="openai"]');
    await openai.waitFor();
    assert.match(await openai.locator('summary').innerText(), /Configured|Key from environment/);
    await openai.locator('summary').click();
    await openai.getByLabel(/API key/).waitFor();
    await shot(page, '09-models-keys');
    assert.deepEqual(await unnamedControls(page), [], 'every control on the page has a name');
  });

  step('lists, adds, disables and removes MCP servers on Connectors', async () => {
    const double = process.env.OW_MCP_DOUBLE;
    assert.ok(double && fs.existsSync(double), `the MCP double is missing at ${double}`);
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('heading', { name: 'Connectors', level: 1 }).waitFor();
    await page.getByText('No servers yet').waitFor();
    const form = page.getByRole('form', { name: 'Add a server' });
    const add = async (name, target) => {
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('Command line or URL').fill(target);
      await form.getByRole('button', { name: 'Add server' }).click();
    };

    // By command line: saved, started, connected, with its tools.
    await add('double', `python3 '${double}'`);
    const row = page.locator('details.connector[data-server="double"]');
    await page.locator('details.connector[data-server="double"][data-status="connected"]').waitFor();
    const listed = (await server.api('/v1/mcp')).json.servers;
    assert.deepEqual(listed.map((s) => [s.name, s.status]), [['double', 'connected']]);
    assert.match(await row.locator('summary').innerText(), new RegExp(`${listed[0].tool_count} tools`));
    await row.locator('summary').click();
    await row.locator('.connector-tool[data-tool="echo"]').waitFor();
    assert.match(await row.locator('.connector-tool[data-tool="echo"]').innerText(), /Asks before running/);

    // The name is taken: the server's sentence, nothing added. Then one that cannot start: its error shows.
    await add('double', 'true');
    await page.getByRole('alert').filter({ hasText: 'already' }).waitFor();
    await add('broken', '/nonexistent/mcp-server');
    const broken = page.locator('details.connector[data-server="broken"][data-status="error"]');
    await broken.waitFor();
    assert.match(await broken.locator('.connector-error').innerText(), /nonexistent/);
    // By URL: an https entry is saved as one (it cannot reach anything here, and says so).
    await add('remote', 'https://127.0.0.1:9/mcp');
    await page.locator('details.connector[data-server="remote"]').waitFor();
    assert.equal((await server.api('/v1/mcp')).json.servers.find((s) => s.name === 'remote').transport, 'http');
    await shot(page, '13-connectors');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '13-connectors-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Disable, then enable again: the server stops and starts.
    await row.getByLabel('Enabled').uncheck();
    await page.locator('details.connector[data-server="double"][data-status="disabled"]').waitFor();
    assert.equal((await server.api('/v1/mcp/double/tools')).status, 404, 'a disabled server offers no tools');
    await page.locator('details.connector[data-server="double"]').getByLabel('Enabled').check();
    await page.locator('details.connector[data-server="double"][data-status="connected"]').waitFor();

    // Remove asks first: Cancel keeps it, Remove takes it out.
    await page.locator('details.connector[data-server="remote"] summary').click();
    for (const answer of ['Cancel', 'Remove']) {
      await page.locator('details.connector[data-server="remote"]').getByRole('button', { name: 'Remove' }).click();
      const confirm = page.getByRole('dialog', { name: 'Remove remote?' });
      await confirm.getByRole('button', { name: answer }).click();
      await confirm.waitFor({ state: 'detached' });
    }
    await page.locator('details.connector[data-server="remote"]').waitFor({ state: 'detached' });
    assert.deepEqual((await server.api('/v1/mcp')).json.servers.map((s) => s.name), ['double', 'broken']);
    assert.deepEqual(await unnamedControls(page), [], 'every control on the page has a name');
    await server.api('/v1/mcp/double', { method: 'DELETE' });
    await server.api('/v1/mcp/broken', { method: 'DELETE' });
  });

  step('refuses a page without the token and says what to do', async () => {
    const bare = await server.api('/v1/sessions', { token: null });
    assert.equal(bare.status, 401, 'the API refuses a request without the token');
    const wrong = await server.api('/v1/sessions', { token: 'not-the-token' });
    assert.equal(wrong.status, 401, 'the API refuses a wrong token');

    const stranger = await browser.newContext({ viewport: { width: 1000, height: 640 } });
    const p = await stranger.newPage();
    await p.goto(server.base);
    await p.getByRole('heading', { name: 'Open the URL the server printed' }).waitFor();
    await shot(p, '10-token-refused');
    await p.goto(`${server.base}#token=wrong-token`);
    await p.reload();
    await p.getByRole('heading', { name: 'Open the URL the server printed' }).waitFor();
    await stranger.close();
  });

  step('raised no script errors and broke no content-security rule', () => {
    assert.deepEqual(pageErrors, []);
  });
});

// A person on a fresh machine: no key and no model in the server's
// environment. The model server accepts only the key saved from the page,
// so a reply at all proves the saved key was used.
const SAVED_KEY = 'sk-web-saved-openai-5d2b8e6f90';
const REPORT = '# Report\n\nEverything the session made is listed beside it.\n';
const firstRunScript = {
  style: 'openai-chat',
  keys: [SAVED_KEY],
  turns: [
    {
      comment: 'after Retry: write the report',
      tool_calls: [{ id: 'call_report', name: 'write_file', arguments: { path: 'report.md', content: REPORT } }],
    },
    { comment: 'then an answer with a code block', text: 'Wrote **report.md**. To see it:\n\n```sh\ncat report.md\n```' },
  ],
};

describe('a first session on a fresh machine', () => {
  let fresh;
  let freshModel;
  let freshServer;
  let freshBrowser;
  let ctx;
  let p;
  const errors = [];

  const startServer = (port) => OwServer.start(fresh, {
    OPENAI_BASE_URL: `${freshModel.url}/v1`,
    OPENWORKER_SECRET_STORE: 'file',
  }, { port });

  const sessionCount = async () => (await freshServer.api('/v1/sessions')).json.sessions.length;

  const freshStep = (name, fn) => step(name, fn, () => ctx?.pages() ?? []);

  before(async () => {
    playwright ??= await loadPlaywright();
    fresh = makeTempTree();
    freshModel = await ModelServer.start(firstRunScript, fresh.root);
    freshServer = await startServer();
    freshBrowser = await playwright.chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    ctx = await freshBrowser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    ctx.setDefaultTimeout(20000);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write']);
    p = await ctx.newPage();
    p.on('pageerror', (error) => errors.push(error.message));
  });

  after(async () => {
    await freshBrowser?.close();
    await freshServer?.stop();
    await freshModel?.stop();
    if (fresh) {
      const from = path.join(fresh.root, 'server.log');
      if (fs.existsSync(from)) fs.copyFileSync(from, path.join(ARTIFACTS, 'fresh-server.log'));
      fs.rmSync(fresh.root, { recursive: true, force: true });
    }
  });

  freshStep('shows the endpoint the sessions will call and a base-URL field for cloud services', async () => {
    await p.goto(freshServer.url);
    await p.getByRole('link', { name: 'Models & Keys', exact: true }).click();
    const openai = p.locator('.provider[data-provider="openai"]');
    await openai.locator('summary').click();
    const endpoint = await openai.locator('.provider-endpoint').innerText();
    assert.match(endpoint, new RegExp(`${freshModel.url}/v1 \\(from OPENAI_BASE_URL\\)`));
    assert.doesNotMatch(endpoint, /api\.openai\.com/);
    await openai.getByLabel('Base URL (optional)').waitFor();
    const ollama = p.locator('.provider[data-provider="ollama"]');
    await ollama.locator('summary').click();
    assert.equal(await ollama.getByLabel('Base URL (optional)').count(), 0, 'a local server has none');
    assert.match(await p.locator('.model-list').innerText(), /No model is ready yet/);
  });

  freshStep('without a model, a message fails saying where keys go, and no empty rows pile up', async () => {
    await p.getByRole('button', { name: 'New session' }).first().click();
    await p.getByRole('dialog', { name: 'New session' }).getByRole('button', { name: 'Create' }).click();
    await p.waitForURL(/#\/s\//);
    const first = p.url();
    const picker = p.getByRole('combobox', { name: 'Model' });
    await p.getByRole('link', { name: 'Add a key first' }).waitFor();
    assert.equal(await picker.locator('option:checked').innerText(), 'No model yet');
    await sendMessage(p, 'Please write the report');
    const error = p.locator('.notice-error', { hasText: 'No model is chosen' });
    await error.waitFor();
    assert.match(await error.innerText(), /Models & Keys/);
    assert.doesNotMatch(await p.locator('.transcript').innerText(), /Settings ▸/);

    // Trying again with a new session opens the untouched one.
    await p.getByRole('button', { name: 'New session' }).first().click();
    await p.getByRole('dialog', { name: 'New session' }).getByRole('button', { name: 'Create' }).click();
    await p.getByRole('dialog', { name: 'New session' }).waitFor({ state: 'detached' });
    assert.equal(p.url(), first);
    assert.equal(await sessionCount(), 1);
  });

  freshStep('saving the first key makes its recommended model the default', async () => {
    await p.getByRole('link', { name: 'Models & Keys', exact: true }).click();
    const openai = p.locator('.provider[data-provider="openai"]');
    await openai.locator('summary').click();
    await openai.getByLabel('API key').fill(SAVED_KEY);
    await openai.getByRole('button', { name: 'Save' }).click();
    const recommended = (await freshServer.api('/v1/providers')).json.find((x) => x.name === 'openai').recommended_model;
    await p.locator('.toast', { hasText: `${recommended} is now the default model` }).waitFor();
    const picker = p.getByRole('combobox', { name: 'Default model' });
    await picker.waitFor();
    assert.equal(await picker.inputValue(), recommended);
    assert.equal((await freshServer.api('/v1/settings/models')).json.default, recommended);
    await shot(p, '12-models-first-key');
  });

  freshStep('Retry sends the first message with the saved key; the result is a deliverable', async () => {
    await p.locator('.session-row').first().getByRole('link').click();
    const retry = p.locator('.notice-error', { hasText: 'No model is chosen' }).getByRole('button', { name: 'Retry' });
    await retry.click();
    const card = p.locator('.ask-card.ask-approval:not(.resolved)');
    await card.waitFor();
    // The content to be written is shown, not folded behind a count.
    assert.equal(await card.locator('.file-content pre').innerText(), REPORT);
    assert.ok(await card.locator('.file-content pre').isVisible());
    await card.getByRole('button', { name: 'Allow once' }).click();
    await p.locator('.message.assistant', { hasText: 'Wrote report.md' }).waitFor();
    const recommended = (await freshServer.api('/v1/settings/models')).json.default;
    assert.equal(await p.getByRole('combobox', { name: 'Model' }).inputValue(), recommended);
    const requests = await freshModel.requests();
    assert.equal(requests[0].headers.authorization, `Bearer ${SAVED_KEY}`);
    assert.match(JSON.stringify(requests[0].body.messages.at(-1)), /Please write the report/);

    const panel = p.getByRole('complementary', { name: 'Deliverables' });
    const item = panel.locator('.deliverable[data-path="report.md"]');
    await item.waitFor();
    await item.getByRole('button').click();
    await panel.locator('.deliverable-content', { hasText: 'Everything the session made' }).waitFor();
    await p.locator('.step[data-call-id="call_report"] > summary').click();
    await shot(p, '13-picker-and-deliverables');
    // Narrow, the list moves below the conversation instead of going away.
    await p.setViewportSize({ width: 760, height: 820 });
    assert.ok(await panel.isVisible(), 'the deliverables stay reachable on a narrow window');
    await shot(p, '13b-deliverables-narrow');
    await p.setViewportSize({ width: 1280, height: 820 });
  });

  freshStep('copies a code block and a whole answer', async () => {
    const answer = p.locator('.message.assistant', { hasText: 'Wrote report.md' });
    await answer.hover();
    await answer.locator('.code-block').getByRole('button', { name: 'Copy code' }).click();
    await answer.getByRole('button', { name: 'Copy code' }).filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await p.evaluate(() => navigator.clipboard.readText()), 'cat report.md');
    await answer.getByRole('button', { name: 'Copy the answer' }).click();
    assert.equal(await p.evaluate(() => navigator.clipboard.readText()),
      'Wrote **report.md**. To see it:\n\n```sh\ncat report.md\n```');
  });

  freshStep('a session with messages is not reused for a new one', async () => {
    const used = p.url();
    await p.getByRole('button', { name: 'New session' }).first().click();
    await p.getByRole('dialog', { name: 'New session' }).getByRole('button', { name: 'Create' }).click();
    await p.waitForURL((url) => url.href !== used && url.hash.startsWith('#/s/'));
    assert.equal(await sessionCount(), 2);
  });

  freshStep('takes the new #token= address pasted after a restart, without a reload', async () => {
    const port = freshServer.port;
    await p.evaluate(() => { window.__sameDocument = true; });
    await freshServer.stop();
    freshServer = await startServer(port);
    // The old token is refused by the new server: the page says so.
    await p.getByRole('heading', { name: 'Open the URL the server printed' }).waitFor();
    await p.goto(freshServer.url);
    await p.locator('.session-row').first().waitFor();
    assert.equal(await p.evaluate(() => window.__sameDocument), true, 'the page was not reloaded');
    assert.equal(await p.evaluate(() => sessionStorage.getItem('openworker.token')), freshServer.token);
    assert.ok(!p.url().includes('token'));
    assert.equal(await p.getByRole('heading', { name: 'Open the URL the server printed' }).count(), 0);
  });

  freshStep('raised no script errors', () => {
    assert.deepEqual(errors, []);
  });
});
