package password

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// testParams keep the tests fast; the hashing is the same at any cost.
var testParams = Params{Time: 2, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashVerifies(t *testing.T) {
	const pw = "tulip orbit forty seven"
	encoded, err := Hash(pw, testParams)
	if err != nil {
		t.Fatal(err)
	}
	if want := "$argon2id$v=19$m=64,t=2,p=1$"; !strings.HasPrefix(encoded, want) {
		t.Errorf("hash %q does not start %q", encoded, want)
	}
	t.Run("OK", func(t *testing.T) {
		ok, rehash, err := Verify(pw, encoded, testParams)
		if err != nil || !ok || rehash {
			t.Errorf("Verify = %v, %v, %v; want true, false, nil", ok, rehash, err)
		}
	})
	t.Run("WrongPassword", func(t *testing.T) {
		for _, wrong := range []string{"tulip orbit forty seveN", "tulip orbit forty seven ", "", pw[:len(pw)-1]} {
			ok, rehash, err := Verify(wrong, encoded, testParams)
			if err != nil || ok || rehash {
				t.Errorf("Verify(%q) = %v, %v, %v; want false, false, nil", wrong, ok, rehash, err)
			}
		}
	})
	t.Run("SaltDiffers", func(t *testing.T) {
		again, err := Hash(pw, testParams)
		if err != nil {
			t.Fatal(err)
		}
		if again == encoded {
			t.Errorf("two hashes of one password are equal: %s", again)
		}
		if strings.Split(again, "$")[4] == strings.Split(encoded, "$")[4] {
			t.Errorf("two hashes share a salt: %s, %s", again, encoded)
		}
	})
}

func TestHashCarriesItsParameters(t *testing.T) {
	const pw = "tulip orbit forty seven"
	p := Params{Time: 3, MemoryKiB: 128, Threads: 2, SaltLen: 24, KeyLen: 40}
	encoded, err := Hash(pw, p)
	if err != nil {
		t.Fatal(err)
	}
	got, _, _, err := decode(encoded)
	if err != nil {
		t.Fatal(err)
	}
	if got != p {
		t.Errorf("decoded parameters %+v, want %+v", got, p)
	}
	// Verify reads the parameters from the hash, whatever the current ones.
	if ok, _, err := Verify(pw, encoded, testParams); err != nil || !ok {
		t.Errorf("Verify under other current parameters = %v, %v; want true, nil", ok, err)
	}
}

func TestRehashWhenWeaker(t *testing.T) {
	const pw = "tulip orbit forty seven"
	current := testParams
	for _, c := range []struct {
		name   string
		p      Params
		rehash bool
	}{
		{"Current", current, false},
		{"FewerPasses", Params{Time: 1, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32}, true},
		{"LessMemory", Params{Time: 2, MemoryKiB: 32, Threads: 1, SaltLen: 16, KeyLen: 32}, true},
		{"ShorterSalt", Params{Time: 2, MemoryKiB: 64, Threads: 1, SaltLen: 8, KeyLen: 32}, true},
		{"ShorterKey", Params{Time: 2, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 16}, true},
		{"Stronger", Params{Time: 3, MemoryKiB: 128, Threads: 1, SaltLen: 16, KeyLen: 32}, false},
		{"MoreLanes", Params{Time: 2, MemoryKiB: 64, Threads: 2, SaltLen: 16, KeyLen: 32}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			encoded, err := Hash(pw, c.p)
			if err != nil {
				t.Fatal(err)
			}
			ok, rehash, err := Verify(pw, encoded, current)
			if err != nil || !ok || rehash != c.rehash {
				t.Errorf("Verify = %v, %v, %v; want true, %v, nil", ok, rehash, err, c.rehash)
			}
			// A wrong password never asks for a new hash.
			if ok, rehash, err := Verify(pw+"!", encoded, current); err != nil || ok || rehash {
				t.Errorf("Verify(wrong) = %v, %v, %v; want false, false, nil", ok, rehash, err)
			}
		})
	}
}

