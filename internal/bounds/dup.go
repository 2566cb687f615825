package bounds

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/lendingpipe/svc/internal/apperr"
)

// maxDupDepth is encoding/json's own nesting limit: deeper text is refused
// by every decoder the service uses, so scanning it is wasted work.
const maxDupDepth = 10000

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
	return &apperr.Error{Code: apperr.BadRequest, Field: apperr.Cut(path),
		Message: fmt.Sprintf("the JSON object member %s appears more than once", apperr.Quote(path))}
}

// frame is one open object or array while scanning. It holds only its own
// path segment (key or index): the full path is joined from the stack when
// a duplicate is found, so memory stays linear in the input however deep.
type frame struct {
	object  bool
	keys    map[string]bool
	wantKey bool   // objects: the next token is a member name
	key     string // objects: the member whose value comes next
	items   int    // arrays: values seen
}

type dupScanner struct {
	dec   *json.Decoder
	stack []frame
}

func (d *dupScanner) top() *frame {
	if len(d.stack) == 0 {
		return nil
	}
	return &d.stack[len(d.stack)-1]
}

// path joins the stack's segments: the path of the value about to start
// inside the top frame (or of the member just named there).
func (d *dupScanner) path() string {
	var b strings.Builder
	for i := range d.stack {
		f := &d.stack[i]
		switch {
		case f.object && b.Len() == 0:
			b.WriteString(f.key)
		case f.object:
			b.WriteByte('.')
			b.WriteString(f.key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(f.items))
			b.WriteByte(']')
		}
	}
	return b.String()
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
					return d.path()
				}
				t.keys[k], t.key, t.wantKey = true, k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(d.stack) >= maxDupDepth {
				return "" // the decoder refuses this depth itself
			}
			d.stack = append(d.stack, frame{object: tok == json.Delim('{'), wantKey: tok == json.Delim('{')})
			if t := d.top(); t.object {
				t.keys = map[string]bool{}
			}
		case json.Delim('}'), json.Delim(']'):
			d.stack = d.stack[:len(d.stack)-1]
			d.valueDone()
		default:
			d.valueDone()
		}
	}
}
