package leadcsv

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// ErrNoHeader is a file without a header line: an empty file, or one of
// blank lines.
var ErrNoHeader = errors.New("the file has no header line")

// Bounds on a file's shape, so that one crafted file cannot make a reader
// hold more than a few MiB: no lead row comes near them.
const (
	// MaxColumns is the most columns a header may have.
	MaxColumns = 1000
	// MaxRecordBytes is the largest record (a line, or the lines of a
	// record with quoted line breaks), as large as a POST /v1/leads body.
	MaxRecordBytes = 1 << 20
)

// ErrRecordTooLarge is a record over MaxRecordBytes: the file is not a
// lead list, and is not read further.
var ErrRecordTooLarge = fmt.Errorf("a row is longer than %d bytes", MaxRecordBytes)

// MappingError is a mapping that does not fit the file or the lead: it
// names a field a lead does not have, or a header the file does not have.
type MappingError struct{ Reason string }

func (e *MappingError) Error() string { return e.Reason }

// Columns says which lead field each column of a file fills.
type Columns struct {
	// fields[i] is the field column i fills, "" for a column no field reads.
	fields []string
}

// Len is how many fields the columns fill.
func (c Columns) Len() int {
	n := 0
	for _, f := range c.fields {
		if f != "" {
			n++
		}
	}
	return n
}

// CheckMapping refuses a mapping naming a field that is not a lead field
// a file can fill, or giving a field an empty header.
func CheckMapping(mapping map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(mapping)) {
		if _, ok := fieldByName(name); !ok {
			return &MappingError{Reason: fmt.Sprintf("%q is not a lead field an import reads; the fields are %s", name, fieldNames())}
		}
		if normHeader(mapping[name]) == "" {
			return &MappingError{Reason: fmt.Sprintf("the header for %q is empty", name)}
		}
	}
	return nil
}

// Match finds the column of each lead field in header: the mapping's
// header first (compared without case or extra spaces), then the field's
// own name and aliases for the fields the mapping leaves out. A column
// fills at most one field; headers naming no field are ignored.
func Match(header []string, mapping map[string]string) (Columns, error) {
	if err := CheckMapping(mapping); err != nil {
		return Columns{}, err
	}
	norm := make([]string, len(header))
	for i, h := range header {
		norm[i] = normHeader(h)
	}
	cols := Columns{fields: make([]string, len(header))}
	for _, name := range slices.Sorted(maps.Keys(mapping)) {
		i := slices.Index(norm, normHeader(mapping[name]))
		if i < 0 {
			return Columns{}, &MappingError{Reason: fmt.Sprintf("the file has no header %q (mapped to %s)", mapping[name], name)}
		}
		if cols.fields[i] != "" {
			return Columns{}, &MappingError{Reason: fmt.Sprintf("the header %q is mapped to both %s and %s", mapping[name], cols.fields[i], name)}
		}
		cols.fields[i] = name
	}
	for _, f := range Fields {
		if _, mapped := mapping[f.Name]; mapped {
			continue
		}
		for _, alias := range append([]string{normHeader(f.Name)}, f.Aliases...) {
			if i := free(norm, cols.fields, alias); i >= 0 {
				cols.fields[i] = f.Name
				break
			}
		}
	}
	return cols, nil
}

// free is the first column named h that fills no field yet, or -1.
func free(norm, fields []string, h string) int {
	for i, n := range norm {
		if n == h && fields[i] == "" {
			return i
		}
	}
	return -1
}

func fieldNames() string {
	names := make([]string, len(Fields))
	for i, f := range Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// Record is one record of the file after the header: its line number (the
// header is line 1; a record spanning lines has its first line's) and
// either the cells of the fields it fills or why it could not be read.
type Record struct {
	Line int
	// Cells holds the trimmed, non-empty cells by lead field name.
	Cells map[string]string
	// Err is set for a record that is not CSV or has another number of
	// cells than the header.
	Err *RowError
}

// Reader streams a file's records.
type Reader struct {
	csv    *csv.Reader
	in     *boundedReader
	header []string
	cols   Columns
}

// boundedReader fails once more than MaxRecordBytes (and the readers'
// buffers) have been read since the last record ended: encoding/csv holds
// a record whole, however long.
type boundedReader struct {
	r    io.Reader
	read int64 // bytes read so far
	mark int64 // bytes read when the last record ended
	// failed is the first error r answered but EOF: the buffers over
	// this reader may turn it into an early end of the file.
	failed error
}

// slack covers what the buffers over this reader have read ahead.
const slack = 128 << 10

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.read-b.mark > MaxRecordBytes+slack {
		return 0, ErrRecordTooLarge
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) && b.failed == nil {
		b.failed = err
	}
	return n, err
}

