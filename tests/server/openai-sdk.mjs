// openai-sdk.mjs: the official OpenAI Node SDK against /v1/chat/completions
// and /v1/models, with the API token as its key.
//
//   node openai-sdk.mjs BASE TOKEN
//
// Runs, in order (the model server's script follows the same order):
//   1. models.list
//   2. a whole completion
//   3. a streamed completion with usage
//   4. a whole completion that returns a tool call
//   5. a streamed completion that returns a tool call
//   6. a wrong key (expects AuthenticationError, 401)
//   7. an unknown provider (expects NotFoundError, 404)
//   8. a malformed request (expects BadRequestError, 400)
// and prints what it saw as JSON.
import OpenAI from 'openai';

const [base, token] = process.argv.slice(2);
const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: token, maxRetries: 0, timeout: 30000 });
const out = {};

async function caught(fn) {
  try { await fn(); return { ok: true }; } catch (e) {
    return { ok: false, name: e.constructor.name, status: e.status ?? null, message: String(e.message) };
  }
}

const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

const models = await client.models.list();
out.models = models.data.map((m) => m.id);

const whole = await client.chat.completions.create({ model: 'openai:gpt-4o',
  messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello.' }] });
out.whole = { id: whole.id, object: whole.object, model: whole.model, content: whole.choices[0].message.content,
  finish: whole.choices[0].finish_reason, usage: whole.usage };

const stream = await client.chat.completions.create({ model: 'openai:gpt-4o', stream: true,
  stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Stream please.' }] });
const pieces = [];
let usage = null, finish = null, chunks = 0;
for await (const chunk of stream) {
  chunks++;
  if (chunk.usage) usage = chunk.usage;
  const c = chunk.choices[0];
  if (c?.delta?.content) pieces.push(c.delta.content);
  if (c?.finish_reason) finish = c.finish_reason;
}
out.stream = { text: pieces.join(''), pieces: pieces.length, chunks, usage, finish };

const toolWhole = await client.chat.completions.create({ model: 'openai:gpt-4o', tools,
  messages: [{ role: 'user', content: 'Weather in Paris?' }] });
out.tool_whole = { finish: toolWhole.choices[0].finish_reason, calls: toolWhole.choices[0].message.tool_calls };

const toolStream = await client.chat.completions.create({ model: 'openai:gpt-4o', tools, stream: true,
  messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
const calls = {};
let toolFinish = null;
for await (const chunk of toolStream) {
  const c = chunk.choices[0];
  for (const tc of c?.delta?.tool_calls ?? []) {
    calls[tc.index] ??= { id: '', name: '', arguments: '' };
    if (tc.id) calls[tc.index].id += tc.id;
    if (tc.function?.name) calls[tc.index].name += tc.function.name;
    if (tc.function?.arguments) calls[tc.index].arguments += tc.function.arguments;
  }
  if (c?.finish_reason) toolFinish = c.finish_reason;
}
out.tool_stream = { finish: toolFinish, calls: Object.values(calls) };

const bad = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'f'.repeat(64), maxRetries: 0 });
out.bad_key = await caught(() => bad.chat.completions.create({ model: 'openai:gpt-4o',
  messages: [{ role: 'user', content: 'x' }] }));
out.unknown_model = await caught(() => client.chat.completions.create({ model: 'nosuchprovider:model',
  messages: [{ role: 'user', content: 'x' }] }));
out.malformed = await caught(() => client.chat.completions.create({ model: 'openai:gpt-4o', messages: [] }));

process.stdout.write(JSON.stringify(out));
