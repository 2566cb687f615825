package password

import (
	_ "embed"
	"errors"
	"strings"
	"unicode/utf8"
)

// The lengths a password may have, in characters (PRODUCT 9.1).
const (
	MinLength = 12
	MaxLength = 128
)

// The rules' refusals. Each message is written for the person choosing the
// password, to follow the field's name: the caller reports it as a
// VALIDATION_ERROR on the field "password".
var (
	ErrLength = errors.New("must be 12 to 128 characters")
	ErrCommon = errors.New("is too common: choose one that is not on lists of leaked passwords")
	ErrEmail  = errors.New("must not be your email address")
)

// Check applies PRODUCT 9.1's rules to a new password for the person
// signing in with email, returning ErrLength, ErrEmail or ErrCommon, or
// nil. Characters are runes, so an accented letter counts once.
func Check(password, email string) error {
	if n := utf8.RuneCountInString(password); n < MinLength || n > MaxLength {
		return ErrLength
	}
	if strings.EqualFold(strings.TrimSpace(password), strings.TrimSpace(email)) {
		return ErrEmail
	}
	if common(password) {
		return ErrCommon
	}
	return nil
}

// commonText is common.txt: one lower-cased password a line, most common
// first (COMMON-LICENSE.txt says where it comes from).
//
//go:embed common.txt
var commonText string

// commonPasswords is the set of commonText's lines, a read-only table:
// built once as the package initialises and never written after, so it is
// shared safely by every caller.
var commonPasswords = lines(commonText)

// lines returns the set of text's non-empty lines.
func lines(text string) map[string]struct{} {
	set := make(map[string]struct{}, strings.Count(text, "\n")+1)
	for line := range strings.Lines(text) {
		if line = strings.TrimRight(line, "\r\n"); line != "" {
			set[line] = struct{}{}
		}
	}
	return set
}

// common reports whether password is in the list, whatever its case: the
// list is lower-cased, and "Password1234" is as guessable as "password1234".
func common(password string) bool {
	_, ok := commonPasswords[strings.ToLower(password)]
	return ok
}
