package store

import (
	"context"

	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// SavePayoutMethod inserts a method, or updates the one with the same fingerprint and keeps its
// id; m.ID is set to the stored id.
func (q *Queries) SavePayoutMethod(ctx context.Context, m *service.PayoutMethodRecord) (err error) {
	defer wrap(&err, "save payout method of user %s", m.UserID)
	return q.queryRowTouching(ctx, writing(payoutMethodsTable), `INSERT INTO payout_methods (id, app_id, user_id, platform, fingerprint, description, mask,
		email, phone_number, handle, cash_tag, routing_number, account_type, sealed_account, country, currency, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (app_id, user_id, fingerprint) DO UPDATE SET description = excluded.description,
		mask = excluded.mask, routing_number = excluded.routing_number, account_type = excluded.account_type,
		sealed_account = excluded.sealed_account
		RETURNING id`,
		m.ID, m.AppID, m.UserID, m.Platform, m.Fingerprint, m.Description, m.Mask, m.Email, m.PhoneNumber, m.Handle,
		m.CashTag, m.RoutingNumber, m.AccountType, m.SealedAccount, m.Country, m.Currency,
		sqldb.Micros(m.Created.Time)).Scan(&m.ID)
}

// ListPayoutMethods reads the methods of the app's users userIDs, newest first, marking each
// user's default: one user's for most callers, every claimed payout's for the rail worker.
func (q *Queries) ListPayoutMethods(ctx context.Context, appID string, userIDs ...string) (_ []service.PayoutMethodRecord, err error) {
	defer wrap(&err, "list payout methods of users %v", userIDs)
	if len(userIDs) == 0 {
		return nil, nil
	}
	marks, args := idList(userIDs)
	rows, err := q.queryTouching(ctx, reading(payoutMethodsTable), `SELECT m.id, m.user_id, m.platform, m.fingerprint, m.description, m.mask, m.email,
		m.phone_number, m.handle, m.cash_tag, m.routing_number, m.account_type, m.sealed_account, m.country,
		m.currency, m.created, CASE WHEN u.default_method_id = m.id THEN 1 ELSE 0 END
		FROM payout_methods m JOIN users u ON u.id = m.user_id
		WHERE m.app_id = ? AND m.user_id IN (`+marks+`) ORDER BY m.seq DESC`, append([]any{appID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []service.PayoutMethodRecord
	for rows.Next() {
		m := service.PayoutMethodRecord{AppID: appID}
		var created int64
		var isDefault int
		var sealed []byte
		if err := rows.Scan(&m.ID, &m.UserID, &m.Platform, &m.Fingerprint, &m.Description, &m.Mask, &m.Email,
			&m.PhoneNumber, &m.Handle, &m.CashTag, &m.RoutingNumber, &m.AccountType, &sealed, &m.Country,
			&m.Currency, &created, &isDefault); err != nil {
			return nil, err
		}
		m.SealedAccount = sealed
		m.Created = payouts.NewTime(sqldb.FromMicros(created))
		m.Default = isDefault == 1
		out = append(out, m)
	}
	return out, rows.Err()
}

// SetDefaultPayoutMethod makes one of the user's methods the default.
func (q *Queries) SetDefaultPayoutMethod(ctx context.Context, appID, userID, methodID string) (err error) {
	defer wrap(&err, "set default payout method of user %s", userID)
	return q.execOne(ctx, touching{reads: usersTable | payoutMethodsTable, writes: usersTable}, `UPDATE users SET default_method_id = ? WHERE app_id = ? AND id = ?
		AND EXISTS (SELECT 1 FROM payout_methods WHERE id = ? AND app_id = ? AND user_id = ?)`,
		methodID, appID, userID, methodID, appID, userID)
}
