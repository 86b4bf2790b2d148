package dashstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/disburse/disburse/internal/sqldb"
	"github.com/disburse/disburse/payouts"
)

// BulkLease is a running job's hold by one dashboard process: every copy of the dashboard on
// the database sees which process runs the job and until when, and takes over a job whose
// process stopped renewing its lease.
type BulkLease struct {
	JobID string
	Owner string    // the process holding the job; empty when none does
	Until time.Time // when the hold ends unless renewed; zero when none
	// RunByID and RunByEmail are the operator who confirmed the run.
	RunByID, RunByEmail string
}

// Held reports whether a process holds the job at now.
func (l BulkLease) Held(now time.Time) bool { return l.Owner != "" && now.Before(l.Until) }

// ClaimBulkJob marks the app's job running for the operator by, held by owner until until,
// unless a process holds it at now; it reports whether owner got it. The check and the write are
// one statement, so of processes claiming a job at once exactly one gets it.
func (s *Store) ClaimBulkJob(ctx context.Context, appID, id, owner string, by Operator, now, until time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bulk_jobs SET status = ?, lease_owner = ?, lease_until = ?,
		run_by_id = ?, run_by_email = ?, updated_at = ? WHERE app_id = ? AND id = ? AND lease_until <= ?`),
		BulkRunning, owner, sqldb.Micros(until), by.ID, by.Email, sqldb.Micros(now), appID, id, sqldb.Micros(now))
	return oneRow(res, err)
}

// RenewBulkLease extends owner's hold of a job to until; false when owner no longer holds it
// (its lease ended and another process took the job over).
func (s *Store) RenewBulkLease(ctx context.Context, id, owner string, until time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bulk_jobs SET lease_until = ? WHERE id = ? AND lease_owner = ?`),
		sqldb.Micros(until), id, owner)
	return oneRow(res, err)
}

// ReleaseBulkJob ends owner's hold of a job and moves it to status (BulkDone once every row has
// its outcome; BulkRunning leaves it to be taken over); false when owner no longer held it.
func (s *Store) ReleaseBulkJob(ctx context.Context, id, owner string, status BulkStatus, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, s.db.Rebind(`UPDATE bulk_jobs SET status = ?, lease_owner = '', lease_until = 0,
		updated_at = ? WHERE id = ? AND lease_owner = ?`), status, sqldb.Micros(now), id, owner)
	return oneRow(res, err)
}

// BulkJobLease returns the lease of the app's job.
func (s *Store) BulkJobLease(ctx context.Context, appID, id string) (BulkLease, error) {
	l := BulkLease{JobID: id}
	var until int64
	err := s.db.QueryRowContext(ctx, s.db.Rebind(`SELECT lease_owner, lease_until, run_by_id, run_by_email FROM bulk_jobs
		WHERE app_id = ? AND id = ?`), appID, id).Scan(&l.Owner, &until, &l.RunByID, &l.RunByEmail)
	if errors.Is(err, sql.ErrNoRows) {
		return l, payouts.Errorf(payouts.ENotFound, "bulk payout not found")
	}
	if until != 0 {
		l.Until = sqldb.FromMicros(until)
	}
	return l, err
}

// UnheldBulkJobs returns the leases of the app's running jobs that no process holds at now: their
// process died, or stopped on an error. They are for another process to take over.
func (s *Store) UnheldBulkJobs(ctx context.Context, appID string, now time.Time) ([]BulkLease, error) {
	rows, err := s.db.QueryContext(ctx, s.db.Rebind(`SELECT id, lease_owner, lease_until, run_by_id, run_by_email
		FROM bulk_jobs WHERE app_id = ? AND status = ? AND lease_until <= ? ORDER BY created_at, id`),
		appID, BulkRunning, sqldb.Micros(now))
	if err != nil {
		return nil, err
	}
	return sqldb.All(rows, func(rows *sql.Rows) (BulkLease, error) {
		var l BulkLease
		var until int64
		err := rows.Scan(&l.JobID, &l.Owner, &until, &l.RunByID, &l.RunByEmail)
		if until != 0 {
			l.Until = sqldb.FromMicros(until)
		}
		return l, err
	})
}

// oneRow reports whether a statement changed a row.
func oneRow(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}
