package dashstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// The dashboard that embeds the Payout Service creates an app in it on first start. The service
// shows an app's API key only once, so the dashboard keeps the credentials here to reuse them on
// every later start. The key is kept in clear because the dashboard must send it; protect the
// database (the SQLite folder is created 0700) as you protect the key itself.

// ServiceCredentials returns the credentials saved under name.
func (s *Store) ServiceCredentials(ctx context.Context, name string) (payouts.Credentials, error) {
	var c payouts.Credentials
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT name, app_id, client_id, api_key
		FROM service_credentials WHERE name = ?`), name).Scan(&c.Name, &c.AppID, &c.ClientID, &c.APIKey)
	if errors.Is(err, sql.ErrNoRows) {
		return c, payouts.Errorf(payouts.ENotFound, "no saved credentials for %q", name)
	}
	return c, err
}

// SaveServiceCredentials saves c under c.Name, replacing any saved before.
func (s *Store) SaveServiceCredentials(ctx context.Context, c payouts.Credentials, now time.Time) error {
	if c.Name == "" || c.ClientID == "" || c.APIKey == "" {
		return payouts.Errorf(payouts.EInvalidInput, "credentials need a name, a client id and a key")
	}
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`INSERT INTO service_credentials
		(name, app_id, client_id, api_key, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET app_id = excluded.app_id, client_id = excluded.client_id,
			api_key = excluded.api_key, created_at = excluded.created_at`),
		c.Name, c.AppID, c.ClientID, c.APIKey, sqldb.Micros(now))
	return err
}
