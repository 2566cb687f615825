// Package dispositions is the packed form of an agent's disposition counts
// in the dialer rollup: a JSON object of counts keyed by the hex of each
// code. Hex keys need no quoting in a JSON path (SQLite's json_set, and
// PostgreSQL's jsonb path arrays), so the rollup adds to one code in SQL;
// and the report reads the counts of every code from one row per agent.
package dispositions

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Empty is the packed form of no dispositions.
const Empty = "{}"

// Key is code's key in the packed object.
func Key(code string) string { return hex.EncodeToString([]byte(code)) }

// Pack is counts' packed form, its keys in order.
func Pack(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for code, n := range counts {
		if n != 0 {
			keys = append(keys, code)
		}
	}
	if len(keys) == 0 {
		return Empty
	}
	slices.SortFunc(keys, func(a, b string) int { return strings.Compare(Key(a), Key(b)) })
	var b strings.Builder
	b.WriteByte('{')
	for i, code := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + Key(code) + `":` + strconv.Itoa(counts[code]))
	}
	b.WriteByte('}')
	return b.String()
}

// Reader unpacks objects, remembering the codes of the keys it has seen:
// a report reads the same few codes from hundreds of rows.
type Reader struct{ codes map[string]string }

// Each calls fn with each code and count of the packed object s, as the
// databases write it (with or without spaces). Keys are hex alone, so
// the object holds no escapes.
func (r *Reader) Each(s string, fn func(code string, n int)) error {
	p := parser{s: s}
	if !p.eat('{') {
		return p.fail("an object")
	}
	if p.eat('}') {
		return p.end()
	}
	for {
		key, ok := p.key()
		if !ok || !p.eat(':') {
			return p.fail("a key")
		}
		n, ok := p.int()
		if !ok {
			return p.fail("a count")
		}
		code, err := r.code(key)
		if err != nil {
			return err
		}
		fn(code, n)
		if p.eat('}') {
			return p.end()
		}
		if !p.eat(',') {
			return p.fail("',' or '}'")
		}
	}
}

func (r *Reader) code(key string) (string, error) {
	if code, ok := r.codes[key]; ok {
		return code, nil
	}
	b, err := hex.DecodeString(key)
	if err != nil {
		return "", fmt.Errorf("disposition key %q: %w", key, err)
	}
	if r.codes == nil {
		r.codes = map[string]string{}
	}
	r.codes[key] = string(b)
	return string(b), nil
}

type parser struct {
	s string
	i int
}

func (p *parser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *parser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) key() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	end := strings.IndexByte(p.s[p.i:], '"')
	if end < 0 {
		return "", false
	}
	key := p.s[p.i : p.i+end]
	p.i += end + 1
	return key, true
}

func (p *parser) int() (int, bool) {
	p.space()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n, err := strconv.Atoi(p.s[start:p.i])
	return n, err == nil
}

func (p *parser) end() error {
	p.space()
	if p.i != len(p.s) {
		return p.fail("the end")
	}
	return nil
}

func (p *parser) fail(want string) error {
	return fmt.Errorf("packed dispositions %q: want %s at %d", p.s, want, p.i)
}
