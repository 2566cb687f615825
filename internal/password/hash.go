package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// ErrMalformed is wrapped by Verify's error when the stored hash is not an
// argon2id hash in the PHC format or its parameters are out of bounds: a
// corrupt row, not a wrong password.
var ErrMalformed = errors.New("malformed password hash")

// b64 is the PHC format's base64: standard alphabet, no padding, and
// strict, so one hash has one spelling.
var b64 = base64.RawStdEncoding.Strict()

// Hash hashes password with p and a fresh random salt, as
// $argon2id$v=19$m=<KiB>,t=<time>,p=<threads>$<salt>$<key>.
func Hash(password string, p Params) (string, error) {
	if err := p.check(); err != nil {
		return "", fmt.Errorf("password hash parameters: %w", err)
	}
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("reading a salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
	return encode(p, salt, key), nil
}

// Verify reports whether password is the one encoded was made from, in
// constant time over the derived key. rehash reports, for the right
// password only, that encoded was made with parameters weaker than
// current, so the caller stores a new Hash of it. A malformed or
// out-of-bounds encoded is an error wrapping ErrMalformed.
func Verify(password, encoded string, current Params) (ok, rehash bool, err error) {
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, p.KeyLen)
	ok = subtle.ConstantTimeCompare(got, key) == 1
	return ok, ok && p.weakerThan(current), nil
}

// dummySalt is the salt of VerifyDummy's hash; any fixed value does.
const dummySalt = "no-such-user-salt-for-timing-only"

// VerifyDummy does the work of Verify against a hash made with p, which no
// password matches: a sign-in for an unknown email then takes as long as
// one for a known email with a wrong password (PRODUCT 9.2), so timing
// does not tell which emails have an account.
func VerifyDummy(password string, p Params) error {
	if err := p.check(); err != nil {
		return fmt.Errorf("password hash parameters: %w", err)
	}
	_, _, err := Verify(password, dummyHash(p), p)
	return err
}

// dummyHash is a hash in the format of Hash's, made with p, that no
// password matches: its key is all zeros, which argon2id never derives in
// practice.
func dummyHash(p Params) string {
	salt := []byte(strings.Repeat(dummySalt, int(p.SaltLen)/len(dummySalt)+1)[:p.SaltLen])
	return encode(p, salt, make([]byte, p.KeyLen))
}

// encode writes a hash in the PHC string format.
func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// decode reads a hash written by encode, refusing anything else and any
// parameters outside the bounds Hash accepts.
func decode(encoded string) (p Params, salt, key []byte, err error) {
	malformed := func(why string, args ...any) (Params, []byte, []byte, error) {
		return Params{}, nil, nil, fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(why, args...))
	}
	if len(encoded) > maxEncodedLen {
		return malformed("%d bytes long, more than %d", len(encoded), maxEncodedLen)
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" {
		return malformed("not $argon2id$v=..$m=..,t=..,p=..$salt$key")
	}
	if parts[1] != "argon2id" {
		return malformed("algorithm %q, not argon2id", parts[1])
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return malformed("version %q, not v=%d", parts[2], argon2.Version)
	}
	m, rest, _ := strings.Cut(parts[3], ",")
	t, threads, _ := strings.Cut(rest, ",")
	mem, err1 := param(m, "m=", 32)
	tm, err2 := param(t, "t=", 32)
	th, err3 := param(threads, "p=", 8)
	if err := errors.Join(err1, err2, err3); err != nil {
		return malformed("parameters %q: %v", parts[3], err)
	}
	if salt, err = unbase64(parts[4]); err != nil {
		return malformed("salt: %v", err)
	}
	if key, err = unbase64(parts[5]); err != nil {
		return malformed("key: %v", err)
	}
	p = Params{Time: uint32(tm), MemoryKiB: uint32(mem), Threads: uint8(th), SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}
	if err := p.check(); err != nil {
		return malformed("%v", err)
	}
	return p, salt, key, nil
}

// unbase64 decodes s and insists it was written the one way b64 writes
// it: the decoder skips line breaks, so "abc\n" would otherwise pass.
func unbase64(s string) ([]byte, error) {
	b, err := b64.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if b64.EncodeToString(b) != s {
		return nil, errors.New("not in canonical form")
	}
	return b, nil
}

// param reads one "name=digits" parameter that fits in bits.
func param(s, name string, bits int) (uint64, error) {
	digits, ok := strings.CutPrefix(s, name)
	if !ok {
		return 0, fmt.Errorf("want %s<number>", name)
	}
	// ParseUint takes no sign and, in base 10, no underscores.
	n, err := strconv.ParseUint(digits, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if strconv.FormatUint(n, 10) != digits {
		return 0, fmt.Errorf("%s%s: leading zeros", name, digits) // one hash, one spelling
	}
	return n, nil
}
