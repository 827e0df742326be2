// humanize.js: short, readable words for tool calls and their outcomes.

import { copyButton, h } from './dom.js';

function str(value) {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

function firstLine(text, max = 120) {
  const line = str(text).split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// A tool call as a phrase: "Write notes.md", "Run echo hi". Returns nodes,
// with the concrete target (a path, a command) set as code.
export function toolPhrase(name, args) {
  const a = args && typeof args === 'object' ? args : {};
  const code = (text) => h('code', null, firstLine(text));
  switch (name) {
    case 'write_file': return ['Write ', code(a.path)];
    case 'read_file': return ['Read ', code(a.path)];
    case 'replace_in_file': return ['Edit ', code(a.path)];
    case 'apply_patch': return ['Apply a patch'];
    case 'list_files': return ['List files in ', code(a.path || '.')];
    case 'grep': return ['Search files for ', code(a.pattern)];
    case 'run_shell': return ['Run ', code(a.command)];
    case 'shell_task_output': return ['Check background task ', code(a.task_id)];
    case 'shell_task_kill': return ['Stop background task ', code(a.task_id)];
    case 'git_status': return ['Check git status'];
    case 'git_diff': return ['Show the git diff'];
    case 'git_log': return ['Show recent commits'];
    case 'web_fetch': return ['Fetch ', code(a.url)];
    case 'web_search': return ['Search the web for ', code(a.query)];
    case 'todo_write': return ['Update the task list'];
    case 'ask_user': return ['Ask you a question'];
    case 'request_directory': return ['Ask for access to a folder'];
    case 'request_network_access': return ['Ask to reach ', code(a.host)];
    default: return [h('code', null, name || 'tool')];
  }
}

export const STEP_STATUS = {
  proposed: 'Proposed',
  waiting: 'Waiting for you',
  reviewing: 'Reviewer deciding',
  running: 'Running',
  ok: 'Done',
  error: 'Failed',
  denied: 'Denied',
  interrupted: 'Interrupted',
};

export const DECISION_TEXT = {
  once: 'Allowed once',
  allow: 'Allowed once',
  always_tool: 'Allowed for this session',
  always_command: 'Allowed for this session',
  session: 'Allowed for this session',
  readonly_session: 'Read-only commands allowed for this session',
  always_task: 'Always allowed (standing rule)',
  always: 'Always allowed (standing rule)',
  deny: 'Denied',
  interrupted: 'Stopped before an answer',
  answered: 'Answered',
  granted: 'Access granted',
  declined: 'Declined',
};

export function decisionText(decision) {
  return DECISION_TEXT[decision] || (decision ? String(decision) : 'Answered');
}

// Pretty JSON for argument panes; strings stay as they are.
export function prettyValue(value) {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

// What write_file puts in a file, shown as the file: open (a person checks
// it before allowing the write, and reads it after), folded with a click,
// with a Copy button. Long contents scroll inside the block.
export function fileContentView(filePath, content) {
  const lines = content === '' ? 0 : content.replace(/\n$/, '').split('\n').length;
  return h('details', { class: 'file-content', open: true },
    h('summary', null, h('code', null, firstLine(filePath || 'file')), ` · ${lines} line${lines === 1 ? '' : 's'}`),
    h('div', { class: 'code-block' },
      copyButton(() => content, `Copy the content of ${filePath || 'the file'}`),
      h('pre', null, h('code', null, content))));
}
