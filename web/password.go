package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are the argon2id costs of new password hashes. Each hash records the costs it
// was made with, so raising them later leaves existing hashes verifiable.
type PasswordParams struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultPasswordParams follows RFC 9106's second recommendation (64 MiB, 3 passes).
var DefaultPasswordParams = PasswordParams{Memory: 64 * 1024, Time: 3, Threads: 2}

const (
	saltLen = 16
	keyLen  = 32
	// MinPasswordLen and MaxPasswordLen bound what an operator's password may be.
	MinPasswordLen = 12
	MaxPasswordLen = 256
)

var b64 = base64.RawStdEncoding

// HashPassword returns the argon2id hash of password in the PHC string format:
// $argon2id$v=19$m=65536,t=3,p=2$<salt>$<key>.
func HashPassword(password string, p PasswordParams) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// CheckPassword reports whether password matches encoded, comparing in constant time.
func CheckPassword(password, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("password hash: not an argon2id PHC string")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("password hash: unsupported argon2 version")
	}
	var p PasswordParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 {
		return false, errors.New("password hash: bad parameters")
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errors.New("password hash: bad salt")
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errors.New("password hash: bad key")
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// PasswordProblem says what is wrong with a new password, or "" when it is acceptable.
func PasswordProblem(password string) string {
	n := utf8.RuneCountInString(password)
	switch {
	case n < MinPasswordLen:
		return fmt.Sprintf("use at least %d characters", MinPasswordLen)
	case len(password) > MaxPasswordLen:
		return fmt.Sprintf("use at most %d bytes", MaxPasswordLen)
	}
	return ""
}

// RandomPassword returns a new random password (20 characters, about 120 bits), for first
// starts and resets: an admin hands it over once and the operator never chooses a weak one.
func RandomPassword() string {
	b := make([]byte, 15)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
