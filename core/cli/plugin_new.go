package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cwx-dev/cwx/core/internal/lazyre"
	"github.com/cwx-dev/cwx/core/plugins"
	"github.com/cwx-dev/cwx/nodeshim/jshost"
)

// pluginAuthorCmds are the commands for writing a plugin rather than running one.
func pluginAuthorCmds() []*cobra.Command {
	return []*cobra.Command{pluginNewCmd(), pluginTypesCmd(), pluginDevCmd()}
}

func pluginTypesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "types",
		Short: "Print cwx-plugin.d.ts, the TypeScript declarations plugins are written against",
		Long: "Prints the declarations of what the JS host gives a plugin (ctx, tools, commands,\n" +
			"timer, logger, a tool's exec and its core calls, command invocations and results, the\n" +
			"errors and the config schema builder). They describe this cwx binary's host exactly.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := cmd.OutOrStdout().Write(jshost.AuthorTypes())
			return err
		},
	}
}

// scaffoldName is what `cwx plugin new` accepts: a lower-case manifest name that is also a
// folder name and yields a tool and command name.
var scaffoldName = lazyre.New(`^[a-z][a-z0-9-]{0,47}$`)

// PluginNewResult is the --json output of `cwx plugin new`.
type PluginNewResult struct {
	ID    string   `json:"id"`
	Dir   string   `json:"dir"`
	Files []string `json:"files"` // slash-separated, relative to Dir
	Next  string   `json:"next"`  // the command that runs the scaffold's own test
}

func pluginNewCmd() *cobra.Command {
	var dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "new NAME [--dir DIR]",
		Short: "Write a new TypeScript plugin: plugin.json, src/index.ts, types, tsconfig and a test",
		Long: "Writes a folder (NAME, or --dir) holding a plugin with one tool and one command, the\n" +
			"author types (cwx-plugin.d.ts), a tsconfig.json that type-checks against them and\n" +
			"test.mjs, which installs the plugin into a throwaway CWX_HOME (running the runtime your\n" +
			"cwx resolves: your config, then PATH) and calls both through\n" +
			"this cwx. Nothing is installed or trusted. Refuses a folder that already exists.",
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if !scaffoldName().MatchString(name) {
				return exitf(ExitUsage, "plugin name %q: use a lower-case letter, then lower-case letters, digits or '-' (48 at most)", name)
			}
			if dir == "" {
				dir = name
			}
			files := scaffold(name)
			if err := writeScaffold(dir, files); err != nil {
				return err
			}
			out := PluginNewResult{ID: name, Dir: dir, Files: []string{}, Next: fmt.Sprintf("cd %s && node --test", shellQuote(dir))}
			for _, f := range files {
				out.Files = append(out.Files, f.path)
			}
			return writeReport(cmd.OutOrStdout(), asJSON, out, func(w io.Writer, r PluginNewResult) {
				printf(w, "wrote %s (%d files) for plugin %s\n", r.Dir, len(r.Files), r.ID)
				for _, f := range r.Files {
					printf(w, "  %s\n", f)
				}
				printf(w, "next: %s   (or: cwx plugin dev %s)\n", r.Next, shellQuote(r.Dir))
			})
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the folder to create (default: NAME)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

type scaffoldFile struct {
	path string // slash-separated, relative to the plugin folder
	body string
}

// writeScaffold creates dir (which must not exist) and writes files into it.
func writeScaffold(dir string, files []scaffoldFile) error {
	if _, err := os.Lstat(dir); err == nil {
		return exitf(ExitUsage, "%s already exists; cwx plugin new writes a new folder only", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return &ExitError{Code: ExitInternal, Err: err}
		}
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			return &ExitError{Code: ExitInternal, Err: err}
		}
	}
	if _, err := plugins.ReadManifest(dir); err != nil {
		return &ExitError{Code: ExitInternal, Err: fmt.Errorf("the scaffold's own manifest is refused: %w", err)}
	}
	return nil
}

// scaffold returns the files of a new plugin called name, in the order they are listed.
func scaffold(name string) []scaffoldFile {
	ident := strings.ReplaceAll(name, "-", "_")
	r := strings.NewReplacer("{{NAME}}", name, "{{TOOL}}", ident+"_greet", "{{COMMAND}}", name)
	return []scaffoldFile{
		{"plugin.json", r.Replace(scaffoldManifest)},
		{"src/index.ts", r.Replace(scaffoldEntry)},
		{jshost.AuthorTypesName, string(jshost.AuthorTypes())},
		{"tsconfig.json", scaffoldTSConfig},
		{"test.mjs", r.Replace(scaffoldTest)},
		{"README.md", r.Replace(scaffoldReadme)},
	}
}

const scaffoldManifest = `{
  "name": "{{NAME}}",
  "version": "0.1.0",
  "description": "The tool {{TOOL}} and the command /{{COMMAND}}.",
  "native": "src/index.ts"
}
`