func TestMalformedHashes(t *testing.T) {
	const salt, key = "c2FsdHNhbHRzYWx0c2FsdA", "a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U" // 16 and 29 bytes
	ok := "$argon2id$v=19$m=64,t=2,p=1$" + salt + "$" + key
	if _, _, err := Verify("x", ok, testParams); err != nil {
		t.Fatalf("the well-formed base case is refused: %v", err)
	}
	for _, c := range []struct{ name, encoded string }{
		{"Empty", ""},
		{"Plain", "tulip orbit forty seven"},
		{"Dollar", "$"},
		{"NoLeadingDollar", "argon2id$v=19$m=64,t=2,p=1$" + salt + "$" + key},
		{"Argon2i", "$argon2i$v=19$m=64,t=2,p=1$" + salt + "$" + key},
		{"Bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"OldVersion", "$argon2id$v=16$m=64,t=2,p=1$" + salt + "$" + key},
		{"NoVersion", "$argon2id$m=64,t=2,p=1$" + salt + "$" + key},
		{"NoKey", "$argon2id$v=19$m=64,t=2,p=1$" + salt},
		{"ExtraPart", ok + "$" + key},
		{"ParamsOutOfOrder", "$argon2id$v=19$t=2,m=64,p=1$" + salt + "$" + key},
		{"ParamMissing", "$argon2id$v=19$m=64,t=2$" + salt + "$" + key},
		{"ParamExtra", "$argon2id$v=19$m=64,t=2,p=1,k=1$" + salt + "$" + key},
		{"ParamEmpty", "$argon2id$v=19$m=,t=2,p=1$" + salt + "$" + key},
		{"ParamNegative", "$argon2id$v=19$m=-64,t=2,p=1$" + salt + "$" + key},
		{"ParamSigned", "$argon2id$v=19$m=+64,t=2,p=1$" + salt + "$" + key},
		{"ParamLeadingZero", "$argon2id$v=19$m=064,t=2,p=1$" + salt + "$" + key},
		{"ParamSpace", "$argon2id$v=19$m= 64,t=2,p=1$" + salt + "$" + key},
		{"ParamHex", "$argon2id$v=19$m=0x40,t=2,p=1$" + salt + "$" + key},
		{"AbsurdMemory", "$argon2id$v=19$m=4294967295,t=2,p=1$" + salt + "$" + key},
		{"MemoryJustOver1GiB", "$argon2id$v=19$m=1048577,t=2,p=1$" + salt + "$" + key},
		{"MemoryOverflow", "$argon2id$v=19$m=99999999999999999999,t=2,p=1$" + salt + "$" + key},
		{"MemoryBelowLanes", "$argon2id$v=19$m=15,t=1,p=2$" + salt + "$" + key},
		{"NoPasses", "$argon2id$v=19$m=64,t=0,p=1$" + salt + "$" + key},
		{"TooManyPasses", "$argon2id$v=19$m=64,t=21,p=1$" + salt + "$" + key},
		{"AbsurdPasses", "$argon2id$v=19$m=64,t=4294967295,p=1$" + salt + "$" + key},
		{"NoLanes", "$argon2id$v=19$m=64,t=2,p=0$" + salt + "$" + key},
		{"LanesOverflow", "$argon2id$v=19$m=4096,t=2,p=256$" + salt + "$" + key},
		{"SaltNotBase64", "$argon2id$v=19$m=64,t=2,p=1$!!!!!!!!!!!!$" + key},
		{"SaltPadded", "$argon2id$v=19$m=64,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA==$" + key},
		{"SaltURLAlphabet", "$argon2id$v=19$m=64,t=2,p=1$c2FsdHNhbHRzYWx0c2F-_A$" + key},
		{"SaltNonCanonical", "$argon2id$v=19$m=64,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdB$" + key},
		{"SaltTooShort", "$argon2id$v=19$m=64,t=2,p=1$c2FsdA$" + key},
		{"SaltEmpty", "$argon2id$v=19$m=64,t=2,p=1$$" + key},
		{"KeyTooShort", "$argon2id$v=19$m=64,t=2,p=1$" + salt + "$a2V5a2V5"},
		{"KeyTooLong", "$argon2id$v=19$m=64,t=2,p=1$" + salt + "$" + strings.Repeat("a2V5", 22)},
		{"KeyEmpty", "$argon2id$v=19$m=64,t=2,p=1$" + salt + "$"},
		{"TooLong", ok + strings.Repeat("A", maxEncodedLen)},
		{"NonASCIIDigits", "$argon2id$v=19$m=６４,t=2,p=1$" + salt + "$" + key},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, rehash, err := Verify("tulip orbit forty seven", c.encoded, testParams)
			if !errors.Is(err, ErrMalformed) || ok || rehash {
				t.Errorf("Verify(%q) = %v, %v, %v; want false, false, ErrMalformed", c.encoded, ok, rehash, err)
			}
		})
	}
}

