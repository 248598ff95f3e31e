#!/bin/sh
# A SessionStart hook whose context is for the model only (suppressOutput).
cat > /dev/null
printf '%s\n' '{"suppressOutput": true, "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Token budget: 4 calls."}}'
