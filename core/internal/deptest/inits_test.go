package deptest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cwx-dev/cwx/shared/testenv"
)

// maxOwnInitBytes bounds what the package initialisation of cwx's own packages allocates
// in every cwx process (the core, each shim, each keeper, each one-shot): a pattern is
// compiled on first use (core/internal/lazyre), a table built when first read. Measured:
// 29 KiB, where the regexps compiled at init took 1.0 MB (BENCHMARKS.md, “At process
// start”).
const maxOwnInitBytes = 64 << 10

// TestInitAllocations runs `cwx version` under GODEBUG=inittrace=1 and sums the bytes the
// inits of the module's packages allocate; over maxOwnInitBytes it names the largest.
func TestInitAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cwx")
	}
	bin := testenv.BuildCWX(t, "")
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cwx version: %v\n%s", err, stderr.String())
	}
	type pkgInit struct {
		pkg   string
		bytes int
	}
	var own []pkgInit
	total, lines := 0, 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/x/y @1.2 ms, 0.01 ms clock, 1234 bytes, 5 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		lines++
		if !strings.HasPrefix(f[1], "github.com/cwx-dev/cwx") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		own = append(own, pkgInit{f[1], n})
		total += n
	}
	if lines == 0 {
		t.Fatalf("no inittrace lines from cwx version:\n%s", stderr.String())
	}
	t.Logf("cwx's own package inits allocate %d bytes in %d packages", total, len(own))
	if total > maxOwnInitBytes {
		largest := pkgInit{}
		for _, p := range own {
			if p.bytes > largest.bytes {
				largest = p
			}
		}
		t.Fatalf("cwx's own package inits allocate %d bytes, over %d; the largest is %s (%d bytes): compile its patterns with lazyre.New, build its tables on first use",
			total, maxOwnInitBytes, largest.pkg, largest.bytes)
	}
}
