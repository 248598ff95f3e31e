#!/bin/sh
# Keeps the event JSON a hook saw: $CLAUDE_PROJECT_DIR/.hooklog/<name>.json.
mkdir -p "$CLAUDE_PROJECT_DIR/.hooklog"
cat > "$CLAUDE_PROJECT_DIR/.hooklog/$1.json"
