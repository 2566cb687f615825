package leadcsv

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// read answers every record of file as "line:field=cell,..." or
// "line!CODE", in order.
func read(t *testing.T, file string, mapping map[string]string) []string {
	t.Helper()
	rd, err := NewReader(strings.NewReader(file), mapping)
	if err != nil {
		t.Fatalf("NewReader: %v", err)
	}
	var out []string
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, describe(r))
	}
}

func describe(r Record) string {
	if r.Err != nil {
		if r.Err.Row != r.Line {
			return "row and line differ"
		}
		return itoa(r.Line) + "!" + r.Err.Code
	}
	var parts []string
	for _, f := range Fields {
		if v, ok := r.Cells[f.Name]; ok {
			parts = append(parts, f.Name+"="+v)
		}
	}
	return itoa(r.Line) + ":" + strings.Join(parts, ",")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		mapping map[string]string
		want    []string
	}{
		{"Aliases", "Company,First Name,E-mail,Mobile,Loan Amount,Unknown\nAcme,Ada,a@b.test,555,100,x\n", nil,
			[]string{"2:businessName=Acme,contactFirstName=Ada,email=a@b.test,phone=555,requestedAmount=100"}},
		{"APINames", "businessName,contactLastName,monthlyRevenue\nAcme,Lovelace,9\n", nil,
			[]string{"2:businessName=Acme,contactLastName=Lovelace,monthlyRevenue=9"}},
		{"HeaderCaseAndSpaces", " BUSINESS   name ,EMAIL ADDRESS\nAcme,a@b.test\n", nil,
			[]string{"2:businessName=Acme,email=a@b.test"}},
		{"BOM", "\ufeffCompany\nAcme\n", nil, []string{"2:businessName=Acme"}},
		{"CRLF", "Company,Email\r\nAcme,a@b.test\r\nBolt,\r\n", nil, []string{"2:businessName=Acme,email=a@b.test", "3:businessName=Bolt"}},
		{"QuotedCommaAndNewline", "Company,Email\n\"Acme, Inc.\",a@b.test\n\"Two\nLines\",c@d.test\nNext,\n", nil,
			[]string{"2:businessName=Acme, Inc.,email=a@b.test", "3:businessName=Two\nLines,email=c@d.test", "5:businessName=Next"}},
		{"EmptyCellsAreLeftOut", "Company,Email\n  ,  \n", nil, []string{"2:"}},
		{"BlankLinesKeepLineNumbers", "Company\n\nAcme\n\n\nBolt\n", nil, []string{"3:businessName=Acme", "6:businessName=Bolt"}},
		{"MappingFirst", "Company,Trading As\nLegal,Shop\n", map[string]string{"businessName": "trading as"},
			[]string{"2:businessName=Shop"}},
		{"MappingLeavesOthersToAliases", "Company,Mail,Phone\nLegal,a@b.test,555\n", map[string]string{"email": "Mail"},
			[]string{"2:businessName=Legal,email=a@b.test,phone=555"}},
		{"FirstAliasColumnWins", "Company,Business\nA,B\n", nil, []string{"2:businessName=A"}},
		{"RaggedRows", "Company,Email\nAcme\nA,b@c.test,extra\nGood,g@h.test\n", nil,
			[]string{"2!BAD_REQUEST", "3!BAD_REQUEST", "4:businessName=Good,email=g@h.test"}},
		{"BareQuote", "Company,Email\nAc\"me,a@b.test\nGood,\n", nil, []string{"2!BAD_REQUEST", "3:businessName=Good"}},
		{"TextAfterClosingQuote", "Company,Email\n\"Acme\"x,a@b.test\nGood,\n", nil, []string{"2!BAD_REQUEST", "3:businessName=Good"}},
		{"UnclosedQuoteRunsToTheEnd", "Company,Email\nGood,\n\"Acme,a@b.test\nLost,\n", nil, []string{"2:businessName=Good", "3!BAD_REQUEST"}},
		{"NoDataRows", "Company,Email\n", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := read(t, tc.file, tc.mapping); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			n, err := Count(strings.NewReader(tc.file))
			if err != nil || n != len(tc.want) {
				t.Errorf("Count = %d, %v; want %d (the records Next answers)", n, err, len(tc.want))
			}
		})
	}
}

func TestReaderRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		mapping map[string]string
		check   func(error) bool
	}{
		{"Empty", "", nil, func(err error) bool { return errors.Is(err, ErrNoHeader) }},
		{"OnlyBOM", "\ufeff", nil, func(err error) bool { return errors.Is(err, ErrNoHeader) }},
		{"BlankLines", "\n\n", nil, func(err error) bool { return errors.Is(err, ErrNoHeader) }},
		{"UnknownField", "Company\nA\n", map[string]string{"nickname": "Company"}, isMappingError},
		{"HeaderMissing", "Company\nA\n", map[string]string{"email": "Mail"}, isMappingError},
		{"EmptyHeader", "Company\nA\n", map[string]string{"email": " "}, isMappingError},
		{"TwoFieldsOneHeader", "Company\nA\n", map[string]string{"businessName": "Company", "industry": "company"}, isMappingError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReader(strings.NewReader(tc.file), tc.mapping)
			if !tc.check(err) {
				t.Errorf("err = %v", err)
			}
		})
	}
}

func isMappingError(err error) bool {
	var me *MappingError
	return errors.As(err, &me)
}

func TestObject(t *testing.T) {
	got, err := Object(map[string]string{
		"businessName": "Acme", "requestedAmount": "$12,500.00", "monthlyRevenue": "12,5",
		"priority": "High", "tags": "a, b;;c ", "phone": "007",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"businessName": `"Acme"`, "requestedAmount": `"12500.00"`, "monthlyRevenue": `"12,5"`, // not thousands: left for the lead's rule
		"priority": `"high"`, "tags": `["a","b","c"]`, "phone": `"007"`,
	}
	for k, w := range want {
		if string(got[k]) != w {
			t.Errorf("%s = %s, want %s", k, got[k], w)
		}
	}
}

func TestUTF8Reader(t *testing.T) {
	valid := []byte("\ufeffCompany\nCafé Ünïcode 😀 日本\n")
	for _, tc := range []struct {
		name string
		file []byte
		ok   bool
	}{
		{"Valid", valid, true},
		{"Latin1", []byte("Company\nCaf\xe9\n"), false},
		{"EndsAfterAWholeRune", valid[:len(valid)-4], true}, // ends after "日"
		{"EndsInsideARune", valid[:len(valid)-3], false},
		{"TruncatedRune", []byte("Company\n\xe6\x97"), false},
		{"Overlong", []byte("a\xc0\xafb"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte a read: every character is split across reads.
			got, err := io.ReadAll(NewUTF8Reader(iotest.OneByteReader(bytes.NewReader(tc.file))))
			if tc.ok && (err != nil || !bytes.Equal(got, tc.file)) {
				t.Errorf("got %q, %v; want the file back", got, err)
			}
			if !tc.ok && !errors.Is(err, ErrNotUTF8) {
				t.Errorf("err = %v, want ErrNotUTF8", err)
			}
		})
	}
}

// A file is held to its bounds: a header of more than MaxColumns columns
// is refused, and a record over MaxRecordBytes (a line, or a quoted field
// running over many lines) stops the reading with ErrRecordTooLarge
// rather than being held whole, however large the file.
func TestBounds(t *testing.T) {
	wide := strings.Repeat("x,", MaxColumns) + "email\n"
	if _, err := NewReader(strings.NewReader(wide), nil); err == nil || !strings.Contains(err.Error(), "columns") {
		t.Fatalf("a header of %d columns: %v", MaxColumns+1, err)
	}
	if _, err := NewReader(strings.NewReader("email,"+strings.Repeat("y", 2*MaxRecordBytes)+"\n"), nil); err == nil {
		t.Fatal("a header longer than MaxRecordBytes was read")
	}
	for name, long := range map[string]string{
		"line":         strings.Repeat("z", 3*MaxRecordBytes),
		"quoted lines": `"` + strings.Repeat("z\n", 2*MaxRecordBytes) + `"`,
	} {
		t.Run(name, func(t *testing.T) {
			file := "email\na@example.com\n" + long + "\nb@example.com\n"
			rd, err := NewReader(strings.NewReader(file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := rd.Next(); err != nil || r.Cells["email"] != "a@example.com" {
				t.Fatalf("first record: %+v, %v", r, err)
			}
			if _, err := rd.Next(); !errors.Is(err, ErrRecordTooLarge) {
				t.Fatalf("the long record: %v, want ErrRecordTooLarge", err)
			}
			if _, err := Count(strings.NewReader(file)); !errors.Is(err, ErrRecordTooLarge) {
				t.Fatalf("Count: %v, want ErrRecordTooLarge", err)
			}
		})
	}
	// Records near the bound, one after another, are read: the bound is
	// per record, not per file.
	row := strings.Repeat("w", MaxRecordBytes/2)
	file := "email\n" + strings.Repeat(row+"\n", 8)
	if n, err := Count(strings.NewReader(file)); err != nil || n != 8 {
		t.Fatalf("eight records of half the bound: %d, %v", n, err)
	}
}
