// Measures what BENCHMARKS.md records, on the runtime running this script:
//   activation time of a one-tool plugin (ext/activate round trip through the fake core),
//   and the host's idle RSS with three plugins active (Linux /proc).
//   node scripts/bench.mjs [runs]      bun scripts/bench.mjs [runs]
import { readFileSync } from 'node:fs';
import { FakeCore, plugin, sleep } from '../test/harness.mjs';

const runs = Number(process.argv[2] ?? 50);
const core = new FakeCore({});
const t0 = performance.now();
await core.handshake();
const startup = performance.now() - t0;
const times = [];
const owners = [];
for (let i = 0; i < runs; i++) {
  const s = performance.now();
  const a = await core.activate(plugin('tool', 'index.mjs'));
  times.push(performance.now() - s);
  if (a.result.status !== 'ok') throw new Error(JSON.stringify(a.res));
  owners.push(a.owner);
}
for (const owner of owners) await core.request('ext/deactivate', { owner });
times.sort((a, b) => a - b);
const pct = (p) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1);
for (const [dir, entry, config] of [['tool', 'index.mjs', {}], ['command', 'index.mjs', {}], ['config', 'index.mjs', { target: 'x' }]]) {
  const a = await core.activate(plugin(dir, entry), { config });
  if (a.result.status !== 'ok') throw new Error(JSON.stringify(a.res));
}
await sleep(1000);
const status = readFileSync(`/proc/${core.proc.pid}/status`, 'utf8');
const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
const runtime = core.messages.find((m) => m.method === 'host/hello').params.runtime;
console.log(JSON.stringify({
  runtime: `${runtime.name} ${runtime.version}`,
  startup_to_ready_ms: Number(startup.toFixed(1)),
  activation_ms: { max: Number(times.length ? Math.max(...times).toFixed(1) : 0), p50: Number(pct(50)), p90: Number(pct(90)), runs },
  idle_rss_mib_three_plugins: Number(rss.toFixed(1)),
}));
await core.close();
