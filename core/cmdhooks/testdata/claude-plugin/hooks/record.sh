#!/bin/sh
# Keeps the event JSON and the environment a hook saw, for the tests to read:
# $CLAUDE_PROJECT_DIR/.hooklog/<name>.json and <name>.env.
mkdir -p "$CLAUDE_PROJECT_DIR/.hooklog"
cat > "$CLAUDE_PROJECT_DIR/.hooklog/$1.json"
{
  echo "CLAUDE_PLUGIN_ROOT=$CLAUDE_PLUGIN_ROOT"
  echo "CLAUDE_PROJECT_DIR=$CLAUDE_PROJECT_DIR"
  echo "CLAUDE_ENV_FILE=${CLAUDE_ENV_FILE-unset}"
  echo "PWD=$(pwd)"
} > "$CLAUDE_PROJECT_DIR/.hooklog/$1.env"
