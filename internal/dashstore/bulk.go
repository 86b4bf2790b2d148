package dashstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// BulkStatus is where a bulk payout job stands.
type BulkStatus string

const (
	BulkPreviewed BulkStatus = "previewed" // validated, waiting for an operator to confirm
	BulkRunning   BulkStatus = "running"   // confirmed; rows are being paid
	BulkDone      BulkStatus = "done"      // every good row has its outcome
)

// Outcomes of a bulk row.
const (
	BulkPaid    = "paid"    // its payout completed, or its wallet credit was made
	BulkFailed  = "failed"  // the service refused or failed it
	BulkSkipped = "skipped" // it had a problem, so it was never sent
	// BulkSent is a row whose payout the service accepted and has not completed: it is on its
	// rail and becomes paid or failed as its transfer does.
	BulkSent = "sent"
	// BulkHeld is a row whose payout the service holds for review (a flagged transfer).
	BulkHeld = "held"
	// BulkUnsettled is a row sent in a transfer batch that had not finished when the job stopped
	// waiting for it: the batch may still pay it, so it is neither paid nor failed until asked again.
	BulkUnsettled = "unsettled"
)

// BulkJob is one uploaded CSV of payouts. A file is one job per app, found again by its SHA-256,
// so uploading it again shows the same job instead of paying it twice.
type BulkJob struct {
	ID         string
	AppID      string
	FileHash   string // hex SHA-256 of the file's bytes
	FileName   string
	OperatorID string // who uploaded it
	Status     BulkStatus
	Created    time.Time
	Updated    time.Time
	// RepeatsConfirmedBy is the operator, never the uploader, who confirmed paying the rows that
	// repeat an earlier job's (BulkRepeats); empty until one does.
	RepeatsConfirmedBy, RepeatsConfirmedEmail string
	RepeatsConfirmed                          time.Time
}

// BulkRow is one row of a job's file as the dashboard read it, with its outcome once run.
type BulkRow struct {
	Row        int    // 1 = the first row after the header
	UserRef    string // as written: a user id or an email
	UserID     string // the user it resolved to; empty when it did not
	Amount     int64  // cents
	Memo       string
	Method     string // "wallet", or a payout platform
	Problem    string // why the row will not be paid; empty for a good row
	Outcome    string // empty until run; BulkPaid, BulkSent, BulkHeld, BulkFailed, BulkSkipped or BulkUnsettled
	TransferID string
	Error      string
	BatchID    string // the transfer batch an unsettled row waits in
}

// Sent reports whether the row's payment was made (paid, or its payout on its rail or held for
// review): a run never sends it again, and an approval does not count it as still to send.
func (r BulkRow) Sent() bool {
	return r.Outcome == BulkPaid || r.Outcome == BulkSent || r.Outcome == BulkHeld
}

// BulkWallet is the method of a bulk row that credits the payee's wallet instead of paying out.
const BulkWallet = "wallet"

// A job's rows are stored bulkRowsPerInsert to a statement, of 11 values each: well inside
// sqldb.MaxParams. On SQLite, a hundred to a prepared statement beat both one row to a
// statement and larger chunks (BenchmarkCreateBulkJob).
const bulkRowsPerInsert = 100

