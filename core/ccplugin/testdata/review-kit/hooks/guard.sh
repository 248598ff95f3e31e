# PreToolUse guard of the review-kit fixture: refuses rm -rf, and notes where it ran from.
input=$(cat)
mkdir -p "$CLAUDE_PROJECT_DIR/.review-kit"
printf 'CLAUDE_PLUGIN_ROOT=%s\n' "$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PROJECT_DIR/.review-kit/pre.env"
case "$input" in
*'rm -rf'*)
	echo "review-kit refuses rm -rf (guard at $CLAUDE_PLUGIN_ROOT)" >&2
	exit 2
	;;
esac
exit 0
