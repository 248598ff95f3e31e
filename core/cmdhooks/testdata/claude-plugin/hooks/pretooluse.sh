#!/bin/sh
# PreToolUse: records the event, then denies a forced push with Claude Code's
# hookSpecificOutput (a two-line reason) and a systemMessage for the person.
input=$(cat)
printf '%s' "$input" | sh "$CLAUDE_PLUGIN_ROOT/hooks/record.sh" pre
case "$input" in
  *'git push --force'*)
    printf '%s\n' '{"systemMessage":"hookify: force pushes are blocked in this project","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Force push rewrites shared history.\nPush a new commit instead."}}'
    ;;
esac
exit 0
