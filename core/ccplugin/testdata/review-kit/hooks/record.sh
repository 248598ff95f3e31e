# PostToolUse hook of the review-kit fixture: keeps the event and adds a context line.
mkdir -p "$CLAUDE_PROJECT_DIR/.review-kit"
cat > "$CLAUDE_PROJECT_DIR/.review-kit/post.json"
printf '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"review-kit saw the command"}}'