// CreateBulkJob records job and its rows, setting the job's ID. When the app already has a job
// for the same file, nothing is written and that job is returned with created false.
func (s *Store) CreateBulkJob(ctx context.Context, job *BulkJob, rows []BulkRow) (created bool, err error) {
	if existing, err := s.BulkJobByHash(ctx, job.AppID, job.FileHash); err == nil {
		*job = existing
		return false, nil
	} else if payouts.ErrorCode(err) != payouts.ENotFound {
		return false, err
	}
	job.ID = uuid.NewString()
	err = s.db.InTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.db.Rebind(`INSERT INTO bulk_jobs (id, app_id, file_hash, file_name, operator_id,
			status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), job.ID, job.AppID, job.FileHash, job.FileName,
			job.OperatorID, job.Status, sqldb.Micros(job.Created), sqldb.Micros(job.Created)); err != nil {
			return err
		}
		return sqldb.InsertRows(s.db.Dialect, len(rows), bulkRowsPerInsert, `INSERT INTO bulk_rows (job_id, row_num, user_ref, user_id,
			amount, memo, method, problem, outcome, transfer_id, error)`, func(i int) []any {
			r := rows[i]
			return []any{job.ID, r.Row, r.UserRef, r.UserID, r.Amount, r.Memo, r.Method, r.Problem, r.Outcome,
				r.TransferID, r.Error}
		}, "", func(query string, args []any) error {
			query = s.db.Rebind(query)
			// On SQLite InsertRows makes a few texts (whole chunks, then powers of two), so each is
			// prepared once (compiling it would cost more than the rows) and kept.
			if stmt := s.db.Prepared(ctx, tx, query); stmt != nil {
				_, err := stmt.ExecContext(ctx, args...)
				return err
			}
			_, err := tx.ExecContext(ctx, query, args...)
			return err
		})
	})
	if sqldb.IsUniqueViolation(err) { // the same file, uploaded twice at once
		*job, err = s.BulkJobByHash(ctx, job.AppID, job.FileHash)
		return false, err
	}
	return err == nil, err
}

const bulkJobColumns = `id, app_id, file_hash, file_name, operator_id, status, created_at, updated_at,
	repeats_confirmed_by, repeats_confirmed_email, repeats_confirmed_at`

// BulkJob returns the app's job with id; another app's job is not found.
func (s *Store) BulkJob(ctx context.Context, appID, id string) (BulkJob, error) {
	return s.bulkJob(ctx, `SELECT `+bulkJobColumns+` FROM bulk_jobs WHERE app_id = ? AND id = ?`, appID, id)
}

// BulkJobByHash returns the app's job for the file with hash.
func (s *Store) BulkJobByHash(ctx context.Context, appID, hash string) (BulkJob, error) {
	return s.bulkJob(ctx, `SELECT `+bulkJobColumns+` FROM bulk_jobs WHERE app_id = ? AND file_hash = ?`, appID, hash)
}

func (s *Store) bulkJob(ctx context.Context, q string, args ...any) (BulkJob, error) {
	j, err := scanBulkJob(s.db.QueryRowContext(ctx, s.db.Rebind(q), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return BulkJob{}, payouts.Errorf(payouts.ENotFound, "bulk payout not found")
	}
	return j, err
}

// scanBulkJob reads the bulkJobColumns of a row.
func scanBulkJob(row interface{ Scan(...any) error }) (BulkJob, error) {
	var j BulkJob
	var created, updated, confirmed int64
	err := row.Scan(&j.ID, &j.AppID, &j.FileHash, &j.FileName, &j.OperatorID, &j.Status, &created, &updated,
		&j.RepeatsConfirmedBy, &j.RepeatsConfirmedEmail, &confirmed)
	j.Created, j.Updated = sqldb.FromMicros(created), sqldb.FromMicros(updated)
	if confirmed != 0 {
		j.RepeatsConfirmed = sqldb.FromMicros(confirmed)
	}
	return j, err
}

// SetBulkStatus moves a job to status.
func (s *Store) SetBulkStatus(ctx context.Context, id string, status BulkStatus, now time.Time) error {
	_, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bulk_jobs SET status = ?, updated_at = ? WHERE id = ?`),
		status, sqldb.Micros(now), id)
	return err
}

// BulkRows returns every row of a job in file order.
func (s *Store) BulkRows(ctx context.Context, jobID string) ([]BulkRow, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT row_num, user_ref, user_id, amount, memo, method, problem,
		outcome, transfer_id, error, batch_id FROM bulk_rows WHERE job_id = ? ORDER BY row_num`), jobID)
	if err != nil {
		return nil, err
	}
	return sqldb.All(rows, func(rows *sql.Rows) (BulkRow, error) {
		var r BulkRow
		err := rows.Scan(&r.Row, &r.UserRef, &r.UserID, &r.Amount, &r.Memo, &r.Method, &r.Problem, &r.Outcome,
			&r.TransferID, &r.Error, &r.BatchID)
		return r, err
	})
}

// SetBulkOutcomes records the outcomes of rows of a job (their Outcome, TransferID, Error and
// BatchID), in one transaction.
func (s *Store) SetBulkOutcomes(ctx context.Context, jobID string, rows []BulkRow) error {
	return s.db.InTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, s.db.Rebind(`UPDATE bulk_rows SET outcome = ?, transfer_id = ?, error = ?,
			batch_id = ? WHERE job_id = ? AND row_num = ?`))
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, r := range rows {
			if _, err := stmt.ExecContext(ctx, r.Outcome, r.TransferID, r.Error, r.BatchID, jobID, r.Row); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteBulkJob removes the app's job with id and, by ON DELETE CASCADE, its rows, when it has
// not been confirmed: a confirmed job is a record of what was paid.
func (s *Store) DeleteBulkJob(ctx context.Context, appID, id string) error {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`DELETE FROM bulk_jobs WHERE app_id = ? AND id = ? AND status = ?`),
		appID, id, BulkPreviewed)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return payouts.Errorf(payouts.EInvalidTransaction, "only a bulk payout not yet confirmed can be canceled")
	}
	return nil
}

// BulkJobs returns the app's latest jobs, newest first, at most limit.
func (s *Store) BulkJobs(ctx context.Context, appID string, limit int) ([]BulkJob, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT `+bulkJobColumns+` FROM bulk_jobs WHERE app_id = ?
		ORDER BY created_at DESC, id LIMIT ?`), appID, limit)
	if err != nil {
		return nil, err
	}
	return sqldb.All(rows, func(rows *sql.Rows) (BulkJob, error) { return scanBulkJob(rows) })
}