func TestHashRefusesParamsOutOfBounds(t *testing.T) {
	for _, p := range []Params{
		{},
		{Time: 0, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32},
		{Time: 2, MemoryKiB: 64, Threads: 0, SaltLen: 16, KeyLen: 32},
		{Time: 2, MemoryKiB: maxMemoryKiB + 1, Threads: 1, SaltLen: 16, KeyLen: 32},
		{Time: 2, MemoryKiB: 64, Threads: 1, SaltLen: 4, KeyLen: 32},
		{Time: 2, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 8},
	} {
		if got, err := Hash("tulip orbit forty seven", p); err == nil {
			t.Errorf("Hash with %+v = %q, want an error", p, got)
		}
		if err := VerifyDummy("tulip orbit forty seven", p); err == nil {
			t.Errorf("VerifyDummy with %+v: no error", p)
		}
	}
	if err := DefaultParams.check(); err != nil {
		t.Errorf("DefaultParams are out of bounds: %v", err)
	}
}

func TestVerifyDummy(t *testing.T) {
	// It verifies a hash made with the given parameters, so it costs what
	// verifying a real one does; and nothing matches it.
	for _, p := range []Params{testParams, DefaultParams, {Time: 1, MemoryKiB: 256, Threads: 4, SaltLen: 64, KeyLen: 64}} {
		got, _, _, err := decode(dummyHash(p))
		if err != nil || got != p {
			t.Errorf("the dummy hash of %+v decodes to %+v, %v", p, got, err)
		}
	}
	for _, pw := range []string{"", "tulip orbit forty seven", dummySalt} {
		if ok, _, err := Verify(pw, dummyHash(testParams), testParams); err != nil || ok {
			t.Errorf("Verify(%q) against the dummy hash = %v, %v; want false, nil", pw, ok, err)
		}
		if err := VerifyDummy(pw, testParams); err != nil {
			t.Errorf("VerifyDummy(%q): %v", pw, err)
		}
	}
}

func TestHasher(t *testing.T) {
	const pw = "tulip orbit forty seven"
	ctx := context.Background()
	h := NewHasher(testParams, 1)
	encoded, err := h.Hash(ctx, pw)
	if err != nil {
		t.Fatal(err)
	}
	if ok, rehash, err := h.Verify(ctx, pw, encoded); err != nil || !ok || rehash {
		t.Errorf("Verify = %v, %v, %v; want true, false, nil", ok, rehash, err)
	}
	if err := h.VerifyDummy(ctx, pw); err != nil {
		t.Errorf("VerifyDummy: %v", err)
	}
	stronger := NewHasher(Params{Time: 3, MemoryKiB: 64, Threads: 1, SaltLen: 16, KeyLen: 32}, 1)
	if ok, rehash, err := stronger.Verify(ctx, pw, encoded); err != nil || !ok || !rehash {
		t.Errorf("Verify under stronger parameters = %v, %v, %v; want true, true, nil", ok, rehash, err)
	}
	if got := NewHasher(testParams, 0); cap(got.slots) != 1 {
		t.Errorf("NewHasher(p, 0) allows %d at once, want 1", cap(got.slots))
	}
}

func TestHasherBoundsConcurrency(t *testing.T) {
	const pw = "tulip orbit forty seven"
	h := NewHasher(testParams, 1)
	release, err := h.acquire(context.Background()) // the one slot, busy
	if err != nil {
		t.Fatal(err)
	}

	t.Run("WaitsThenCancelled", func(t *testing.T) {
		for name, call := range map[string]func(context.Context) error{
			"Hash":        func(ctx context.Context) error { _, err := h.Hash(ctx, pw); return err },
			"Verify":      func(ctx context.Context) error { _, _, err := h.Verify(ctx, pw, dummyHash(testParams)); return err },
			"VerifyDummy": func(ctx context.Context) error { return h.VerifyDummy(ctx, pw) },
		} {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- call(ctx) }()
			select {
			case err := <-done:
				t.Fatalf("%s returned %v while the only slot was busy", name, err)
			case <-time.After(50 * time.Millisecond):
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("%s after cancel: %v, want context.Canceled", name, err)
			}
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if _, err := h.Hash(ctx, pw); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Hash: %v, want context.DeadlineExceeded", err)
		}
	})

	release()
	t.Run("FreedSlot", func(t *testing.T) {
		if _, err := h.Hash(context.Background(), pw); err != nil {
			t.Errorf("Hash once the slot is free: %v", err)
		}
	})
	t.Run("EndedContextStartsNothing", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := h.Hash(ctx, pw); !errors.Is(err, context.Canceled) {
			t.Errorf("Hash with an ended context: %v, want context.Canceled", err)
		}
	})
	if n := len(h.slots); n != 0 {
		t.Errorf("%d slots still held after every call returned", n)
	}
}

