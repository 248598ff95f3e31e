package ccplugin

import "github.com/cwx-dev/cwx/core/internal/lazyre"

// fetchRE finds what fetches code when it runs: a package runner (npx, bunx, pnpm dlx,
// yarn dlx, uvx, pipx run), an install (pip, npm, uv pip), a @latest, or a download piped
// to a shell.
var fetchRE = lazyre.New(`(?:^|[\s;&|(])(npx|bunx|uvx|pnpm\s+dlx|yarn\s+dlx|pipx\s+run|pip3?\s+install|uv\s+pip\s+install|npm\s+(?:install|i|exec)|go\s+run\s+\S+@)(?:\s|$)|@latest\b|(?:curl|wget)\b[^|]*\|\s*(?:ba|z)?sh\b`)

// FetchesAtRunTime returns what in command fetches code when it runs ("" when nothing
// does): such code is not in the plugin's closure, so trusting the plugin does not cover it.
func FetchesAtRunTime(command string) string {
	m := fetchRE().FindStringSubmatch(command)
	switch {
	case m == nil:
		return ""
	case m[1] != "":
		return m[1]
	}
	return m[0]
}
