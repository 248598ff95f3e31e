package protocol

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cwx-dev/cwx/shared/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }

// jsVerdict is one line of `nodeshim/jshost/scripts/corpus.mjs --json`.
type jsVerdict struct {
	File     string `json:"file"`
	Tier     Tier   `json:"tier"`
	Valid    bool   `json:"valid"`
	Reason   string `json:"reason"`
	ReasonOK bool   `json:"reasonOk"`
}

// TestCorpusAgreesWithJS runs the JS host's validator over the corpus on Node and on Bun
// and requires the same verdict as the Go parser for every file on every tier.
func TestCorpusAgreesWithJS(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	goVerdicts := map[[2]string]Verdict{}
	for _, f := range loadCorpus(t) {
		for _, tier := range f.c.Tiers() {
			goVerdicts[[2]string{f.name, string(tier)}] = f.c.Check(tier)
		}
	}
	script := filepath.Join("..", "..", "nodeshim", "jshost", "scripts", "corpus.mjs")
	for _, want := range testenv.Runtimes() {
		t.Run(want.Name, func(t *testing.T) {
			rt := want.Get(t)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, rt.Path, append([]string{script, "--json"}, paths...)...).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", rt.Name, script, err)
			}
			var js []jsVerdict
			if err := json.Unmarshal(out, &js); err != nil {
				t.Fatalf("decode %s output: %v", script, err)
			}
			if len(js) != len(goVerdicts) {
				t.Fatalf("JS gave %d verdicts, Go %d", len(js), len(goVerdicts))
			}
			for _, v := range js {
				g, ok := goVerdicts[[2]string{v.File, string(v.Tier)}]
				switch {
				case !ok:
					t.Errorf("%s on %s: no Go verdict", v.File, v.Tier)
				case g.Accepted != v.Valid:
					t.Errorf("%s on %s: Go accepted=%v (%s), JS valid=%v (%s)", v.File, v.Tier, g.Accepted, g.Reason, v.Valid, v.Reason)
				case !v.ReasonOK:
					t.Errorf("%s on %s: the JS reason %q lacks the case's error substring", v.File, v.Tier, v.Reason)
				}
			}
		})
	}
}