// FollowedBulkJobs returns the ids of the app's finished jobs with a row still sent or held:
// the jobs whose rows the dashboard follows until their payouts end.
func (s *Store) FollowedBulkJobs(ctx context.Context, appID string) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT j.id FROM bulk_jobs j WHERE j.app_id = ? AND j.status = ?
		AND EXISTS (SELECT 1 FROM bulk_rows r WHERE r.job_id = j.id AND r.outcome IN (?, ?) AND r.transfer_id <> '')
		ORDER BY j.created_at, j.id`), appID, BulkDone, BulkSent, BulkHeld)
	if err != nil {
		return nil, err
	}
	return sqldb.All(rows, func(rows *sql.Rows) (string, error) {
		var id string
		err := rows.Scan(&id)
		return id, err
	})
}

// CountFailedBulkRows counts the app's bulk rows that failed without a transfer (the service
// refused them, or they were not sent) in jobs that last ran at since or later, for the overview.
// A row whose transfer failed is left out: it is a failed transfer, counted with those.
func (s *Store) CountFailedBulkRows(ctx context.Context, appID string, since time.Time) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT COUNT(*) FROM bulk_jobs j JOIN bulk_rows r ON r.job_id = j.id
		WHERE j.app_id = ? AND j.updated_at >= ? AND r.outcome = ? AND r.transfer_id = ''`),
		appID, sqldb.Micros(since), BulkFailed).Scan(&n)
	return n, err
}

// BulkRepeat is a row of a job that pays what a row of an earlier job of the app pays.
type BulkRepeat struct {
	Row          int // the row of the job asked about
	EarlierJobID string
	EarlierFile  string
	EarlierRow   int
	Earlier      time.Time // when the earlier job was uploaded
}

