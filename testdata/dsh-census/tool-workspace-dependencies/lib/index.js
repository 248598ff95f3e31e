// @deepseek-ai/dsh-tool-workspace-dependencies@0.1.7-alpha.1, built by testdata/dsh-census/census.mjs from 0217po/deepseek-harness@b51e64d70e26:packages/skill/tool-workspace-dependencies (MIT, see LICENSE).

// src/index.ts
import { cp, lstat, mkdir, mkdtemp, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, isAbsolute, join } from "node:path";
import z from "@deepseek-ai/schemastery";
import { defineTool } from "@deepseek-ai/dsh-tools";
var name = "tool-workspace-dependencies";
var inject = ["tools"];
var Config = z.object({
  source: z.string().min(1).required(),
  root: z.string().min(1)
});
var VERSION = /^\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/u;
var PLATFORMS = ["win32", "darwin", "linux"];
function isVersion(value) {
  return typeof value === "string" && VERSION.test(value);
}
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function isDistributionMap(value) {
  return isRecord(value) && Object.entries(value).every(([name2, version]) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/u.test(name2) && typeof version === "string" && /^\d[\w.!+-]*$/u.test(version));
}
function parsePrimaryRuntime(value) {
  if (!isRecord(value)) throw new Error("primary runtime: invalid metadata");
  const legacy = value.components !== void 0;
  const versions = legacy ? value.components : value;
  if (!isRecord(versions) || legacy && ["python", "node", "pnpm"].some((key) => value[key] !== void 0)) {
    throw new Error("primary runtime: invalid metadata");
  }
  const { desktopVersion, platform, arch, payloadDigest } = value;
  const { python, node, pnpm } = versions;
  const pythonPackages = value.pythonPackages === void 0 && legacy ? {} : value.pythonPackages;
  if (typeof desktopVersion !== "string" || desktopVersion.length === 0 || typeof platform !== "string" || !PLATFORMS.includes(platform) || typeof arch !== "string" || !["x64", "arm64"].includes(arch) || !isVersion(python) || node !== void 0 && !isVersion(node) || pnpm !== void 0 && (!isVersion(pnpm) || node === void 0) || payloadDigest !== void 0 && (typeof payloadDigest !== "string" || !/^[a-f0-9]{64}$/u.test(payloadDigest)) || !isDistributionMap(pythonPackages)) {
    throw new Error("primary runtime: invalid metadata");
  }
  const entries = Object.entries(pythonPackages);
  const distributions = new Map(entries.map(([name2, version]) => [name2.toLowerCase().replace(/[-_.]+/gu, "-"), version]));
  if (distributions.size !== entries.length) throw new Error("primary runtime: invalid metadata");
  if (legacy) {
    for (const name2 of ["numpy", "pandas"]) {
      if (!isVersion(versions[name2])) throw new Error("primary runtime: invalid metadata");
      const version = distributions.get(name2);
      if (version !== void 0 && version !== versions[name2]) {
        throw new Error(`primary runtime: conflicting ${name2} distribution version`);
      }
    }
  }
  return {
    desktopVersion,
    platform,
    arch,
    ...payloadDigest === void 0 ? {} : { payloadDigest },
    python,
    ...node === void 0 ? {} : { node },
    ...pnpm === void 0 ? {} : { pnpm },
    pythonPackages
  };
}
async function readPrimaryRuntime(root) {
  const value = JSON.parse(await readFile(join(root, "runtime.json"), "utf8"));
  return parsePrimaryRuntime(value);
}
function workspaceDependencyPaths(root, manifest) {
  const dependencies = join(root, "dependencies");
  const windows = manifest.platform === "win32";
  const node = manifest.node === void 0 ? {} : {
    node: join(dependencies, "node", "bin", windows ? "node.exe" : "node"),
    nodePackages: join(dependencies, "node", "node_modules")
  };
  const pnpm = manifest.pnpm === void 0 ? {} : { pnpm: join(dependencies, "pnpm", "bin", "pnpm.mjs") };
  return {
    python: join(dependencies, "python", ...windows ? ["python.exe"] : ["bin", "python3"]),
    ...node,
    ...pnpm,
    pythonPackages: join(dependencies, "python", ...windows ? ["Lib"] : ["lib", `python${manifest.python.split(".").slice(0, 2).join(".")}`], "site-packages"),
    pythonDistributions: manifest.pythonPackages
  };
}
function payloadEntries(paths) {
  return [paths.python, paths.node, paths.pnpm, paths.pythonPackages, paths.nodePackages].filter((path) => path !== void 0);
}
async function exists(path) {
  try {
    if ((await lstat(path)).isSymbolicLink()) throw new Error(`primary runtime: installation path is a filesystem link: ${path}`);
    return true;
  } catch (error) {
    if (error.code === "ENOENT") return false;
    throw error;
  }
}
async function compatibleManifest(source) {
  const manifest = await readPrimaryRuntime(source);
  if (manifest.platform !== process.platform || manifest.arch !== process.arch) throw new Error("primary runtime: incompatible platform or architecture");
  return manifest;
}
async function resolvePrimaryRuntime(source) {
  const paths = workspaceDependencyPaths(source, await compatibleManifest(source));
  for (const path of payloadEntries(paths)) await stat(path);
  return paths;
}
async function installPrimaryRuntime(source, root) {
  const manifest = await compatibleManifest(source);
  await mkdir(dirname(root), { recursive: true });
  const previous = `${root}.previous`;
  const previousExists = await exists(previous);
  const rootExists = await exists(root);
  if (!rootExists && previousExists) await rename(previous, root);
  if (await exists(join(root, "runtime.json")) && JSON.stringify(await readPrimaryRuntime(root)) === JSON.stringify(manifest)) {
    const paths = workspaceDependencyPaths(root, manifest);
    for (const path of payloadEntries(paths)) await stat(path);
    return paths;
  }
  const staging = await mkdtemp(join(dirname(root), ".primary-runtime-"));
  try {
    await cp(source, staging, { recursive: true, dereference: true });
    const paths = workspaceDependencyPaths(staging, manifest);
    for (const path of payloadEntries(paths)) await stat(path);
    await rm(previous, { recursive: true, force: true });
    const replacing = await exists(root);
    if (replacing) await rename(root, previous);
    try {
      await rename(staging, root);
    } catch (error) {
      if (replacing) await rename(previous, root);
      throw error;
    }
    await rm(previous, { recursive: true, force: true });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return workspaceDependencyPaths(root, manifest);
}
function apply(ctx, config) {
  if (!isAbsolute(config.source) || config.root !== void 0 && !isAbsolute(config.root)) {
    throw new Error("workspace dependencies: source and root must be absolute paths");
  }
  let preparation;
  ctx.effect(() => async () => {
    await preparation?.catch(() => void 0);
  });
  ctx.tools.register(defineTool({
    name: "load_workspace_dependencies",
    description: "Get absolute paths to bundled Python and library directories, plus bundled Python distribution versions. Node.js and pnpm paths are included when the payload provides them. Python includes numpy, pandas, python-docx, python-pptx, openpyxl, Pillow, lxml, and XlsxWriter. Use these libraries for Office files unless the user or workspace instructions select another environment. When Node.js and pnpm paths are returned, run pnpm with that Node executable and pnpm script path. This does not change PATH or package-manager settings.",
    parameters: {},
    output: {
      schema: {
        type: "object",
        additionalProperties: false,
        properties: {
          python: { type: "string", required: true },
          node: { type: "string", description: "Absent when the payload ships no Node.js." },
          pnpm: { type: "string", description: "Absent when the payload ships no pnpm." },
          pythonPackages: { type: "string", required: true },
          nodePackages: { type: "string", description: "Absent when the payload ships no Node.js." },
          pythonDistributions: { type: "object", additionalProperties: true, required: true, description: "Bundled distribution names and versions recorded in runtime.json; excludes user-installed additions." }
        }
      },
      render: (_args, value) => [{ type: "text", text: JSON.stringify(value, void 0, 2) }]
    },
    execute: () => {
      preparation ??= (config.root === void 0 ? resolvePrimaryRuntime(config.source) : installPrimaryRuntime(config.source, config.root)).catch((error) => {
        preparation = void 0;
        throw error;
      });
      return preparation;
    },
    presentCall: () => ({ card: "generic", title: "Load workspace dependencies", kind: "read" })
  }));
}
export {
  Config,
  apply,
  inject,
  installPrimaryRuntime,
  name,
  parsePrimaryRuntime,
  readPrimaryRuntime,
  resolvePrimaryRuntime,
  workspaceDependencyPaths
};
