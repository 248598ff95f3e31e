#!/bin/sh
# A SessionStart hook: plain stdout is the session's context; with .stop in the project it
# stops the session (continue false, a stopReason of two lines).
sh "$(dirname "$0")/record.sh" start
if [ -e "$CLAUDE_PROJECT_DIR/.stop" ]; then
  printf '%s\n' '{"continue": false, "stopReason": "The project is frozen.\nAsk the release manager.", "systemMessage": "session refused"}'
  exit 0
fi
printf 'Project rule: run make test before you commit.\nBranch: main\n'