// BulkRepeats returns the rows of job that pay what a row of an earlier job of its app paid, one
// per row (the earliest match), in row order. A row pays what another paid when it pays the same
// user (the id its user id or email resolved to, so no spelling of the payee is new) the same
// cents by the same method, "default" being the same as any payout platform (it may be any of
// them when paid). The memo says what a payment is for, not what it pays: it is no part of it, so
// editing or dropping it never makes a row new. Rows are compared by their own columns, so rows
// stored before migration 0009 (when a hash with the memo in it was compared) are compared too.
// Earlier means uploaded before job (by time, then id, so of two jobs uploaded at once on two
// dashboards the second is the repeat) and either on the same UTC day as job or no more than
// window before it, whichever reaches further back: a short window never lets a file pay again
// on the day it was paid. A row on either side with a problem is no repeat, nor is an
// earlier row that was skipped: neither was ever sent. A job canceled before it ran is gone
// with its rows, so it makes no repeats.
func (s *Store) BulkRepeats(ctx context.Context, job BulkJob, window time.Duration) ([]BulkRepeat, error) {
	created := job.Created.UTC()
	since := time.Date(created.Year(), created.Month(), created.Day(), 0, 0, 0, 0, time.UTC)
	if w := created.Add(-window); w.Before(since) {
		since = w
	}
	// SQL narrows both sides to the payees and amounts the job pays, through bulk_rows_payment;
	// the method's rule is in Go, once (firstRepeated). A file of many rows to few payees matches
	// many earlier rows each, so the rows are not joined to each other here: that product grows
	// with the square of the file.
	mine, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT row_num, user_id, amount, method FROM bulk_rows
		WHERE job_id = ? AND user_id <> '' AND problem = '' ORDER BY row_num`), job.ID)
	if err != nil {
		return nil, err
	}
	rows, err := sqldb.All(mine, func(rows *sql.Rows) (BulkRow, error) {
		var r BulkRow
		err := rows.Scan(&r.Row, &r.UserID, &r.Amount, &r.Method)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	found, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT e.user_id, e.amount, e.method, e.row_num, ej.id, ej.file_name,
			ej.created_at
		FROM (SELECT DISTINCT user_id, amount FROM bulk_rows WHERE job_id = ? AND user_id <> '' AND problem = '') m
		JOIN bulk_rows e ON e.user_id = m.user_id AND e.amount = m.amount
		JOIN bulk_jobs ej ON ej.id = e.job_id
		WHERE e.job_id <> ? AND e.problem = '' AND e.outcome <> ?
			AND ej.app_id = ? AND ej.created_at >= ? AND (ej.created_at < ? OR (ej.created_at = ? AND ej.id < ?))
		ORDER BY ej.created_at, ej.id, e.row_num`), job.ID, job.ID, BulkSkipped, job.AppID, sqldb.Micros(since),
		sqldb.Micros(job.Created), sqldb.Micros(job.Created), job.ID)
	if err != nil {
		return nil, err
	}
	type earlierRow struct {
		BulkRow
		BulkRepeat
	}
	earlier, err := sqldb.All(found, func(rows *sql.Rows) (earlierRow, error) {
		var e earlierRow
		var at int64
		err := rows.Scan(&e.UserID, &e.Amount, &e.Method, &e.EarlierRow, &e.EarlierJobID, &e.EarlierFile, &at)
		e.Earlier = sqldb.FromMicros(at)
		return e, err
	})
	if err != nil {
		return nil, err
	}
	// The earliest earlier row of each payee and amount, by method: what firstRepeated asks.
	type payment struct {
		user   string
		amount int64
	}
	firsts := map[payment]map[string]int{}
	for i, e := range earlier {
		p := payment{e.UserID, e.Amount}
		if firsts[p] == nil {
			firsts[p] = map[string]int{}
		}
		for _, m := range []string{e.Method, bulkAnyPayout} {
			if _, seen := firsts[p][m]; !seen && (m != bulkAnyPayout || e.Method != BulkWallet) {
				firsts[p][m] = i
			}
		}
	}
	var out []BulkRepeat
	for _, r := range rows {
		if i, ok := firstRepeated(firsts[payment{r.UserID, r.Amount}], r.Method); ok {
			rep := earlier[i].BulkRepeat
			rep.Row = r.Row
			out = append(out, rep)
		}
	}
	return out, nil
}

// bulkAnyPayout keys the earliest earlier row paid out by any platform (not to the wallet).
const bulkAnyPayout = "\x00payout"

// firstRepeated picks, from the earliest earlier row by method (and bulkAnyPayout) of one payee
// and amount, the earliest a row paying by method repeats: the same method, where "default" is
// the same as any payout platform (it may be any of them when paid) and the wallet only itself.
func firstRepeated(first map[string]int, method string) (int, bool) {
	switch method {
	case BulkWallet:
		i, ok := first[BulkWallet]
		return i, ok
	case string(payouts.PlatformDefault):
		i, ok := first[bulkAnyPayout]
		return i, ok
	}
	i, ok := first[method]
	if d, dok := first[string(payouts.PlatformDefault)]; dok && (!ok || d < i) {
		i, ok = d, true
	}
	return i, ok
}

// ConfirmBulkRepeats records that by confirmed paying the repeated rows of the app's job id
// again. Only while the job has not run (it is still previewed: what a run skipped stays
// skipped) and never by the operator who uploaded it; false when either refuses it.
func (s *Store) ConfirmBulkRepeats(ctx context.Context, appID, id string, by Operator, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bulk_jobs SET repeats_confirmed_by = ?, repeats_confirmed_email = ?,
		repeats_confirmed_at = ?, updated_at = ? WHERE app_id = ? AND id = ? AND status = ? AND operator_id <> ?`),
		by.ID, by.Email, sqldb.Micros(now), sqldb.Micros(now), appID, id, BulkPreviewed, by.ID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
