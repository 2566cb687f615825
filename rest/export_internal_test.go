package rest

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/lendingpipe/svc/internal/money"
)

// PRODUCT 10.8: a text cell that begins with =, +, -, @, a tab or a
// carriage return is written after a ', so no spreadsheet runs it.
func TestTextCell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"=SUM(A1:A9)", "'=SUM(A1:A9)"},
		{"+15550100", "'+15550100"},
		{"-2+3", "'-2+3"},
		{"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		// Safe: the dangerous characters anywhere but first, a leading
		// space, a ' already there, a newline, text and nothing.
		{"Acme = Co", "Acme = Co"},
		{"1+1", "1+1"},
		{" =1", " =1"},
		{"'=1", "'=1"},
		{"\n=1", "\n=1"},
		{"Zoë", "Zoë"},
		{"", ""},
	} {
		if got := textCell(c.in); got != c.want {
			t.Errorf("textCell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The cells an export makes of each kind of value: amounts as decimals,
// negative ones included, untouched (they are ours, not text); text
// neutralized wherever it sits (a list, an object).
func TestCSVCells(t *testing.T) {
	type nested struct {
		Label string `json:"label"`
	}
	type attrs struct {
		Name    *string        `json:"name"`
		Amount  money.Amount   `json:"amount"`
		Maybe   *money.Amount  `json:"maybe"`
		Decimal *string        `json:"decimal" openapi:"decimal"`
		Count   int            `json:"count"`
		On      bool           `json:"on"`
		Tags    []string       `json:"tags"`
		Fields  map[string]any `json:"fields"`
		Inner   *nested        `json:"inner"`
		Skipped string         `json:"-"`
	}
	cols := csvColumns(attrs{})
	var names []string
	for _, c := range cols {
		names = append(names, c.name)
	}
	if got := strings.Join(names, ","); got != "id,name,amount,maybe,decimal,count,on,tags,fields,inner.label" {
		t.Fatalf("columns = %s", got)
	}
	name, dec, neg := "-Acme", "-0.50", money.FromCents(-500)
	for _, c := range []struct {
		attrs attrs
		want  []string
	}{
		{attrs{Name: &name, Amount: neg, Maybe: &neg, Decimal: &dec, Count: -3, On: true,
			Tags: []string{"-hot", "cold"}, Fields: map[string]any{"k": "=v"}, Inner: &nested{Label: "@x"}},
			[]string{"'=id", "'-Acme", "-5.00", "-5.00", "-0.50", "-3", "true", "'-hot;cold", `{"k":"=v"}`, "'@x"}},
		{attrs{Amount: money.FromCents(1250000)},
			[]string{"'=id", "", "12500.00", "", "", "0", "false", "", "", ""}},
	} {
		v := Resource{ID: "=id", Attributes: c.attrs}
		for i, col := range cols {
			if got := col.cell(v.ID, reflect.ValueOf(v.Attributes)); got != c.want[i] {
				t.Errorf("%s = %q, want %q", col.name, got, c.want[i])
			}
		}
	}
}

// A page that fails to read after the header was sent is not a file that
// ends early: the connection closes without the chunked body's last
// chunk, so the client's read fails.
func TestExportCutOff(t *testing.T) {
	type row struct {
		Name string `json:"name"`
	}
	x := csvExport{name: "rows", cols: csvColumns(row{})}
	page := []row{{"a"}, {"b"}}
	srv := httptest.NewServer(withRecovery(errorHandler(func(w http.ResponseWriter, r *http.Request) error {
		calls := 0
		return writeCSV(w, r, x, func(v row) Resource { return Resource{ID: v.Name, Attributes: v} }, func() ([]row, error) {
			calls++
			if calls == 1 {
				return page, nil
			}
			return nil, errors.New("the database went away")
		})
	})))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The first page arrives whole, then the transfer breaks.
	body := bufio.NewReader(resp.Body)
	var lines []string
	for range 3 {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("after %q: %v", lines, err)
		}
		lines = append(lines, line)
	}
	if got := strings.Join(lines, ""); got != "id,name\na,a\nb,b\n" {
		t.Fatalf("first page = %q", got)
	}
	if _, err := io.ReadAll(body); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading past the failed page: %v, want io.ErrUnexpectedEOF", err)
	}
}
