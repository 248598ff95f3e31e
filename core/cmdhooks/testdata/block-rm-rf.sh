#!/bin/sh
# A PreToolUse hook in Claude Code's format, written without jq: it reads the event JSON on
# stdin and blocks Bash commands that run `rm -rf` (or `rm -fr`), with the reason on stderr and
# exit status 2. Everything else passes with exit 0.
input=$(cat)
case "$input" in
  *'"tool_name":"Bash"'*) ;;
  *) exit 0 ;;
esac
command=$(printf '%s' "$input" | sed -n 's/.*"tool_input":{[^}]*"command":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
case "$command" in
  *'rm -rf'*|*'rm -fr'*|*'rm -r -f'*)
    echo "Blocked by block-rm-rf.sh: recursive forced removal is not allowed ($command)" >&2
    exit 2 ;;
esac
exit 0
