package plugins

import (
	"errors"
	"strings"
)

// Why a plugin's record keeps it from running (Store.HeldBack).
const (
	HeldDisabled   = "disabled"
	HeldNotTrusted = "not trusted"
	HeldReview     = "needs review"
	HeldDevEnded   = "dev session ended"
)

// HeldBack says why record r keeps its plugin from running: one of the Held* states and
// the same as a clause ("which is disabled and not trusted"), or "" and "" when it may run
// (enabled, with a receipt that holds). A missing staged copy is VerifyClosure's to report.
func (s *Store) HeldBack(r *Record) (state, why string) {
	err := s.CheckReceipt(r)
	var re *ReceiptError
	errors.As(err, &re)
	switch {
	case err == nil && r.Enabled:
		return "", ""
	case err == nil:
		return HeldDisabled, "which is disabled"
	case r.Trust != nil && r.Trust.IsDev() && errors.Is(err, ErrNotTrusted):
		why := "whose dev session ended"
		if re != nil && re.Detail != "" {
			why += " (" + strings.TrimPrefix(re.Detail, "its dev session ") + ")"
		}
		return HeldDevEnded, why
	case errors.Is(err, ErrNotTrusted) && !r.Enabled:
		return HeldNotTrusted, "which is disabled and not trusted"
	case errors.Is(err, ErrNotTrusted):
		return HeldNotTrusted, "which is not trusted"
	}
	return HeldReview, "which needs a review: " + err.Error()
}
