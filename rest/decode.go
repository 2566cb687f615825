package rest

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/lendingpipe/svc/internal/reqbody"
)

// readObject reads the body as one JSON object of raw members. Anything else
// (malformed JSON, another type, trailing data) is 400 BAD_REQUEST.
func readObject(r *http.Request) (map[string]json.RawMessage, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err // *http.MaxBytesError becomes 413 in errorHandler
	}
	return reqbody.ParseObject(body)
}
