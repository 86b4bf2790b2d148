package service

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/disburse/disburse/payouts"
)

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, errors.New("service: encryption key must be 32 bytes (AES-256)")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts plaintext with AES-GCM; the nonce is stored in front. aad binds the ciphertext
// to its row (for example the user id) so a sealed value copied elsewhere does not open.
func (s *Service) seal(plaintext []byte, aad string) []byte { return sealWith(s.aead, plaintext, aad) }

func sealWith(aead cipher.AEAD, plaintext []byte, aad string) []byte {
	nonce := make([]byte, aead.NonceSize())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, plaintext, []byte(aad))
}

// open reverses seal.
func (s *Service) open(sealed []byte, aad string) ([]byte, error) {
	return openWith(s.aead, sealed, aad)
}

func openWith(aead cipher.AEAD, sealed []byte, aad string) ([]byte, error) {
	n := aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("service: sealed value too short")
	}
	return aead.Open(nil, sealed[:n], sealed[n:], []byte(aad))
}

// SealedKind is a kind of value the service seals, which decides what it is bound to (aadOf).
type SealedKind string

// The kinds of sealed values, as a person reads them.
const (
	SealedAppBank       SealedKind = "app's bank account number"
	SealedAppCompliance SealedKind = "app's compliance details"
	SealedAccount       SealedKind = "payee's bank account number"
	SealedTaxForm       SealedKind = "tax form"
	SealedTaxReturn     SealedKind = "1099-NEC form"
	SealedWebhookSecret SealedKind = "webhook endpoint secret"
	SealedMessage       SealedKind = "sandbox message"
)

// aadOf is the associated data a value of kind is sealed with: its row, named by owner (the id
// of the app, the payee or the endpoint), so that a sealed value copied to another row does not
// open.
func aadOf(kind SealedKind, owner string) string {
	switch kind {
	case SealedAppBank:
		return "bank:" + owner
	case SealedAppCompliance:
		return "compliance:" + owner
	case SealedAccount:
		return "account:" + owner
	case SealedTaxForm:
		return "taxform:" + owner
	case SealedTaxReturn:
		return "taxreturn:" + owner
	case SealedMessage:
		return "message:" + owner
	}
	return owner // a webhook secret: the endpoint's id as it is
}

// keyedHash is an HMAC under a key derived from the encryption key, for values that must be
// compared but never read back (verification tokens, payout method fingerprints).
func (s *Service) keyedHash(parts ...string) string {
	mac := hmac.New(sha256.New, s.hmacKey())
	for _, p := range parts {
		fmt.Fprintf(mac, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

func (s *Service) hmacKey() []byte {
	h := sha256.Sum256(append([]byte("disburse hmac key:"), s.cfg.EncryptionKey...))
	return h[:]
}

// claimKey is the secret the claim URL of a payout link that names nobody carries, and the
// URL of its flow: link ids are on every operator's screen, so without it anyone who sees an id
// could claim the money. It is derived, never stored, under a key of its own derived from the
// encryption key; 22 base64url characters are 132 bits.
func (s *Service) claimKey(linkID string) string {
	sub := hmac.New(sha256.New, s.cfg.EncryptionKey)
	sub.Write([]byte("disburse payout link claim key"))
	mac := hmac.New(sha256.New, sub.Sum(nil))
	mac.Write([]byte("payout-link-claim:" + linkID))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))[:22]
}

// claimKeyOf is the claim key a link's URLs carry: none for a link that names its payee, who
// proves their own contact anyway.
func (s *Service) claimKeyOf(l *payouts.PayoutLink) string {
	if l == nil || l.NamesPayee() {
		return ""
	}
	return s.claimKey(l.ID)
}

// randomDigits returns n random decimal digits.
func randomDigits(n int) string {
	const max = 250 // largest multiple of 10 below 256, so every digit is equally likely
	out := make([]byte, 0, n)
	buf := make([]byte, 1)
	for len(out) < n {
		rand.Read(buf)
		if buf[0] < max {
			out = append(out, '0'+buf[0]%10)
		}
	}
	return string(out)
}
