//go:build !linux

package nodeshim

import "errors"

func dropAndExec([]string) error {
	return errors.New("the sandbox's privilege drop runs on Linux only")
}
