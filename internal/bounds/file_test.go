package bounds

import (
	"errors"
	"testing"

	"github.com/lendingpipe/svc/internal/apperr"
)

func TestFileSize(t *testing.T) {
	for _, tc := range []struct {
		size, limit int64
		code, msg   string
	}{
		{10, 10, "", ""},
		{10, 0, "", ""},
		{0, 10, apperr.Validation, "is empty; send one"},
		{11, 10, apperr.PayloadTooLarge, "the file is 11 bytes; a file may be at most 10 bytes"},
	} {
		err := FileSize(tc.size, tc.limit, "; send one", "a file may be at most %d bytes")
		if tc.code == "" {
			if err != nil {
				t.Errorf("FileSize(%d, %d) = %v, want nil", tc.size, tc.limit, err)
			}
			continue
		}
		var e *apperr.Error
		if !errors.As(err, &e) || e.Code != tc.code || e.Message != tc.msg {
			t.Errorf("FileSize(%d, %d) = %v, want %s: %s", tc.size, tc.limit, err, tc.code, tc.msg)
		}
	}
}
