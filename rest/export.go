package rest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lendingpipe/svc/internal/apitime"
	"github.com/lendingpipe/svc/internal/money"
)

// The exports (PRODUCT 10.8): a list's every row as CSV, streamed. The
// columns are the list's resource, as its JSON names it: id, then each
// attribute; a nested object's members are columns of their own
// (stage.stageLabel), a list of strings is one cell joined by ";", and
// any other list or object is one cell of compact JSON. Amounts are
// decimals ("12500.00"), times RFC 3339 in UTC, absent values empty.
//
// A text cell a spreadsheet would read as a formula, one that begins with
// =, +, -, @, a tab or a carriage return, is written with a leading '
// (textCell). Amounts, numbers and booleans are written as they are: the
// service makes them, and "-5.00" must stay a number.

// csvExport is one export: the file's name before its date, and its
// columns.
type csvExport struct {
	name string
	cols []csvColumn
}

// The exports, each with its list's resource as its columns.
var (
	leadExport        = csvExport{"leads", csvColumns(leadAttributes{})}
	applicationExport = csvExport{"applications", csvColumns(applicationAttributes{})}
	fundedDealExport  = csvExport{"funded-deals", csvColumns(fundedDealAttributes{})}
	commissionExport  = csvExport{"commissions", csvColumns(commissionAttributes{})}
)

// exportWriteWindow is how long writing one page of an export may take:
// each page written moves the connection's write deadline this far
// ahead, so the server's WriteTimeout bounds a stalled client, not the
// length of an export.
const exportWriteWindow = 60 * time.Second

// writeCSV streams the rows next reads (a page a call, empty at the end),
// each rendered as the list renders it, as the file x.name-<date>.csv.
//
// The first page is read before anything is written, so a filter, scope
// or database refusal is the error envelope the list would answer. Once
// the header is sent the status cannot change: a page that fails to read
// ends the answer by closing the connection without the chunked body's
// last chunk (http.ErrAbortHandler), so the client sees a broken
// transfer, never a file that merely ends early.
func writeCSV[T any](w http.ResponseWriter, r *http.Request, x csvExport, render func(T) Resource, next func() ([]T, error)) error {
	rows, err := next()
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.csv"`, x.name, apitime.Now(r.Context()).UTC().Format(time.DateOnly)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	out := csv.NewWriter(w)
	record := make([]string, len(x.cols))
	for i, c := range x.cols {
		record[i] = c.name
	}
	_ = out.Write(record)
	written := 0
	for {
		for _, row := range rows {
			res := render(row)
			attrs := reflect.ValueOf(res.Attributes)
			for i, c := range x.cols {
				record[i] = c.cell(res.ID, attrs)
			}
			_ = out.Write(record)
		}
		written += len(rows)
		out.Flush()
		if err := out.Error(); err != nil {
			logger(r.Context()).Info("export: the client went away", "export", x.name, "rows", written, "error", err)
			return nil // nothing more can reach it
		}
		if len(rows) == 0 {
			return nil
		}
		_ = rc.Flush()
		_ = rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
		if rows, err = next(); err != nil {
			if r.Context().Err() != nil { // the client went away mid-read
				logger(r.Context()).Info("export: the client went away", "export", x.name, "rows", written, "error", err)
				return nil
			}
			logger(r.Context()).Error("export: a page failed to read; the answer is cut off", "export", x.name, "rows", written, "error", err)
			panic(http.ErrAbortHandler)
		}
	}
}

// csvColumn is one column of an export: its header and how a row's cell
// is read from the resource's id and attributes.
type csvColumn struct {
	name string
	cell func(id string, attrs reflect.Value) string
}

// csvColumns are the columns of a resource whose attributes are of
// attrs's type: id, then the attributes in the order of their fields.
func csvColumns(attrs any) []csvColumn {
	cols := []csvColumn{{name: "id", cell: func(id string, _ reflect.Value) string { return textCell(id) }}}
	return append(cols, fieldColumns(reflect.TypeOf(attrs), nil, "")...)
}

var (
	stringerType = reflect.TypeFor[fmt.Stringer]()
	amountTypes  = []reflect.Type{reflect.TypeFor[money.Amount](), reflect.TypeFor[money.Rate]()}
)

// fieldColumns are the columns of struct t's JSON fields, at index within
// the attributes, named under prefix.
func fieldColumns(t reflect.Type, index []int, prefix string) []csvColumn {
	var cols []csvColumn
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		at := append(index[:len(index):len(index)], i)
		base := f.Type
		if base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		if base.Kind() == reflect.Struct && !base.Implements(stringerType) {
			cols = append(cols, fieldColumns(base, at, prefix+name+".")...)
			continue
		}
		format := formatter(base, f.Tag.Get("openapi") == "decimal")
		cols = append(cols, csvColumn{name: prefix + name, cell: func(_ string, attrs reflect.Value) string {
			v, err := attrs.FieldByIndexErr(at)
			if err != nil { // under an absent (nil) object
				return ""
			}
			if v.Kind() == reflect.Pointer {
				if v.IsNil() {
					return ""
				}
				v = v.Elem()
			}
			return format(v)
		}})
	}
	return cols
}

// formatter is how a value of type t is written in a cell; decimal says
// a string holds an amount.
func formatter(t reflect.Type, decimal bool) func(reflect.Value) string {
	switch {
	case decimal || slices.Contains(amountTypes, t):
		return func(v reflect.Value) string { return fmt.Sprint(v.Interface()) }
	case t.Implements(stringerType): // ids, times
		return func(v reflect.Value) string { return textCell(v.Interface().(fmt.Stringer).String()) }
	case t.Kind() == reflect.String:
		return func(v reflect.Value) string { return textCell(v.String()) }
	case t.Kind() == reflect.Bool:
		return func(v reflect.Value) string { return strconv.FormatBool(v.Bool()) }
	case t.Kind() == reflect.Int:
		return func(v reflect.Value) string { return strconv.FormatInt(v.Int(), 10) }
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return func(v reflect.Value) string { return textCell(strings.Join(v.Interface().([]string), ";")) }
	}
	return func(v reflect.Value) string {
		if (v.Kind() == reflect.Map || v.Kind() == reflect.Slice) && v.Len() == 0 {
			return ""
		}
		raw, err := json.Marshal(v.Interface())
		if err != nil {
			return ""
		}
		return textCell(string(raw))
	}
}

// textCell is s as a cell no spreadsheet runs (PRODUCT 10.8): a leading '
// when it begins with a character that would start a formula (=, +, -, @)
// or that a spreadsheet strips before looking for one (tab, carriage
// return). The ' stays in the cell, where a reader sees it.
func textCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