func TestCheck(t *testing.T) {
	const email = "Ada.Lovelace@example.com"
	for _, c := range []struct {
		name, pw string
		want     error
	}{
		{"Empty", "", ErrLength},
		{"11", "tulip-orbit", ErrLength},
		{"12", "tulip-orbit4", nil},
		{"128", strings.Repeat("tulip-orbit4", 10) + "tulipor8", nil},
		{"129", strings.Repeat("tulip-orbit4", 10) + "tulipor89", ErrLength},
		{"11Accented", strings.Repeat("é", 11), ErrLength}, // 22 bytes, 11 characters
		{"12Accented", strings.Repeat("é", 12), nil},
		{"128Accented", strings.Repeat("é", 128), nil}, // 256 bytes
		{"129Accented", strings.Repeat("é", 129), ErrLength},
		{"12Emoji", strings.Repeat("🔑", 12), nil},
		{"Common", "password1234", ErrCommon},
		{"CommonKeyboard", "qwerty123456", ErrCommon},
		{"CommonDigits", "123456789123", ErrCommon},
		{"CommonLongest", "12345678900987654321", ErrCommon},
		{"CommonUpperCase", "PASSWORD1234", ErrCommon},
		{"CommonMixedCase", "QwErTy123456", ErrCommon},
		{"CommonSuffixed", "password1234!", nil}, // a different password
		{"Email", email, ErrEmail},
		{"EmailOtherCase", "ada.lovelace@EXAMPLE.COM", ErrEmail},
		{"EmailSpaced", "  ada.lovelace@example.com ", ErrEmail},
		{"EmailPart", "ada.lovelace@example", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Check(c.pw, email); got != c.want {
				t.Errorf("Check(%q) = %v, want %v", c.pw, got, c.want)
			}
		})
	}
	// The messages follow the field's name, for the person typing.
	for _, err := range []error{ErrLength, ErrCommon, ErrEmail} {
		if msg := err.Error(); !strings.HasPrefix(msg, "must") && !strings.HasPrefix(msg, "is ") {
			t.Errorf("%q does not read as \"password %s\"", msg, msg)
		}
	}
}

func TestCommonList(t *testing.T) {
	if n := len(commonPasswords); n < 10000 {
		t.Fatalf("the common password list has %d entries, want at least 10,000 (PRODUCT 9.1)", n)
	}
	lines := strings.Split(strings.TrimSuffix(commonText, "\n"), "\n")
	if len(lines) != len(commonPasswords) {
		t.Errorf("common.txt has %d lines and %d distinct entries", len(lines), len(commonPasswords))
	}
	for i, line := range lines {
		if line == "" || line != strings.ToLower(line) || strings.TrimSpace(line) != line {
			t.Errorf("common.txt:%d: %q is not one lower-cased password", i+1, line)
		}
	}
	// The most common are first, as in the list it comes from.
	if lines[0] != "123456" || lines[1] != "password" {
		t.Errorf("common.txt starts %q, %q; want 123456, password", lines[0], lines[1])
	}
}

func FuzzVerify(f *testing.F) {
	good, err := Hash("tulip orbit forty seven", testParams)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		good, dummyHash(testParams), "", "$", "$$$$$", "$argon2id$v=19$m=,t=,p=$$",
		"$argon2id$v=19$m=4294967295,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5",
		"$argon2id$v=19$m=64,t=2,p=0$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5",
		// The base64 decoder skips line breaks; the format must not.
		good + "\n", good + "\r\n", strings.Replace(good, "$", "$\n", 5),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, encoded string) {
		p, salt, key, err := decode(encoded)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("decode(%q): %v does not wrap ErrMalformed", encoded, err)
			}
		} else if again := encode(p, salt, key); again != encoded {
			// The format is strict: what it accepts, it writes the same way.
			t.Fatalf("decode(%q) then encode = %q", encoded, again)
		}
		if err == nil && uint64(p.MemoryKiB)*uint64(p.Time) > 4096 {
			return // in bounds, but too slow to hash at every input
		}
		ok, rehash, verr := Verify("tulip orbit forty seven", encoded, testParams)
		if (verr == nil) != (err == nil) || (verr != nil && (ok || rehash)) {
			t.Fatalf("Verify(%q) = %v, %v, %v; decode said %v", encoded, ok, rehash, verr, err)
		}
	})
}

func BenchmarkHash(b *testing.B) {
	for b.Loop() {
		if _, err := Hash("tulip orbit forty seven", DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyDummy should take what BenchmarkVerify does: a sign-in
// for an unknown email costs what one with a wrong password does.
func BenchmarkVerifyDummy(b *testing.B) {
	for b.Loop() {
		if err := VerifyDummy("tulip orbit forty seven", DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	encoded, err := Hash("tulip orbit forty seven", DefaultParams)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := Verify("wrong horse battery staple", encoded, DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	for b.Loop() {
		if err := Check("Password1234", "ada@example.com"); err != ErrCommon {
			b.Fatal(err)
		}
	}
}