// ended marks a record's end.
func (b *boundedReader) ended() { b.mark = b.read }

// bom is the UTF-8 byte-order mark spreadsheets write first.
var bom = []byte{0xEF, 0xBB, 0xBF}

// NewReader reads the header of r and matches it to lead fields through
// mapping (see Match). ErrNoHeader when the file has none.
func NewReader(r io.Reader, mapping map[string]string) (*Reader, error) {
	in := &boundedReader{r: r}
	br := bufio.NewReaderSize(in, 64<<10)
	if head, err := br.Peek(len(bom)); err == nil && bytes.Equal(head, bom) {
		_, _ = br.Discard(len(bom))
	}
	c := csv.NewReader(br)
	c.FieldsPerRecord = -1 // a ragged row is that row's error, not the file's
	// Records are turned into cells before the next is read, and the
	// cells are strings of their own: the slice can be reused.
	c.ReuseRecord = true
	header, err := c.Read()
	in.ended()
	if in.failed != nil {
		return nil, fmt.Errorf("reading the header line: %w", in.failed)
	}
	if errors.Is(err, io.EOF) {
		return nil, ErrNoHeader
	}
	if errors.Is(err, ErrRecordTooLarge) {
		return nil, fmt.Errorf("the header line is longer than %d bytes", MaxRecordBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("the header line is not CSV: %w", err)
	}
	if len(header) > MaxColumns {
		return nil, fmt.Errorf("the header has %d columns; a lead list may have at most %d", len(header), MaxColumns)
	}
	header = slices.Clone(header)
	cols, err := Match(header, mapping)
	if err != nil {
		return nil, err
	}
	return &Reader{csv: c, in: in, header: header, cols: cols}, nil
}

// Header is the file's header line.
func (r *Reader) Header() []string { return r.header }

// Columns says which field each column fills.
func (r *Reader) Columns() Columns { return r.cols }

// Next reads the next record; io.EOF after the last. Other errors are the
// underlying reader's.
func (r *Reader) Next() (Record, error) {
	rec, err := r.csv.Read()
	r.in.ended()
	if err != nil {
		return r.unreadable(err)
	}
	line, _ := r.csv.FieldPos(0)
	if len(rec) != len(r.header) {
		return Record{Line: line, Err: &RowError{Row: line, Code: CodeBadRequest,
			Message: fmt.Sprintf("the row has %d cells; the header has %d", len(rec), len(r.header))}}, nil
	}
	cells := make(map[string]string, r.cols.Len())
	for i, f := range r.cols.fields {
		if f == "" {
			continue
		}
		if v := strings.TrimSpace(rec[i]); v != "" {
			cells[f] = v
		}
	}
	return Record{Line: line, Cells: cells}, nil
}

// Skip reads past the next record without looking at it: a resumed import
// passes the records it has settled. io.EOF after the last.
func (r *Reader) Skip() error {
	_, err := r.csv.Read()
	r.in.ended()
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return nil // a record too, one that failed
	}
	return err
}

// unreadable turns a record encoding/csv could not parse into that
// record's error; it goes on with the next line.
func (r *Reader) unreadable(err error) (Record, error) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return Record{}, err
	}
	return Record{Line: pe.StartLine, Err: &RowError{Row: pe.StartLine, Code: CodeBadRequest,
		Message: "the row is not valid CSV: " + parseProblem(pe)}}, nil
}

// parseProblem says what encoding/csv found, without its line numbers
// (the row error carries the row).
func parseProblem(pe *csv.ParseError) string {
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return `a quote (") inside a field that is not quoted; quote the field and double the quote`
	case errors.Is(pe.Err, csv.ErrQuote):
		return `a quoted field is not closed, or has text after its closing quote`
	}
	return pe.Err.Error()
}

// Count reads a file's data records (those Next would answer: rows, a
// quoted line break kept in its row, blank lines left out).
func Count(r io.Reader) (int, error) {
	rd, err := NewReader(r, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		err := rd.Skip()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
