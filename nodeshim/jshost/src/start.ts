// The host's start, shared by its two entry points: main.ts (the bundle, dist/cwx-extension-host.mjs)
// and snapshot.ts (a Node startup snapshot's main function, dist/cwx-extension-host-snapshot.cjs).
//
// Order matters: the tier is parsed first; console output is rebound before any plugin can print
// and the channel (fd 3 in, fd 4 out) is opened; the parent watchdog starts before the lockdown
// refuses Workers; DSH module resolution and the native-code lockdown are installed and verified
// before the first frame; then the host sends host/hello and serves the core until fd 3 ends.
import {
  EXIT_PROTOCOL, EXIT_SOFTWARE, EXIT_USAGE, openChannel, parseTier, rebindStdio, startWatchdog,
} from './boot.ts';
import { guardProcess, type HostEnd } from './guard.ts';
import { configure, lockChannel, noteSchedulers, unlockChannel } from './running.ts';
import { wipe } from './primordials.ts';
import { FrameDecoder } from './frame.ts';
import { ExtensionHost } from './host.ts';
import { installResolution } from './dsh/resolve.ts';
import { installGitScope } from './shims/git.ts';
import { lockdown, verifyLockdown } from './lockdown.ts';
import { PROTOCOL_VERSION, type RuntimeInfo } from './protocol.generated.ts';
import { errorMessage } from './rpc.ts';
import { BUILTIN_MODULES, HOST_VERSION } from './version.ts';

const stderr = (line: string) => process.stderr.write(`${line}\n`);
let end: HostEnd | undefined;

async function main(digest: string): Promise<void> {
  const tier = parseTier(process.argv.slice(2));
  if (typeof tier === 'object') {
    stderr(`cwx-extension-host: ${tier.error}`);
    process.exit(EXIT_USAGE);
  }
  rebindStdio();
  const channel = openChannel();
  // the watchdog thread writes on the channel too: the host holds the lock from a write until
  // its stream has nothing queued (running.ts)
  const writeChannel = (chunk: Buffer, done?: () => void) => {
    lockChannel();
    channel.write(chunk, () => {
      if (channel.queued() === 0) unlockChannel();
      wipe(chunk); // written: see wipe in primordials.ts
      done?.();
    });
    if (channel.queued() === 0) unlockChannel();
  };
  end = guardProcess();
  const realExit = end.exit;
  const post = startWatchdog(process.env);
  noteSchedulers();
  installResolution();
  // execFile('git', …) is the agent's (shims/git.ts), before any plugin imports child_process
  if (tier === 'plugin') installGitScope();
  if (process.env.CWX_HOST_UNSAFE_NO_LOCKDOWN !== '1') {
    lockdown();
    const open = await verifyLockdown();
    if (open.length > 0) {
      stderr(`cwx-extension-host: native-code lockdown does not hold: ${open.join('; ')}`);
      realExit(EXIT_SOFTWARE);
    }
  }

  let exiting = false;
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    // let queued frames reach the pipe, but never wait more than 200 ms
    setTimeout(() => realExit(code), 200).unref?.();
    writeChannel(Buffer.alloc(0), () => realExit(code));
  };
  const host = new ExtensionHost({ tier, write: (f) => { if (!exiting) writeChannel(f); }, exit, stderr });
  end.onRefusal((err) => host.refused(err));
  configure({ post, clear: () => host.rpc.notify('host/busy', {}) });
  process.on('uncaughtException', (err) => host.fault(err, 'exception'));
  process.on('unhandledRejection', (reason) => host.fault(reason, 'rejection'));

  const decoder = new FrameDecoder();
  channel.input.on('data', (chunk: Uint8Array) => {
    let payloads: Buffer[];
    try {
      payloads = decoder.push(chunk);
    } catch (err) {
      stderr(`cwx-extension-host: ${errorMessage(err)}`);
      return exit(EXIT_PROTOCOL);
    }
    for (const p of payloads) {
      if (exiting) return;
      host.rpc.receive(p);
    }
  });
  const ended = () => {
    host.rpc.close();
    end?.killGroup();
    realExit(0);
  };
  channel.input.on('end', ended);
  channel.input.on('error', ended); // fd 3 unreadable: the shim is gone as surely as on EOF

  host.rpc.notify('host/hello', {
    protocol: { min: PROTOCOL_VERSION, max: PROTOCOL_VERSION },
    host_version: HOST_VERSION,
    bundle_sha256: digest,
    runtime: runtimeInfo(),
    tier,
    builtin_modules: BUILTIN_MODULES,
  });
}

function runtimeInfo(): RuntimeInfo {
  const bun = process.versions.bun;
  if (typeof bun === 'string') return { name: 'bun', version: bun };
  return { name: 'node', version: process.versions.node };
}

/**
 * start runs the host; digest is the sha256 of the code it runs, reported in host/hello (the
 * bundle's file, or the snapshot entry the snapshot was built from).
 */
export function start(digest: string): void {
  main(digest).catch((err: unknown) => {
    const stack: unknown = typeof err === 'object' && err !== null ? Reflect.get(err, 'stack') : undefined;
    stderr(`cwx-extension-host: ${stack ?? String(err)}`);
    if (end) end.killGroup();
    else {
      try {
        process.kill(-process.pid, 'SIGKILL');
      } catch {
        // not a group leader
      }
    }
    process.exitCode = EXIT_SOFTWARE;
  });
}
