package schema

import (
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/lendingpipe/svc/internal/bounds"
	"github.com/lendingpipe/svc/internal/enum"
)

// runeLen checks a length in characters (SPEC 8 counts characters, not bytes).
func runeLen(lo, hi int) func(string) error {
	return func(s string) error {
		n := utf8.RuneCountInString(s)
		switch {
		case n < lo:
			return fmt.Errorf("must be at least %d characters", lo)
		case n > hi:
			return fmt.Errorf("must be at most %d characters", hi)
		}
		return nil
	}
}

// textLen checks a text field's length against its bounds.
func textLen(l bounds.Len) func(string) error { return runeLen(l.Min, l.Max) }

// atMost is the description of an optional text field bounded by l.
func atMost(what string, l bounds.Len) string {
	return fmt.Sprintf("%s: at most %d characters; null when not given.", what, l.Max)
}

// htmlPattern matches anything a browser could read as markup: a tag,
// a comment, a doctype or a character reference.
var htmlPattern = regexp.MustCompile(`<\s*[A-Za-z!/?]|&#?[A-Za-z0-9]+;`)

// noHTML rejects markup (SPEC 4.1: businessName has "no HTML").
func noHTML(s string) error {
	if htmlPattern.MatchString(s) {
		return errors.New("must not contain HTML")
	}
	return nil
}

// email accepts a bare address (no display name) of at most
// bounds.Email.Max characters.
func email(s string) error {
	if len(s) > bounds.Email.Max {
		return fmt.Errorf("must be at most %d characters", bounds.Email.Max)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
		return errors.New("must be a valid email address")
	}
	return nil
}

var numericPattern = regexp.MustCompile(enum.DecimalPattern)

func numeric(s string) error {
	if !numericPattern.MatchString(s) {
		return errors.New("must be a numeric string such as \"12500.00\"")
	}
	return nil
}

// hexColor is a #rrggbb colour.
var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

func all(checks ...func(string) error) func(string) error {
	return func(s string) error {
		for _, c := range checks {
			if err := c(s); err != nil {
				return err
			}
		}
		return nil
	}
}
