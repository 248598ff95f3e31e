// The one way the host imports a module by specifier at run time: a plugin's entry (activate.ts)
// and the lockdown's probes (lockdown.ts). It is the runtime's own import() unless the host was
// started from a Node startup snapshot (snapshot.ts): code deserialized from a snapshot has no
// dynamic-import callback (`ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING`), so snapshot.ts sets an
// importer compiled after deserialization through node:vm with the main context's default
// loader, which keeps the module hooks, top-level await and errors of a plain import().
let importer: (specifier: string) => Promise<unknown> = (specifier) => import(specifier);

/** importModule imports specifier with the host's importer. */
export function importModule(specifier: string): Promise<unknown> {
  return importer(specifier);
}

/** setImporter replaces the importer; snapshot.ts calls it once, before the host starts. */
export function setImporter(f: (specifier: string) => Promise<unknown>): void {
  importer = f;
}
