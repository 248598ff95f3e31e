package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Errors Read returns for a file it refuses; each *Error matches one of them.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
	ErrSymlink    = errors.New("a symlink")
)

// Error names the refused file and why.
type Error struct {
	Path   string
	Kind   error // ErrNotRegular, ErrTooLarge or ErrSymlink
	Detail string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%s is %v", e.Path, e.Kind)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrTooLarge) and the others work.
func (e *Error) Unwrap() error { return e.Kind }

// Read returns the content of the regular file at path, at most limit bytes. With follow
// unset a symlink at path (its last component) is refused. A missing file is the open's
// error, matching fs.ErrNotExist; a FIFO, a device, a socket or a folder is ErrNotRegular,
// a file over limit ErrTooLarge.
func Read(path string, limit int64, follow bool) ([]byte, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK // a FIFO opens at once instead of waiting for a writer
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if !follow && errors.Is(err, syscall.ELOOP) {
			return nil, &Error{Path: path, Kind: ErrSymlink, Detail: "cwx does not follow it"}
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{Path: path, Kind: ErrNotRegular, Detail: fi.Mode().Type().String()}
	}
	if fi.Size() > limit {
		return nil, &Error{Path: path, Kind: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, the limit is %d", fi.Size(), limit)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &Error{Path: path, Kind: ErrTooLarge, Detail: fmt.Sprintf("over %d bytes", limit)}
	}
	return data, nil
}
