// Package gitscope reads the bounded git metadata queries a review plugin may ask of the
// agent that embeds cwx: the merge base of two revisions, the commits between them and the
// files they change. A DSH plugin asks them as `execFile('git', args)`; the core accepts only
// the argument lists [Parse] recognizes, turns each into a [Query], and an embedder's
// GitReviewScope runs [Args] of it in the invocation's workspace (core/services doc.go,
// “Agent services”).
//
// What Args runs is fixed by the core, never by the plugin: hooks are pointed at the null
// device, paging, optional locks, lazy fetching of promised objects, external diff and
// text-conversion drivers are off, and the plugin's revisions are passed after checks that
// refuse an option, a revision range the query does not take, and any character outside a
// plain ref name. Output is capped at [MaxOutput] and a query has [Deadline]; the caller
// enforces both (core's git_review_scope does).
package gitscope
