//go:build !linux

package seccomptest

import "errors"

func probe(string) (Report, error) {
	return Report{}, errors.New("the seccomp probe runs on Linux only")
}
