// @deepseek-ai/dsh-pwsh-local@0.1.0-rc.8, built by testdata/dsh-census/census.mjs from toninfo/deepseek-harness@611615650f1b:packages/shell/pwsh-local (MIT, see LICENSE).
var __knownSymbol = (name, symbol) => (symbol = Symbol[name]) ? symbol : /* @__PURE__ */ Symbol.for("Symbol." + name);
var __typeError = (msg) => {
  throw TypeError(msg);
};
var __using = (stack, value, async) => {
  if (value != null) {
    if (typeof value !== "object" && typeof value !== "function") __typeError("Object expected");
    var dispose, inner;
    if (async) dispose = value[__knownSymbol("asyncDispose")];
    if (dispose === void 0) {
      dispose = value[__knownSymbol("dispose")];
      if (async) inner = dispose;
    }
    if (typeof dispose !== "function") __typeError("Object not disposable");
    if (inner) dispose = function() {
      try {
        inner.call(this);
      } catch (e) {
        return Promise.reject(e);
      }
    };
    stack.push([async, dispose, value]);
  } else if (async) {
    stack.push([async]);
  }
  return value;
};
var __callDispose = (stack, error, hasError) => {
  var E = typeof SuppressedError === "function" ? SuppressedError : function(e, s, m, _) {
    return _ = Error(m), _.name = "SuppressedError", _.error = e, _.suppressed = s, _;
  };
  var fail = (e) => error = hasError ? new E(e, error, "An error was suppressed during disposal") : (hasError = true, e);
  var next = (it) => {
    while (it = stack.pop()) {
      try {
        var result = it[1] && it[1].call(it[2]);
        if (it[0]) return Promise.resolve(result).then(next, (e) => (fail(e), next()));
      } catch (e) {
        fail(e);
      }
    }
    if (hasError) throw error;
  };
  return next();
};

// src/index.ts
import z from "@deepseek-ai/schemastery";
import { SHELL_SETTINGS_NAMESPACE, ShellExecutor } from "@deepseek-ai/dsh-shell";
import { installSettingsSection } from "@deepseek-ai/dsh-settings";
import { clampTimeout, deadline, MAX_TIMER_DELAY_MS, timeoutOf } from "@deepseek-ai/dsh-timeout";

// src/resolve.ts
import { lstatSync } from "node:fs";
import { join } from "node:path";
function candidatePwshPaths(env = process.env) {
  const programFiles = env.ProgramFiles ?? "C:\\Program Files";
  const systemRoot = env.SystemRoot ?? "C:\\Windows";
  const candidates = [
    join(programFiles, "PowerShell", "7", "pwsh.exe")
  ];
  for (const entry of (env.PATH ?? "").split(";")) {
    const trimmed = entry.trim().replace(/^"|"$/g, "");
    if (trimmed.length === 0) continue;
    candidates.push(join(trimmed, "pwsh.exe"));
  }
  candidates.push(join(systemRoot, "System32", "WindowsPowerShell", "v1.0", "powershell.exe"));
  return candidates;
}
function candidateExists(candidate) {
  try {
    const stat = lstatSync(candidate);
    return stat.isFile() || stat.isSymbolicLink();
  } catch {
    return false;
  }
}
function resolvePwshPath(configured, env = process.env, platform = process.platform) {
  if (configured !== void 0 && configured.length > 0) return configured;
  if (platform === "win32") {
    for (const candidate of candidatePwshPaths(env)) {
      if (candidateExists(candidate)) return candidate;
    }
  }
  return "pwsh";
}

