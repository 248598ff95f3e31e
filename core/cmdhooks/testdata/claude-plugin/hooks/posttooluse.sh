#!/bin/sh
# PostToolUse: records the event, then flags a result that shows a secret, reading the
# result where Claude Code puts it (.tool_response.file.content for Read).
input=$(cat)
printf '%s' "$input" | sh "$CLAUDE_PLUGIN_ROOT/hooks/record.sh" post
case "$input" in
  *'"content":"API_KEY='*)
    printf '%s\n' '{"decision":"block","reason":"The file holds an API key; do not repeat it.","systemMessage":"hookify: a secret was read"}'
    ;;
esac
exit 0
