package nodeshim

import (
	"bufio"
	"io"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// maxLogLine bounds one logged line; longer lines are logged in pieces.
const maxLogLine = 4 << 10

// logStderr copies the runtime's stderr into tail and logs each line as plain text. Lines
// are never interpreted: go-plugin parses the shim's own stderr as hclog JSON, so runtime
// text is re-encoded as the message of a shim log entry.
func logStderr(log hclog.Logger, r io.ReadCloser, tail io.Writer) {
	defer r.Close()
	br := bufio.NewReaderSize(r, maxLogLine)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			_, _ = tail.Write(line)
			log.Info(strings.TrimRight(string(line), "\r\n"))
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}
