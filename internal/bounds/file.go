package bounds

import (
	"fmt"

	"github.com/lendingpipe/svc/internal/apperr"
)

// FileSize is the size rule every upload obeys: an empty file is refused
// as invalid, one over limit as too large (a limit of 0 or less takes any
// size). The messages are the upload's own: emptyHint follows "is empty"
// to say what the file should hold, and atMost names the limit with one
// %d verb for it ("a document may be at most %d bytes").
func FileSize(size, limit int64, emptyHint, atMost string) error {
	if size <= 0 {
		return apperr.Invalid("file", "is empty%s", emptyHint)
	}
	if limit > 0 && size > limit {
		return apperr.New(apperr.PayloadTooLarge, "the file is %d bytes; %s", size, fmt.Sprintf(atMost, limit))
	}
	return nil
}
