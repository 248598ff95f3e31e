// The official TypeScript MCP SDK's client against `cwx serve --mcp`, for the Go tests and
// `make demo`. It lists the tools, makes one call and prints what it saw as one JSON line.
//
//   node client.mjs --bin CWX [--elicit allow_once|allow_session|deny] --call NAME --args JSON
//   node client.mjs --url http://127.0.0.1:PORT/mcp --token TOKEN [--origin ORIGIN] ...
//   node client.mjs --config .mcp.json [--cwd DIR] ...   (the server named cwx, as an agent starts it)
//
// Over stdio the server is started with CWX_HOME from the environment; --serve-arg adds an
// argument to `cwx serve --mcp` (repeatable).
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const { values: o } = parseArgs({
  options: {
    bin: { type: 'string' },
    url: { type: 'string' },
    token: { type: 'string' },
    origin: { type: 'string' },
    elicit: { type: 'string' },
    call: { type: 'string' },
    args: { type: 'string', default: '{}' },
    'serve-arg': { type: 'string', multiple: true, default: [] },
    config: { type: 'string' },
    cwd: { type: 'string' },
  },
});

const out = {};
const client = new Client({ name: 'cwx-ts-client', version: '1.0.0' }, o.elicit ? { capabilities: { elicitation: {} } } : {});
if (o.elicit) {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    out.elicited = req.params.message;
    if (o.elicit === 'decline') return { action: 'decline' };
    return { action: 'accept', content: { decision: o.elicit } };
  });
}

let transport;
if (o.config) {
  // as an agent reads .mcp.json: command, args and env of the server named cwx, started in
  // the project folder (--cwd)
  const { readFileSync } = await import('node:fs');
  const s = JSON.parse(readFileSync(o.config, 'utf8')).mcpServers.cwx;
  transport = new StdioClientTransport({
    command: s.command,
    args: s.args ?? [],
    env: { PATH: process.env.PATH, ...(s.env ?? {}) },
    cwd: o.cwd,
    stderr: 'inherit',
  });
} else if (o.url) {
  const headers = {};
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  if (o.origin) headers.Origin = o.origin;
  transport = new StreamableHTTPClientTransport(new URL(o.url), { requestInit: { headers } });
} else {
  transport = new StdioClientTransport({
    command: o.bin,
    args: ['serve', '--mcp', ...o['serve-arg']],
    env: process.env,
    stderr: 'inherit',
  });
}

try {
  await client.connect(transport);
} catch (err) {
  out.connectError = String(err?.message ?? err);
  console.log(JSON.stringify(out));
  process.exit(0);
}
out.server = client.getServerVersion()?.name;
const { tools } = await client.listTools();
out.tools = tools.map((t) => ({ name: t.name, description: t.description }));
if (o.call) {
  const res = await client.callTool({ name: o.call, arguments: JSON.parse(o.args) });
  out.call = {
    isError: res.isError === true,
    text: res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
    structured: res.structuredContent ?? null,
  };
}
await client.close();
console.log(JSON.stringify(out));
