package bounds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/lendingpipe/svc/ent/apperr"
)

// DuplicateMember returns the path ("a.b[2].c") of the first member name
// that an object in the JSON text data repeats, or "" when none does (or
// data is not JSON, which its decoder reports). Decoders keep the last of
// duplicates silently, and not all of them: a repeated name is ambiguous.
func DuplicateMember(data []byte) string {
	d := dupScanner{dec: json.NewDecoder(bytes.NewReader(data))}
	return d.scan()
}

// DuplicateError is the 400 for a repeated member name at path.
func DuplicateError(path string) error {
	return &apperr.Error{Code: apperr.BadRequest, Field: path,
		Message: fmt.Sprintf("the JSON object member %q appears more than once", path)}
}

// frame is one open object or array while scanning.
type frame struct {
	object  bool
	path    string
	keys    map[string]bool
	wantKey bool   // objects: the next token is a member name
	key     string // objects: the member whose value comes next
	items   int    // arrays: values seen
}

type dupScanner struct {
	dec   *json.Decoder
	stack []*frame
}

func (d *dupScanner) top() *frame {
	if len(d.stack) == 0 {
		return nil
	}
	return d.stack[len(d.stack)-1]
}

// childPath is the path of the value about to start inside the top frame.
func (d *dupScanner) childPath() string {
	t := d.top()
	switch {
	case t == nil:
		return ""
	case t.object && t.path == "":
		return t.key
	case t.object:
		return t.path + "." + t.key
	}
	return t.path + "[" + strconv.Itoa(t.items) + "]"
}

// valueDone records that a value of the top frame has ended.
func (d *dupScanner) valueDone() {
	if t := d.top(); t != nil {
		if t.object {
			t.wantKey = true
		} else {
			t.items++
		}
	}
}

func (d *dupScanner) scan() string {
	for {
		tok, err := d.dec.Token()
		if err != nil {
			return ""
		}
		if t := d.top(); t != nil && t.object && t.wantKey {
			if k, ok := tok.(string); ok {
				if t.keys[k] {
					t.key = k
					return d.childPath()
				}
				t.keys[k], t.key, t.wantKey = true, k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			d.stack = append(d.stack, &frame{object: true, path: d.childPath(), keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			d.stack = append(d.stack, &frame{path: d.childPath()})
		case json.Delim('}'), json.Delim(']'):
			d.stack = d.stack[:len(d.stack)-1]
			d.valueDone()
		default:
			d.valueDone()
		}
	}
}
