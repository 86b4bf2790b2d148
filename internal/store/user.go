package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/disburse/disburse/internal/ledger"
	"github.com/disburse/disburse/internal/service"
	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// userSelect reads users with their wallet account and default payout method's platform.
const userSelect = `SELECT u.seq, u.id, u.app_id, u.first_name, u.last_name, u.email, u.country_code,
	u.phone_number, u.username, u.status, u.verified, m.platform, u.tax_id_collected, u.address_collected,
	u.dob_collected, u.must_collect_1099, u.collected_1099, u.w8ben_collected, u.flagged, u.id_verified,
	u.metadata, u.created, a.id, COALESCE(a.debits_posted, 0), COALESCE(a.credits_posted, 0),
	COALESCE(a.debits_pending, 0), COALESCE(a.credits_pending, 0), u.deleted_at IS NOT NULL, u.unproven_contact
	FROM users u
	LEFT JOIN ledger_accounts a ON a.app_id = u.app_id AND a.kind = '` + string(ledger.UserWallet) + `' AND a.ref = u.id
	LEFT JOIN payout_methods m ON m.id = u.default_method_id`

// readingUsers is what userSelect touches.
var readingUsers = reading(usersTable | accountsTable | payoutMethodsTable)

func scanUser(row interface{ Scan(...any) error }) (service.UserRecord, error) {
	u, _, err := scanUserWallet(row)
	return u, err
}

// scanUserWallet scans a user and its wallet account, nil when the user has none yet: a write
// transaction's book need not read the account again. A deleted user is no record.
func scanUserWallet(row interface{ Scan(...any) error }) (service.UserRecord, *ledger.Account, error) {
	var u service.UserRecord
	var username, platform, md sql.NullString
	var created int64
	var walletID sql.NullInt64
	var a ledger.Account
	var deleted bool
	c := &u.Compliance
	err := row.Scan(&u.Seq, &u.ID, &u.AppID, &u.FirstName, &u.LastName, &u.Email, &u.PhoneNumber.CountryCode,
		&u.PhoneNumber.PhoneNumber, &username, &u.Status, &u.Verified, &platform, &c.TaxIDCollected,
		&c.AddressCollected, &c.DateOfBirthCollected, &c.MustCollect1099, &c.Collected1099, &c.W8BENCollected,
		&c.Flagged, &c.IDVerified, &md, &created, &walletID, &a.DebitsPosted, &a.CreditsPosted,
		&a.DebitsPending, &a.CreditsPending, &deleted, &u.Unproven)
	if err != nil {
		return u, nil, noRecord(err)
	}
	if deleted {
		return u, nil, service.ErrNoRecord
	}
	u.Username = stringPtr(username)
	if platform.Valid {
		p := payouts.Platform(platform.String)
		u.DefaultPayoutMethod = &p
	}
	u.Metadata = metadataOf(md)
	u.Created = payouts.NewTime(sqldb.FromMicros(created))
	u.Wallet = payouts.Wallet{Amount: payouts.Money(a.Balance()), WithdrawableAmount: payouts.Money(a.Available())}
	if !walletID.Valid {
		return u, nil, nil
	}
	a.ID, a.AppID, a.Kind, a.Ref = walletID.Int64, u.AppID, ledger.UserWallet, u.ID
	return u, &a, nil
}