const scaffoldEntry = `// {{NAME}}: a cwx plugin. cwx runs this file as it is: Node strips the types of a .ts module
// and Bun runs TypeScript, so there is no build step. Only erasable TypeScript is allowed
// (type imports, interfaces, annotations); ` + "`tsc -p .`" + ` checks it against cwx-plugin.d.ts.
import Schema from '@deepseek-ai/schemastery';
import type { CommandInvocation, CommandResult, Context, ToolExec } from 'cwx-plugin';

export const name = '{{NAME}}';
export const inject = ['tools', 'commands'];

// Config comes from config.toml: [plugins."{{NAME}}".config] greeting = "Ahoy"
export interface Config {
  greeting: string;
}
export const Config: Schema<Config> = Schema.object({
  greeting: Schema.string().default('Hello').description('The word each greeting starts with.'),
});

interface GreetArgs {
  name?: string;
}

export function apply(ctx: Context, config: Config): void {
  const greet = (who: string): string => ` + "`${config.greeting}, ${who || 'world'}!`" + `;

  // A string result is the answer's text; a JSON object is shown as JSON and kept structured.
  ctx.tools.register<GreetArgs>({
    name: '{{TOOL}}',
    description: 'Greet someone by name.',
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 200, description: 'Who to greet.' } },
      additionalProperties: false,
    },
    execute(args: GreetArgs, exec: ToolExec<GreetArgs>) {
      ctx.logger.info('greeting %s (call %s)', args.name ?? 'world', exec.callId);
      return { text: greet(args.name ?? '') };
    },
  });

  // A command answers success, error or submit (a prompt sent to the model); a string is a success.
  ctx.commands.register({
    name: '{{COMMAND}}',
    description: 'Say hello to someone.',
    argumentHint: '[name]',
    handler: (inv: CommandInvocation): CommandResult => ({ kind: 'success', text: greet(inv.args.trim()) }),
  });
}
`

const scaffoldTSConfig = `{
  "compilerOptions": {
    "target": "es2023",
    "module": "esnext",
    "moduleResolution": "bundler",
    "lib": ["es2023", "dom"],
    "strict": true,
    "noEmit": true,
    "verbatimModuleSyntax": true,
    "isolatedModules": true,
    "erasableSyntaxOnly": true,
    "types": [],
    "paths": {
      "cwx-plugin": ["./cwx-plugin.d.ts"],
      "@deepseek-ai/schemastery": ["./cwx-plugin.d.ts"]
    }
  },
  "include": ["src/**/*.ts"]
}
`

const scaffoldTest = `// Runs {{NAME}} against cwx: installs this folder into a throwaway CWX_HOME, trusts and
// enables it, calls its tool and its command. Run it with ` + "`node --test`" + ` (CWX names the cwx
// binary; default: cwx on PATH). The throwaway home runs the runtime your own cwx resolves (your
// config.toml, then PATH), and a failed cwx command fails the test with cwx's own message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cwxBin = process.env.CWX || 'cwx';
const run = (env, args) => {
  try {
    return execFileSync(cwxBin, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const said = String(err.stderr || '').trim() || String(err.stdout || '').trim() || err.message;
    throw Object.assign(new Error(` + "`cwx ${args.join(' ')} failed (exit ${err.status}):\\n${said}`" + `), { stdout: err.stdout });
  }
};

// the runtime your cwx would use, pinned in the throwaway home's config.toml
const doctor = (() => {
  try {
    return JSON.parse(run(process.env, ['doctor', '--json']));
  } catch (err) {
    let out;
    try {
      out = JSON.parse(err.stdout);
    } catch {
      throw err;
    }
    if (!out.usable) throw new Error(` + "`your cwx finds no usable runtime: ${out.fix}\\n${err.message}`" + `);
    return out;
  }
})();
const home = mkdtempSync(join(tmpdir(), 'cwx-{{NAME}}-'));
const { kind, path } = doctor.runtime;
writeFileSync(join(home, 'config.toml'), ` + "`[extension_host]\\nruntime = ${JSON.stringify(kind)}\\n${kind} = ${JSON.stringify(path)}\\n`" + `);
const cwx = (...args) => run({ ...process.env, CWX_HOME: home }, args);

test('{{NAME}} answers through cwx', (t) => {
  t.after(() => rmSync(home, { recursive: true, force: true }));
  cwx('plugin', 'install', import.meta.dirname);
  const { token } = JSON.parse(cwx('plugin', 'review', '{{NAME}}', '--json'));
  cwx('plugin', 'trust', '{{NAME}}', '--token', token);
  cwx('plugin', 'enable', '{{NAME}}');
  const tool = JSON.parse(cwx('tool', 'call', '{{TOOL}}', '--input', '{"name":"Ada"}', '--approve', 'auto', '--json'));
  assert.equal(tool.structured.text, 'Hello, Ada!');
  assert.equal(cwx('command', 'run', '{{COMMAND}}', 'Bob').trim(), 'Hello, Bob!');
});
`

const scaffoldReadme = `# {{NAME}}

A cwx plugin: the tool ` + "`{{TOOL}}`" + ` and the command ` + "`/{{COMMAND}}`" + `.

    node --test                  # installs it into a throwaway CWX_HOME and calls both
    cwx plugin dev .             # re-activates it on every save, with its logs
    npx -p typescript tsc -p .   # type-checks src/ against cwx-plugin.d.ts
`
