#!/bin/sh
# A PreToolUse guard whose reason spans lines (exit 2, stderr as the reason).
input=$(cat)
case "$input" in
*"rm -rf"*)
  printf 'Blocked: rm -rf is not allowed here.\n  - use trash-put instead\n  - or ask a maintainer\n' >&2
  exit 2 ;;
esac
exit 0