// CreateUser inserts a user. A taken email or username answers the API's conflict error.
func (q *Queries) CreateUser(ctx context.Context, u *service.UserRecord) (err error) {
	defer wrap(&err, "create user")
	var usernameKey sql.NullString
	if u.Username != nil {
		usernameKey = nullString(strings.ToLower(*u.Username))
	}
	// Check first so the answer can say which key is taken; the unique indexes still decide.
	var taken string
	err = q.queryRowTouching(ctx, reading(usersTable), `SELECT CASE WHEN email_key = ? THEN 'email' ELSE 'username' END FROM users
		WHERE app_id = ? AND deleted_at IS NULL AND (email_key = ? OR username_key = ?) LIMIT 1`,
		strings.ToLower(u.Email), u.AppID, strings.ToLower(u.Email), usernameKey).Scan(&taken)
	switch {
	case err == nil && taken == "email":
		return emailTaken()
	case err == nil:
		return payouts.Errorf(payouts.EUsernameExists, "A user with this username already exists.")
	case err != sql.ErrNoRows:
		return err
	}
	err = q.queryRowTouching(ctx, writing(usersTable), `INSERT INTO users (id, app_id, first_name, last_name, email, email_key, country_code,
		phone_number, username, username_key, status, verified, metadata, search, created, unproven_contact)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
		u.ID, u.AppID, u.FirstName, u.LastName, u.Email, strings.ToLower(u.Email), u.PhoneNumber.CountryCode,
		u.PhoneNumber.PhoneNumber, sqlNullPtr(u.Username), usernameKey, u.Status, u.Verified,
		metadataValue(u.Metadata), payouts.UserSearchText(u.User), sqldb.Micros(u.Created.Time), u.Unproven).Scan(&u.Seq)
	if sqldb.IsUniqueViolation(err) {
		return emailTaken() // a concurrent create won the race for the same key
	}
	return err
}

func emailTaken() error {
	return payouts.Errorf(payouts.EEmailExists, "A user with this email already exists.")
}

func sqlNullPtr(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

// GetUser reads a user who is not deleted.
func (q *Queries) GetUser(ctx context.Context, appID, id string) (_ *service.UserRecord, err error) {
	defer wrap(&err, "get user %s", id)
	// By the unique id alone, the app and deletion checked here (TestUserByIDPlan): before the
	// table's first ANALYZE PostgreSQL's planner cannot tell the id index from an (app_id, ...)
	// one, and takes the partial indexes on deleted_at IS NULL for tiny; either way it may read
	// every user of the app to find one.
	u, wallet, ok := q.batchReads().user(appID, id)
	if !ok {
		read, readWallet, err := scanUserWallet(q.queryRowLocked(ctx, readingUsers, userSelect+` WHERE u.id = ?`, "u", id))
		if err == nil && read.AppID != appID {
			err = service.ErrNoRecord
		}
		if err != nil {
			return nil, err
		}
		u, wallet = &read, readWallet
	}
	if q.job != nil {
		if wallet != nil {
			q.job.seen(wallet) // the book's lookup of the wallet then costs no read
		}
		q.job.wallet(u)
	}
	return u, nil
}

// ListUsers reads a page of the app's users, newest first.
func (q *Queries) ListUsers(ctx context.Context, appID string, page payouts.Page, f payouts.UserFilter) (_ []service.UserRecord, _ bool, err error) {
	defer wrap(&err, "list users")
	l := listQuery{selectFrom: userSelect, order: "u.seq", cursor: q.seqCursor("users", appID)}
	l.filter("u.app_id = ?", appID)
	l.filter("u.deleted_at IS NULL")
	if f.Status != "" {
		l.filter("u.status = ?", f.Status)
	}
	if f.Search != "" {
		l.search("u.search", f.Search)
	}
	return run(ctx, q, l, page, func(r *sql.Rows) (service.UserRecord, error) { return scanUser(r) })
}

// UpdateUser writes a user's status, verification, compliance flags and metadata.
func (q *Queries) UpdateUser(ctx context.Context, u *service.UserRecord) (err error) {
	defer wrap(&err, "update user %s", u.ID)
	c := u.Compliance
	return q.execOne(ctx, writing(usersTable), `UPDATE users SET status = ?, verified = ?, tax_id_collected = ?, address_collected = ?,
		dob_collected = ?, must_collect_1099 = ?, collected_1099 = ?, w8ben_collected = ?, flagged = ?,
		id_verified = ?, metadata = ? WHERE app_id = ? AND id = ? AND deleted_at IS NULL`,
		u.Status, u.Verified, c.TaxIDCollected, c.AddressCollected, c.DateOfBirthCollected, c.MustCollect1099,
		c.Collected1099, c.W8BENCollected, c.Flagged, c.IDVerified, metadataValue(u.Metadata), u.AppID, u.ID)
}

// DeleteUser marks a user deleted; its email and username become free again.
func (q *Queries) DeleteUser(ctx context.Context, appID, id string, at time.Time) (err error) {
	defer wrap(&err, "delete user %s", id)
	return q.execOne(ctx, writing(usersTable), `UPDATE users SET deleted_at = ?, status = ? WHERE app_id = ? AND id = ? AND deleted_at IS NULL`,
		sqldb.Micros(at), payouts.UserDisabled, appID, id)
}

// SaveVerification stores the user's outstanding token, replacing any earlier one.
func (q *Queries) SaveVerification(ctx context.Context, v *service.VerificationRecord) (err error) {
	defer wrap(&err, "save verification of user %s", v.UserID)
	_, err = q.execTouching(ctx, writingOthers, `INSERT INTO verifications (app_id, user_id, token_hash, expires, attempts) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (app_id, user_id) DO UPDATE SET token_hash = excluded.token_hash, expires = excluded.expires,
		attempts = excluded.attempts`, v.AppID, v.UserID, v.TokenHash, sqldb.Micros(v.Expires), v.Attempts)
	return err
}

// GetVerification reads the user's outstanding token.
func (q *Queries) GetVerification(ctx context.Context, appID, userID string) (_ *service.VerificationRecord, err error) {
	defer wrap(&err, "get verification of user %s", userID)
	v := service.VerificationRecord{AppID: appID, UserID: userID}
	var expires int64
	err = q.queryRowTouching(ctx, readingOthers, `SELECT token_hash, expires, attempts FROM verifications WHERE app_id = ? AND user_id = ?`,
		appID, userID).Scan(&v.TokenHash, &expires, &v.Attempts)
	if err != nil {
		return nil, noRecord(err)
	}
	v.Expires = sqldb.FromMicros(expires)
	return &v, nil
}

// DeleteVerification forgets the user's token.
func (q *Queries) DeleteVerification(ctx context.Context, appID, userID string) (err error) {
	defer wrap(&err, "delete verification of user %s", userID)
	_, err = q.execTouching(ctx, writingOthers, `DELETE FROM verifications WHERE app_id = ? AND user_id = ?`, appID, userID)
	return err
}

// FindUsersByProvenPhone reads up to two of the app's users whose phone is this one and was not
// typed unproven on a hosted page: two say the phone is ambiguous, which the caller refuses.
func (q *Queries) FindUsersByProvenPhone(ctx context.Context, appID string, phone payouts.Phone) (_ []service.UserRecord, err error) {
	defer wrap(&err, "find users by phone")
	rows, err := q.queryTouching(ctx, readingUsers, userSelect+` WHERE u.app_id = ? AND u.deleted_at IS NULL
		AND u.country_code = ? AND u.phone_number = ? AND u.unproven_contact <> 'phone' ORDER BY u.seq LIMIT 2`,
		appID, phone.CountryCode, phone.PhoneNumber)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var users []service.UserRecord
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, rows.Err()
}

// FindUserByProvenEmail reads the app's user with this email, unless a payee typed it unproven
// on a hosted page.
func (q *Queries) FindUserByProvenEmail(ctx context.Context, appID, email string) (_ *service.UserRecord, err error) {
	defer wrap(&err, "find user by email")
	u, err := scanUser(q.queryRowTouching(ctx, readingUsers, userSelect+` WHERE u.app_id = ? AND u.deleted_at IS NULL
		AND u.email_key = ? AND u.unproven_contact <> 'email'`, appID, strings.ToLower(email)))
	if err != nil {
		return nil, err
	}
	return &u, nil
}
