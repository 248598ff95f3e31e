// Package dshbundle reads a DeepSeek Harness (DSH) bundle package and resolves its
// composition: what `cwx plugin import dsh` previews and installs.
//
// # The bundle
//
// A bundle is an npm package whose package.json names its patch layer in dsh.bundle.patch:
// one path, or a list of paths applied in order (each relative to the package and inside
// it; at most [MaxPatchFiles]). Several bundle packages (at most [MaxBundles]) are layered in
// the order given, as a DSH profile layers the bundles of dsh.profile.bundles (dsh-headless
// over dsh-base): their patch lists are applied as one list, as DSH flattens them. A patch file is a Cordis patch list in DSH's dialect: one YAML
// document holding a list of mappings, read by [ParsePatches] (go.yaml.in/yaml/v3's node
// tree, converted strictly: `!!js` scalars become [JSExpr], every number a float64 as
// JavaScript holds it; another tag, a merge key, a duplicate key, a number JSON cannot hold,
// a second document, nesting over [MaxDepth] or more than [MaxNodes] values once aliases are
// expanded is a [*ParseError]; at most [MaxPatchBytes] a file).
//
// # The composition
//
// The patches are applied to an empty entry list with the semantics of DSH's include
// (applyEntryPatches in vendor/include, as DSH's profile composer calls it, read at
// toninfo/deepseek-harness 611615650f1bd789dc83cedc428acc17934614d3, DSH 0.1.0-rc.8): rows
// with an id are indexed, the rows of groups included; an `insert` appends its rows at the
// top level, or with an `id` to that group's rows, and indexes them so a later patch can
// target them; any other patch needs an `id` and sets each of its keys but `id` and `name`
// on that row (the override), and is skipped when its `name` is not the row's. A patch that
// matches nothing is a [Warning], as DSH warns and goes on; a config replaced by an override
// is not indexed again, as in DSH. Disabled ancestry is the loader's: a group itself always
// runs, and a row is disabled when it or any group above it is; a `!!js` disabled is decided
// by DSH at activation, so cwx shows it and installs the row's plugin (which still runs only
// once reviewed, trusted and enabled).
//
// Each row that names a plugin gets a [Source]: the package inside the first bundle that
// carries it (node_modules/<name>; [SourceBundled], hashed as core/plugins hashes a closure),
// else the cwx plugin of that id ([SourceInstalled]), else [SourceMissing]; a subpath, a file,
// a Cordis loader module or a bundle package itself is [SourceUnsupported] (core/plugins
// refuses to install a bundle package as a plugin and points here). [Composition.SHA256]
// hashes the resolved rows (path, id, name, group, disabled, config with its `!!js`
// expressions as written, other keys, source kind, package and closure), not the YAML: a
// comment changes nothing, and a changed byte of any bundled plugin changes the hash.
//
// # Import
//
// [Preview] resolves folders or .tgz files (unpacked by [plugins.Store.Unpack], with every
// refusal of an install) and records nothing. [Install] resolves it again and refuses with
// [ErrChanged], installing nothing, unless the composition hashes to the previewed hash;
// then it installs the package of each bundled row that is not disabled through
// [plugins.Store.InstallWith], pinned to the closure the preview hashed; a package the store
// refuses (dependencies it does not bundle, install scripts) is reported refused by name and
// the others go on. So every plugin is
// recorded disabled and untrusted, and an insert or override that brings other bytes under an
// installed id makes a new version that runs only once reviewed again: a bundle never replaces
// a reviewed plugin's code without review. A row whose plugin is installed and not carried by
// the bundle keeps that plugin's code. cwx runs one instance of a plugin, configured in
// config.toml: a row's config is shown, not written, and a row's inject, intercept or isolate
// is not applied (each is noted on the row).
package dshbundle
