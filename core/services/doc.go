// Package services is the agent services a plugin reaches through core/call: what only the
// agent that embeds cwx can own, offered to plugins by reserved names and run against the
// interfaces the embedder provides. It knows nothing of tickets, hosts or the gate: the
// core's call path redeems the ticket, counts the call against the invocation's caps,
// approves it with the [Service]'s requirement, and then runs it here, telling it only
// the [Call] as the core knows it from the ticket.
//
// # Agent services
//
// Some services only the agent that embeds cwx can own: saving its session, its sub-agent
// manager, its skills folders, and bounded git metadata queries in its workspace. Each is an
// optional interface in core.Options (Sessions, Subagents, Skills, GitReviewScope; gathered
// here as [Provided]). A plugin reaches one only from inside one of its own tools, through
// `core/call` with that invocation's ticket, by a reserved name: `sessions_flush`,
// `subagents_start`, `subagents_result`, `subagents_dispose`, `skills_list`,
// `git_review_scope` ([Lookup]). Those names are served before the native table is
// consulted, so no native or extension tool can answer them; a name whose service the
// embedder left nil is refused -32002 by name ("an agent service this agent does not provide
// (its embedder sets no Options.Subagents)"); a command's ticket is refused (a service is
// served only while a tool runs).
//
//   - Every call goes through the gate with the caller's origin-scoped key, like a core tool: a
//     child's start is Required (a card, or the posture), the others are Eligible. The call
//     counts against the ticket's uses and the invocation's concurrent core/calls, and leaves
//     a receipt.
//   - The embedder is told the call as the core knows it from the ticket ([Call]: plugin,
//     tool, call id, the CallOptions' session, agent and workspace), never what the plugin says.
//   - Subagents: the child's tools are the parent's (Subagents.Tools of the call's agent)
//     narrowed by the plugin's filter {allow?, deny?} ([Narrow]); an allowed name the parent
//     lacks is [ErrWiden], refused. Persona ([MaxPersona]) and prompt are inert text. One tool
//     call starts at most [MaxChildren]; result and dispose take only the ids of its own live
//     children ([Children]); the end of the tool call disposes the children it left, and
//     waits for that ([ChildDisposeWait] each, [DisposeLeft]); a start that settles after the
//     end is disposed at once and answered cancelled.
//   - Skills: the core discovers and audits the skills under Skills.Roots (package skills);
//     [SkillsList] lists them with the candidates refused and why.
//   - GitReviewScope: the core admits only known metadata queries (package gitscope: merge
//     base, commit list, changed files, current branch), fixes the argument list with hooks,
//     paging and lazy fetch off (gitscope.Args, gitscope.Env), bounds the call by
//     gitscope.Deadline and cuts the output at gitscope.MaxOutput; a call without a workspace
//     is refused. Those refusals come before the gate ([Service.Check]), so nobody is asked
//     about a query that could not run.
//
// The JS host maps DSH's services onto these names (`src/shims/agent.ts`): `sessions.flush`,
// `subagents.getProvider('spawn')` (a fixed descriptor, fresh context), `subagents.
// startActivation({request: {parent, prompt, agentOptions: {persona, toolFilter, model}}})` with
// its `result` and `dispose()`, `skills.list()`, and an injectable `agents` that offers nothing.
// `subagents.start` (the older form) and every other method refuse by name; a git query is
// `exec.core.call('git_review_scope', {args})`, or DSH's own `execFile('git', args, …)`, which
// the plugin tier's host sends as that call (`src/shims/git.ts`; nodeshim/jshost doc.go, “Git
// review scopes”) and which never runs git in the sandbox.
package services
