package service

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// A database keeps a check value of the key its values are sealed with: a known constant sealed
// under a key derived from the encryption key. Another key does not open it, so a restore that
// lost its key, or a mistyped one, is refused before anything is sealed under the wrong key
// beside values it cannot open. The check value is neither the key nor its hash: trying a guess
// against it costs what opening any sealed value does.

// ErrWrongKey is VerifyKey's answer for a key that does not open the database's sealed values.
var ErrWrongKey = errors.New("the encryption key does not open this database")

// SealedValue is one value the service sealed, as the store keeps it: its kind, the id its
// associated data names (aadOf), and its bytes.
type SealedValue struct {
	Kind   SealedKind
	Owner  string
	Sealed []byte
}

const (
	keyCheckPlaintext = "disburse encryption key check"
	keyCheckAAD       = "key-check"
)

// keyCheckAEAD seals the check value, under a key of its own derived from the encryption key.
func (s *Service) keyCheckAEAD() (cipher.AEAD, error) {
	mac := hmac.New(sha256.New, s.cfg.EncryptionKey)
	mac.Write([]byte("disburse key check key"))
	return newAEAD(mac.Sum(nil))
}

// VerifyKey makes sure the encryption key is the database's: it must open the check value the
// database keeps. A database without one, new or from before check values, gets one recorded
// once the key opens the oldest sealed value of each kind it holds; refused, nothing is written.
func (s *Service) VerifyKey(ctx context.Context) error {
	aead, err := s.keyCheckAEAD()
	if err != nil {
		return err
	}
	check, err := s.store.KeyCheck(ctx)
	if errors.Is(err, ErrNoRecord) {
		if err := s.opensSealedValues(ctx); err != nil {
			return err
		}
		err = s.inTx(ctx, func(q *Tx) error {
			return q.RecordKeyCheck(ctx, sealWith(aead, []byte(keyCheckPlaintext), keyCheckAAD))
		})
		if err != nil {
			return err
		}
		// Another process starting at the same moment may have recorded its own first: the one
		// kept is the one checked.
		check, err = s.store.KeyCheck(ctx)
	}
	if err != nil {
		return err
	}
	if plain, err := openWith(aead, check, keyCheckAAD); err != nil || string(plain) != keyCheckPlaintext {
		return ErrWrongKey
	}
	return nil
}

// opensSealedValues fails with ErrWrongKey unless the key opens the oldest sealed value of each
// kind the database holds.
func (s *Service) opensSealedValues(ctx context.Context) error {
	values, err := s.store.SealedSamples(ctx)
	if err != nil {
		return err
	}
	for _, v := range values {
		sealed := v.Sealed
		if v.Kind == SealedMessage { // kept as text (SealMessage)
			if sealed, err = base64.StdEncoding.DecodeString(string(v.Sealed)); err != nil {
				return fmt.Errorf("%w: its oldest %s is not sealed", ErrWrongKey, v.Kind)
			}
		}
		if _, err := s.open(sealed, aadOf(v.Kind, v.Owner)); err != nil {
			return fmt.Errorf("%w: it does not open the oldest %s", ErrWrongKey, v.Kind)
		}
	}
	return nil
}
