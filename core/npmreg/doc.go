// Package npmreg installs by name: it reads an npm registry's package documents and
// tarballs, in Go and through core/egress, without an npm binary.
//
// # The registry
//
// [Choose] picks the registry URL: config.toml's [install] npm_registry, else the
// top-level registry= line of the user's npm configuration file (~/.npmrc, or the file
// NPM_CONFIG_USERCONFIG names; a line that uses ${…} is refused rather than expanded),
// else [DefaultRegistry], the default npm documents. Scoped registries (@scope:registry=)
// and credentials are not read.
//
// [Open] builds two core/egress clients on the registry's origin: one for package documents
// (capped at [MaxDocumentBytes]) and one for tarballs ([MaxTarballBytes]), both with a
// [Timeout]. Every hop must stay on the registry's own origin (a redirect elsewhere is
// refused at that hop, before it is asked), a tarball URL on another origin is refused
// before it is fetched, and an https registry is never redirected to http. The private
// address ranges stay refused, except that a registry the user configured as a literal
// address or as localhost (a local or test registry) may reach its own address; npm's
// default never may.
//
// # Resolution
//
// [ParseSpec] reads npm:<name>[@<version|range|tag>] (the query defaults to latest; names
// follow npm's rules for new packages, scoped ones as @scope/name). The document is asked
// for at <registry>/<name>, a scoped name's slash encoded as %2f, preferring the
// abbreviated form. [ParseDocument] checks the name, that each version is described as
// itself and that every dist-tag names a published version. [Document.Resolve] picks as
// npm does: an exact published version; a dist-tag; "latest" without a tag is the highest
// release; a range (github.com/Masterminds/semver/v3) is the latest tag when it satisfies
// it, else the highest satisfying version that is not deprecated, else the highest
// deprecated one, prereleases matching only a range that names one.
//
// # Integrity
//
// [Registry.Download] hashes the tarball while writing it and fails unless its sha512
// equals the version's dist.integrity ([ParseIntegrity]: a sha512 member is required; a
// sha1 shasum alone is not a pin). The caller unpacks nothing before Download returned nil:
// core/cli writes the bytes to a private file and passes it to the store's install, the same
// path a local tarball takes.
package npmreg
