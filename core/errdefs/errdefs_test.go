package errdefs

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/cwx-dev/cwx/shared/frame"
)

func TestKinds(t *testing.T) {
	cause := io.ErrUnexpectedEOF
	testCases := []struct {
		name     string
		err      error
		text     string
		is, isNt []error
	}{
		{"busy is a case of not available", ErrBusy, "extension host is busy", []error{ErrBusy, ErrNotAvailable}, []error{ErrHostExited}},
		{"host exited is a case of not available", ErrHostExited, "extension host exited", []error{ErrHostExited, ErrNotAvailable}, []error{ErrBusy}},
		{"too large is the framing sentinel", &frame.SizeError{Size: 2, Limit: 1}, "frame too large: payload of 2 bytes exceeds the 1 byte limit", []error{ErrTooLarge}, nil},
		{"New keeps its own text", New(ErrViolation, "invalid protocol message"), "invalid protocol message", []error{ErrViolation}, []error{ErrNotAllowed}},
		{"Newf keeps a %w cause", Newf(ErrTooLarge, "message too large: %w", cause), "message too large: unexpected EOF", []error{ErrTooLarge, cause}, []error{ErrNotAvailable}},
		{"Newf without a cause", Newf(ErrTooLarge, "%d bytes", 3), "3 bytes", []error{ErrTooLarge}, []error{cause}},
		{"WithText hides the text, keeps the causes", WithText("the shim went away", ErrHostExited, cause, nil), "the shim went away", []error{ErrHostExited, ErrNotAvailable, cause}, []error{ErrViolation}},
		{"wrapping keeps the kind", fmt.Errorf("tool %q: %w", "x", ErrBusy), `tool "x": extension host is busy`, []error{ErrBusy, ErrNotAvailable}, []error{ErrTimeout}},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.text {
				t.Errorf("Error() = %q; want %q", got, tc.text)
			}
			for _, k := range tc.is {
				if !errors.Is(tc.err, k) {
					t.Errorf("errors.Is(%v, %v) = false; want true", tc.err, k)
				}
			}
			for _, k := range tc.isNt {
				if errors.Is(tc.err, k) {
					t.Errorf("errors.Is(%v, %v) = true; want false", tc.err, k)
				}
			}
		})
	}
}

func TestKindsAreDistinct(t *testing.T) {
	kinds := []error{ErrNotAvailable, ErrTimeout, ErrCancelled, ErrInvalidInput, ErrDenied,
		ErrExecutionFailed, ErrViolation, ErrNotAllowed, ErrTooLarge, ErrRefused}
	for i, a := range kinds {
		for j, b := range kinds {
			if i != j && errors.Is(a, b) {
				t.Errorf("errors.Is(%v, %v) = true; top-level kinds must not match each other", a, b)
			}
		}
	}
}
