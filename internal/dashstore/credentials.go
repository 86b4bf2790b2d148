package dashstore

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// The dashboard that embeds the Payout Service creates an app in it on first start. The service
// shows an app's API key only once, so the dashboard keeps the credentials here to reuse them on
// every later start. The key is sealed with AES-256-GCM under a key the caller passes (kept in a
// file beside a SQLite database, or configured): a copy of the database alone does not give the
// API key away. A key saved in clear by an older version is sealed on first read.

// sealedPrefix marks a sealed api_key; API keys never start with it.
const sealedPrefix = "sealed1:"

// ServiceCredentials returns the credentials saved under name, opening the API key with key.
func (s *Store) ServiceCredentials(ctx context.Context, name string, key []byte) (payouts.Credentials, error) {
	var c payouts.Credentials
	var stored string
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT name, app_id, client_id, api_key
		FROM service_credentials WHERE name = ?`), name).Scan(&c.Name, &c.AppID, &c.ClientID, &stored)
	if errors.Is(err, sql.ErrNoRows) {
		return c, payouts.Errorf(payouts.ENotFound, "no saved credentials for %q", name)
	}
	if err != nil {
		return c, err
	}
	sealed, isSealed := strings.CutPrefix(stored, sealedPrefix)
	if !isSealed {
		c.APIKey = stored
		return c, s.sealCredentials(ctx, c, key)
	}
	c.APIKey, err = openSecret(key, sealed, credentialsAAD(name))
	if err != nil {
		return c, fmt.Errorf("saved credentials for %q: %w (is this the dashboard database's key?)", name, err)
	}
	return c, nil
}

// sealCredentials replaces a clear API key saved before sealing with its sealed form.
func (s *Store) sealCredentials(ctx context.Context, c payouts.Credentials, key []byte) error {
	sealed, err := sealSecret(key, c.APIKey, credentialsAAD(c.Name))
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, s.db.Rebind(`UPDATE service_credentials SET api_key = ? WHERE name = ? AND api_key = ?`),
		sealed, c.Name, c.APIKey)
	return err
}

// SaveServiceCredentials saves c under c.Name, its API key sealed with key, replacing any saved
// before.
func (s *Store) SaveServiceCredentials(ctx context.Context, c payouts.Credentials, key []byte, now time.Time) error {
	if c.Name == "" || c.ClientID == "" || c.APIKey == "" {
		return payouts.Errorf(payouts.EInvalidInput, "credentials need a name, a client id and a key")
	}
	sealed, err := sealSecret(key, c.APIKey, credentialsAAD(c.Name))
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO service_credentials
		(name, app_id, client_id, api_key, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET app_id = excluded.app_id, client_id = excluded.client_id,
			api_key = excluded.api_key, created_at = excluded.created_at`),
		c.Name, c.AppID, c.ClientID, sealed, sqldb.Micros(now))
	return err
}

// credentialsAAD binds a sealed key to its row, so a value copied to another row does not open.
func credentialsAAD(name string) []byte { return []byte("service_credentials:" + name) }

func newGCM(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("dashstore: encryption key is %d bytes, want 32 (AES-256)", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// sealSecret returns sealedPrefix and base64 of a fresh nonce followed by the ciphertext.
func sealSecret(key []byte, plaintext string, aad []byte) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	return sealedPrefix + base64.StdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(plaintext), aad)), nil
}

// openSecret reverses sealSecret (without the prefix).
func openSecret(key []byte, sealed string, aad []byte) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < gcm.NonceSize() {
		return "", errors.New("sealed value is damaged")
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], aad)
	if err != nil {
		return "", errors.New("sealed value does not open with this key")
	}
	return string(plain), nil
}
