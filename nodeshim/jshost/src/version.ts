// Host version and the built-in module table reported in host/hello. The build computes the
// table from the modules it bundles into dist/builtin (the digests of dist/builtin-modules.json),
// and the core pins the same table (ARCHITECTURE.md, “Builtin modules”).
import type { ModuleDigest } from './protocol.generated.ts';

export const HOST_VERSION = '0.1.0';
declare const __CWX_BUILTIN_MODULES__: ModuleDigest[] | undefined;
// The build defines the table from the modules it bundled into dist/builtin (sorted by id).
export const BUILTIN_MODULES: ModuleDigest[] =
  typeof __CWX_BUILTIN_MODULES__ === 'undefined' ? [] : __CWX_BUILTIN_MODULES__;
