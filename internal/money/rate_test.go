package money

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestParseRateAccepts(t *testing.T) {
	cases := []struct {
		in         string
		millionths int64
		out        string
	}{
		{"0", 0, "0"},
		{"0.000000", 0, "0"},
		{"0.000001", 1, "0.000001"},
		{"0.089", 89000, "0.089"},
		{"0.0890", 89000, "0.089"},
		{"1.35", 1350000, "1.35"},
		{"01.350000", 1350000, "1.35"},
		{"0.189", 189000, "0.189"},
		{"1", 1000000, "1"},
		{"9.999999", 9999999, "9.999999"},
		{"10", 10000000, "10"}, // the maximum is inclusive
		{"10.000000", 10000000, "10"},
		{"0010", 10000000, "10"},
	}
	for _, c := range cases {
		r, err := ParseRate(c.in)
		if err != nil {
			t.Errorf("ParseRate(%q): %v", c.in, err)
			continue
		}
		if r.Millionths() != c.millionths || r.String() != c.out {
			t.Errorf("ParseRate(%q) = %d millionths %q, want %d %q", c.in, r.Millionths(), r, c.millionths, c.out)
		}
		if b, err := ParseRate(r.String()); err != nil || b != r {
			t.Errorf("ParseRate(%q) = %v, %v; want %v back", r.String(), b, err, r)
		}
	}
}

func TestParseRateRefuses(t *testing.T) {
	form, outside := errRateForm.Error(), errRateRange.Error()
	cases := map[string]string{
		"":                     form,
		".089":                 form,
		"1.":                   form,
		"-0.5":                 form,
		"+1":                   form,
		"1e-2":                 form,
		"1.35 ":                form,
		"1,35":                 form,
		"0.0000001":            form, // seven decimals
		"10.0000001":           form,
		"NaN":                  form,
		"inf":                  form,
		"10.000001":            outside,
		"11":                   outside,
		"99999999999999999999": outside,
	}
	for in, want := range cases {
		r, err := ParseRate(in)
		if err == nil {
			t.Errorf("ParseRate(%q) = %v, want an error", in, r)
			continue
		}
		if !errors.Is(err, ErrInvalid) || err.Error() != want {
			t.Errorf("ParseRate(%q): %q, want %q", in, err, want)
		}
	}
}

func TestRateString(t *testing.T) {
	cases := map[Rate]string{
		0:             "0",
		1:             "0.000001",
		10:            "0.00001",
		89000:         "0.089",
		1350000:       "1.35",
		MaxRate:       "10",
		-1350000:      "-1.35",
		math.MinInt64: "-9223372036854.775808",
	}
	for r, want := range cases {
		if got := r.String(); got != want {
			t.Errorf("Rate(%d).String() = %q, want %q", int64(r), got, want)
		}
	}
}

func TestRateJSONAndGQL(t *testing.T) {
	type body struct {
		Rate     Rate  `json:"rate"`
		Optional *Rate `json:"optional"`
	}
	b, err := json.Marshal(body{Rate: 89000})
	if err != nil || string(b) != `{"rate":"0.089","optional":null}` {
		t.Fatalf("marshalled %s, %v", b, err)
	}
	var out body
	if err := json.Unmarshal([]byte(`{"rate":"1.350","optional":"10"}`), &out); err != nil || out.Rate != 1350000 || out.Optional == nil || *out.Optional != MaxRate {
		t.Errorf("unmarshalled %+v, %v", out, err)
	}
	for doc, want := range map[string]string{
		`{"rate":0.089}`:       errRateType.Error(),
		`{"rate":"0.0890001"}`: errRateForm.Error(),
		`{"rate":"10.5"}`:      errRateRange.Error(),
	} {
		var v body
		if err := json.Unmarshal([]byte(doc), &v); !errors.Is(err, ErrInvalid) || err.Error() != want {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}

	var buf bytes.Buffer
	Rate(1350000).MarshalGQL(&buf)
	if buf.String() != `"1.35"` {
		t.Errorf("MarshalGQL wrote %s", buf.String())
	}
	var r Rate
	if err := r.UnmarshalGQL("0.089"); err != nil || r != 89000 {
		t.Errorf(`UnmarshalGQL("0.089") = %v, %v`, r, err)
	}
	for _, v := range []any{int64(1), 1.35, json.Number("1.35"), nil} {
		r := Rate(7)
		if err := r.UnmarshalGQL(v); !errors.Is(err, ErrInvalid) || err.Error() != errRateType.Error() || r != 7 {
			t.Errorf("UnmarshalGQL(%T %v) = %v, %v", v, v, r, err)
		}
	}
}
