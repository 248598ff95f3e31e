// The official TypeScript MCP SDK's client against `cwx serve --mcp` as a gateway to the
// configured MCP servers, for core/cli/serve_gateway_test.go. It waits until a tool is
// listed, makes the calls, gets a prompt, reads a resource and prints what it saw as one
// JSON line.
//
//   node gateway.mjs --bin CWX --wait-tool NAME [--call NAME --args JSON]... \
//     [--form JSON] [--prompt NAME --prompt-args JSON] [--resource URI] \
//     [--complete PROMPT --complete-arg NAME --complete-value V --complete-context JSON] \
//     [--subscribe URI --subscribe-call TOOL]
//
// --complete asks completion/complete of the prompt's argument; --subscribe subscribes to
// the URI, calls TOOL (which should make the server send an update) and waits up to 20 s
// for notifications/resources/updated of it, then unsubscribes.
// Every elicitation is answered: an approval card (its form has a "decision" field) with
// allow_once, any other form with --form's content (accept), or declined without --form.
// The server is started with CWX_HOME from the environment.
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const { values: o } = parseArgs({
  options: {
    bin: { type: 'string' },
    'wait-tool': { type: 'string' },
    call: { type: 'string', multiple: true, default: [] },
    args: { type: 'string', multiple: true, default: [] },
    form: { type: 'string' },
    prompt: { type: 'string' },
    'prompt-args': { type: 'string', default: '{}' },
    resource: { type: 'string' },
    complete: { type: 'string' },
    'complete-arg': { type: 'string' },
    'complete-value': { type: 'string', default: '' },
    'complete-context': { type: 'string', default: '{}' },
    subscribe: { type: 'string' },
    'subscribe-call': { type: 'string' },
  },
});

const out = { elicitations: [], calls: [], changed: { tools: 0, prompts: 0, resources: 0 } };
const client = new Client({ name: 'cwx-ts-gateway', version: '1.0.0' }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  const schema = req.params.requestedSchema ?? {};
  const fields = Object.keys(schema.properties ?? {}); // in the order the wire had them
  const approval = fields.includes('decision');
  out.elicitations.push({ message: req.params.message, fields, approval });
  if (approval) return { action: 'accept', content: { decision: 'allow_once' } };
  if (!o.form) return { action: 'decline' };
  return { action: 'accept', content: JSON.parse(o.form) };
});
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { out.changed.tools++; });
client.setNotificationHandler(PromptListChangedNotificationSchema, () => { out.changed.prompts++; });
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { out.changed.resources++; });
out.updated = [];
let onUpdated = () => {};
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { out.updated.push(n.params.uri); onUpdated(); });

await client.connect(new StdioClientTransport({ command: o.bin, args: ['serve', '--mcp'], env: process.env, stderr: 'inherit' }));

// the server's tools arrive with its start, or later by list_changed
const deadline = Date.now() + 30_000;
let tools = [];
for (;;) {
  tools = (await client.listTools()).tools;
  if (!o['wait-tool'] || tools.some((t) => t.name === o['wait-tool']) || Date.now() > deadline) break;
  await new Promise((r) => setTimeout(r, 100));
}
out.tools = tools.map((t) => t.name);

for (const [i, name] of o.call.entries()) {
  const before = out.elicitations.length;
  const res = await client.callTool({ name, arguments: JSON.parse(o.args[i] ?? '{}') }, undefined, { timeout: 60_000 });
  out.calls.push({
    name,
    isError: res.isError === true,
    text: (res.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
    elicited: out.elicitations.slice(before),
  });
}

if (o.prompt) {
  out.prompts = (await client.listPrompts()).prompts.map((p) => ({ name: p.name, description: p.description, arguments: (p.arguments ?? []).map((a) => a.name) }));
  const p = await client.getPrompt({ name: o.prompt, arguments: JSON.parse(o['prompt-args']) });
  out.prompt = p.messages.map((m) => ({ role: m.role, text: m.content.type === 'text' ? m.content.text : m.content.type }));
}
if (o.resource) {
  out.resources = (await client.listResources()).resources.map((r) => r.uri);
  out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  const r = await client.readResource({ uri: o.resource });
  out.read = r.contents.map((c) => ({ uri: c.uri, text: c.text ?? null, blob: c.blob ?? null }));
}
if (o.complete) {
  out.capabilities = client.getServerCapabilities();
  const c = await client.complete({
    ref: { type: 'ref/prompt', name: o.complete },
    argument: { name: o['complete-arg'], value: o['complete-value'] },
    context: { arguments: JSON.parse(o['complete-context']) },
  });
  out.completion = c.completion.values;
}
if (o.subscribe) {
  await client.subscribeResource({ uri: o.subscribe });
  const got = new Promise((resolve) => { onUpdated = resolve; });
  if (o['subscribe-call']) await client.callTool({ name: o['subscribe-call'], arguments: {} }, undefined, { timeout: 60_000 });
  await Promise.race([got, new Promise((r) => setTimeout(r, 20_000))]);
  await client.unsubscribeResource({ uri: o.subscribe });
}
await client.close();
console.log(JSON.stringify(out));