// src/index.ts
var ENV_OVERRIDES = {
  NO_COLOR: "1",
  PAGER: "cat",
  GIT_PAGER: "cat"
};
var ENCODING_PREAMBLE = "[Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false); $OutputEncoding = [System.Text.UTF8Encoding]::new($false); ";
var DEFAULT_GRACE_MS = 3e3;
var DEFAULT_MAX_SPILL_BYTES = 64 * 1024 * 1024;
function finalOutput(reader) {
  const read = reader.readFrom(0);
  return {
    text: read.text,
    truncated: read.lossy,
    ...read.spillPath !== void 0 ? { spillPath: read.spillPath } : {}
  };
}
function assertPositiveFinite(name, value) {
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`pwsh-local: ${name} must be a positive finite number`);
  }
}
function assertServiceablePwshConfig(config) {
  const resolved = config;
  assertPositiveFinite("timeoutMs", resolved.timeoutMs);
  assertPositiveFinite("maxTimeoutMs", resolved.maxTimeoutMs);
  assertPositiveFinite("maxOutputBytes", resolved.maxOutputBytes);
  assertPositiveFinite("maxSpillBytes", resolved.maxSpillBytes);
  assertPositiveFinite("graceMs", resolved.graceMs);
  if (resolved.graceMs > MAX_TIMER_DELAY_MS) {
    throw new Error(`pwsh-local: graceMs must be no greater than ${MAX_TIMER_DELAY_MS}`);
  }
}
var PwshLocalExecutor = class _PwshLocalExecutor extends ShellExecutor {
  static inject = ["subprocess"];
  static Config = z.object({
    cwd: z.string(),
    timeoutMs: z.number().default(12e4),
    maxTimeoutMs: z.number().default(6e5),
    maxOutputBytes: z.number().default(64e3),
    maxSpillBytes: z.number().default(DEFAULT_MAX_SPILL_BYTES),
    graceMs: z.number().default(DEFAULT_GRACE_MS),
    pwshPath: z.string()
  });
  /** The currently authoritative config: the settings section, or the composition entry. */
  source;
  /** The declared executable the current {@link pwshPath} was resolved from. */
  declaredPwshPath;
  /** The pwsh executable resolved from the current config. */
  resolvedPwshPath;
  /** Validated config (schemastery applied the defaults before construction). */
  get config() {
    return this.source();
  }
  /** The pwsh executable every command runs through. */
  get pwshPath() {
    return this.resolvedPwshPath;
  }
  constructor(ctx, config) {
    super(ctx);
    const entry = config;
    assertServiceablePwshConfig(entry);
    this.source = () => entry;
    this.declaredPwshPath = entry.pwshPath;
    this.resolvedPwshPath = resolvePwshPath(entry.pwshPath);
    installSettingsSection(ctx, SHELL_SETTINGS_NAMESPACE, _PwshLocalExecutor.Config, entry, {
      validate: assertServiceablePwshConfig,
      setSource: (current) => {
        this.source = current;
      },
      // Probing the filesystem is the one fact derived from the source: every
      // other field is read through the getter at each command.
      onChange: () => {
        const declared = this.source().pwshPath;
        if (declared === this.declaredPwshPath) return;
        this.declaredPwshPath = declared;
        this.resolvedPwshPath = resolvePwshPath(declared);
      }
    });
  }
  /**
   * Resolve a request into a fully-specified spec: fill `workdir` from
   * `config.cwd` (else `process.cwd()`), and `timeoutMs` from
   * `config.timeoutMs`, capped at `config.maxTimeoutMs`.
   */
  resolve(request) {
    const timeoutMs = clampTimeout(
      request.timeoutMs,
      this.config.timeoutMs,
      this.config.maxTimeoutMs,
      "pwsh-local: request.timeoutMs"
    );
    const stdoutMaxBytes = request.stdoutMaxBytes ?? this.config.maxOutputBytes;
    assertPositiveFinite("request.stdoutMaxBytes", stdoutMaxBytes);
    return {
      command: request.command,
      workdir: request.workdir ?? this.config.cwd ?? process.cwd(),
      timeoutMs,
      stdoutMaxBytes,
      ...request.signal ? { signal: request.signal } : {},
      ...request.stdin !== void 0 ? { stdin: request.stdin } : {},
      ...request.env !== void 0 ? { env: request.env } : {},
      ...request.dshEnv !== void 0 ? { dshEnv: request.dshEnv } : {},
      sandboxPolicy: request.sandboxPolicy
    };
  }
  /**
   * The pwsh invocation argv for one resolved spec — the argv-level seam a
   * confining subclass wraps through `ctx.sandbox.confine` (the pwsh twin of
   * `dsh-bash-local`'s `runArgv`/`startArgv` hooks; see
   * `@deepseek-ai/dsh-pwsh-sandbox`).
   */
  argv(spec) {
    return [this.pwshPath, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", `${ENCODING_PREAMBLE}${spec.command}`];
  }
  /** Map one resolved spec plus its argv onto a fully-specified subprocess spawn. */
  spawnSpec(spec, stdoutMaxBytes, signal, argv) {
    const collect = (maxBytes) => ({ maxBytes, spill: { maxBytes: this.config.maxSpillBytes } });
    return {
      argv: [...argv],
      cwd: spec.workdir,
      stdio: {
        stdin: spec.stdin !== void 0 ? { data: spec.stdin } : "ignore",
        stdout: collect(stdoutMaxBytes),
        stderr: collect(this.config.maxOutputBytes)
      },
      graceMs: this.config.graceMs,
      signal,
      env: { ...ENV_OVERRIDES, ...spec.env, ...spec.dshEnv }
    };
  }
  /** The collect-mode readers the executor itself requested (present by construction). */
  static collected(handle) {
    const { stdout, stderr } = handle.collected;
    if (stdout === void 0 || stderr === void 0) {
      throw new Error("pwsh-local: subprocess implementation dropped a requested collect stream");
    }
    return { stdout, stderr };
  }
  async run(spec) {
    return this.runArgv(spec, this.argv(spec));
  }
  /** Foreground run of an exact argv (the confining subclass re-wraps it). */
  async runArgv(spec, argv) {
    var _stack = [];
    try {
      const d = __using(_stack, deadline(spec.signal, spec.timeoutMs, "BASH_TIMEOUT"));
      const handle = this.ctx.subprocess.spawn(this.spawnSpec(spec, spec.stdoutMaxBytes, d.signal, argv));
      const outcome = await handle.done;
      const collected = _PwshLocalExecutor.collected(handle);
      const timedOut = timeoutOf(d.signal, "BASH_TIMEOUT") !== void 0;
      const aborted = d.signal.aborted && !timedOut;
      return {
        ...outcome,
        timedOut,
        aborted,
        timeoutMs: spec.timeoutMs,
        stdout: finalOutput(collected.stdout),
        stderr: finalOutput(collected.stderr)
      };
    } catch (_) {
      var _error = _, _hasError = true;
    } finally {
      __callDispose(_stack, _error, _hasError);
    }
  }
  start(spec) {
    return this.startArgv(spec, this.argv(spec));
  }
  /** Background start of an exact argv (the confining subclass re-wraps it). */
  startArgv(spec, argv) {
    const running = this.ctx.subprocess.spawn(this.spawnSpec(spec, this.config.maxOutputBytes, spec.signal, argv));
    const collected = _PwshLocalExecutor.collected(running);
    let spawnFailureNote;
    const consumeSpawnFailure = () => {
      const note = spawnFailureNote ?? "";
      spawnFailureNote = void 0;
      return note;
    };
    let stdoutOffset = 0;
    let stderrOffset = 0;
    const proc = {
      status: "running",
      exitCode: null,
      signal: null,
      done: running.done.then((outcome) => {
        if (proc.status === "running") {
          proc.status = spec.signal?.aborted === true || outcome.signal !== null ? "killed" : "completed";
        }
        proc.exitCode = outcome.exitCode;
        proc.signal = outcome.signal;
        this.onProcessDone(proc, collected.stderr.readFrom(0).text, false);
      }, (error) => {
        proc.status = "killed";
        spawnFailureNote = `spawn failed: ${String(error)}`;
        this.onProcessDone(proc, spawnFailureNote, true, error);
      }),
      readOutput: () => {
        const out = collected.stdout.readFrom(stdoutOffset);
        const err = collected.stderr.readFrom(stderrOffset);
        stdoutOffset = out.nextOffset;
        stderrOffset = err.nextOffset;
        const errText = err.text.length > 0 ? err.text : consumeSpawnFailure();
        const separator = out.text.length > 0 && !out.text.endsWith("\n") ? "\n" : "";
        const delta = out.text + (errText.length > 0 ? `${separator}[stderr]
${errText}` : "");
        return {
          delta,
          lossy: out.lossy || err.lossy,
          ...out.spillPath !== void 0 ? { stdoutSpillPath: out.spillPath } : {},
          ...err.spillPath !== void 0 ? { stderrSpillPath: err.spillPath } : {}
        };
      },
      kill: () => {
        if (proc.status !== "running") return false;
        proc.status = "killed";
        running.terminate();
        return true;
      }
    };
    return proc;
  }
  /**
   * Settlement hook for subclasses that attach execution facts to a process.
   * The base implementation is intentionally empty. Mirrored from
   * `dsh-bash-local` (whose sandboxing subclass consumes the same hook); the
   * pwsh-confining consumer is `@deepseek-ai/dsh-pwsh-sandbox`.
   * @param _proc - the settled process handle.
   * @param _stderr - the process's retained stderr tail used by subclasses for settlement classification.
   * @param _spawnFailed - whether the spawn rejected before any process existed.
   * @param _spawnError - the spawn rejection, when `_spawnFailed`.
   */
  onProcessDone(_proc, _stderr, _spawnFailed, _spawnError) {
  }
};
var index_default = PwshLocalExecutor;
export {
  ENCODING_PREAMBLE,
  ENV_OVERRIDES,
  PwshLocalExecutor,
  assertServiceablePwshConfig,
  candidatePwshPaths,
  index_default as default,
  resolvePwshPath
};
