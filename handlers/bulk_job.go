package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
)

// bulkPayoutChunk is how many payout rows a job sends before it records their outcomes.
const bulkPayoutChunk = 100

// startBulkJob runs a confirmed job in the background, for the operator by, and returns at
// once. It needs nothing of the request that confirmed it, so the job outlives the request;
// approvals call it too, once a second operator has approved a job, and TakeOverBulkJobs for a
// job no process holds. The job is claimed in the database first (dashstore.ClaimBulkJob): a job
// another process, or this one, holds is left to run; one whose process died is run again, and
// the rows' idempotency keys keep it from paying twice.
func (h *Handlers) startBulkJob(ctx context.Context, jobID string, by dashstore.Operator) error {
	now := h.now()
	claimed, err := h.store.ClaimBulkJob(ctx, h.appID, jobID, h.instance, by, now, now.Add(h.bulkLease))
	if err != nil || !claimed {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	run, stop := context.WithCancel(ctx)
	go func() {
		defer stop()
		status := dashstore.BulkRunning // unless it ends well: left for a process to take over
		// A panic here would end the whole dashboard, which no request's recover covers.
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("bulk payout job panicked", "job", jobID, "panic", p)
			}
			if held, err := h.store.ReleaseBulkJob(ctx, jobID, h.instance, status, h.now()); err != nil || !held {
				h.log.Error("bulk payout job ended without its lease", "job", jobID, "held", held, "err", err)
			}
		}()
		go h.renewBulkLease(run, stop, jobID)
		err := h.runBulkJob(run, jobID, by)
		if err != nil {
			h.log.Error("bulk payout job stopped", "job", jobID, "err", err)
			return
		}
		status = dashstore.BulkDone
	}()
	return nil
}

// renewBulkLease extends this process's hold of a running job every third of the lease until
// ctx ends; a hold lost (the lease ran out and another process took the job over) stops the run.
func (h *Handlers) renewBulkLease(ctx context.Context, stop context.CancelFunc, jobID string) {
	tick := time.NewTicker(h.bulkLease / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		held, err := h.store.RenewBulkLease(ctx, jobID, h.instance, h.now().Add(h.bulkLease))
		if err == nil && !held {
			h.log.Error("bulk payout job lost its lease to another process; stopping here", "job", jobID)
			stop()
			return
		}
		if err != nil && ctx.Err() == nil {
			h.log.Error("renewing a bulk payout job's lease", "job", jobID, "err", err)
		}
	}
}

// TakeOverBulkJobs runs, until ctx ends, the app's running bulk jobs that no dashboard process
// holds: their process died or stopped on an error. It looks every half lease; of the processes
// that look at once, one claims each job.
func (h *Handlers) TakeOverBulkJobs(ctx context.Context) {
	if h.appID == "" {
		return
	}
	tick := time.NewTicker(h.bulkLease / 2)
	defer tick.Stop()
	for {
		leases, err := h.store.UnheldBulkJobs(ctx, h.appID, h.now())
		if err != nil && ctx.Err() == nil {
			h.log.Error("looking for bulk payout jobs to take over", "err", err)
		}
		for _, l := range leases {
			h.log.Info("taking over a bulk payout job", "job", l.JobID, "previous_owner", l.Owner)
			if err := h.startBulkJob(ctx, l.JobID, dashstore.Operator{ID: l.RunByID, Email: l.RunByEmail}); err != nil && ctx.Err() == nil {
				h.log.Error("taking over a bulk payout job", "job", l.JobID, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// runBulkJob pays every good row not yet paid: wallet rows as transfer batches of up to 1,000,
// payout rows one call each, bulkParallel at a time. Rows with a problem, and rows repeating an
// earlier file's that no second operator confirmed, are recorded as skipped.
// Outcomes are recorded chunk by chunk, so the progress bar moves and a crash loses little; the
// caller marks the job done.
func (h *Handlers) runBulkJob(ctx context.Context, jobID string, by dashstore.Operator) error {
	// Read once the job is claimed: its repeats can no longer be confirmed, so what is read here
	// is what the run may pay.
	job, rows, _, err := h.bulkRowsOf(ctx, jobID)
	if err != nil {
		return err
	}
	var skipped, transfers, payoutRows []dashstore.BulkRow
	unsettled := map[string][]dashstore.BulkRow{} // by batch
	for _, r := range rows {
		switch {
		case r.Problem != "":
			r.Outcome, r.Error = dashstore.BulkSkipped, r.Problem
			skipped = append(skipped, r)
		case r.Sent(), r.Outcome == dashstore.BulkFailed && r.TransferID != "":
			// Sent, or sent and failed: its key would give back the same payout.
		case r.Outcome == dashstore.BulkUnsettled:
			unsettled[r.BatchID] = append(unsettled[r.BatchID], r)
		case r.Method == bulkWallet:
			transfers = append(transfers, r)
		default:
			payoutRows = append(payoutRows, r)
		}
	}
	// What the service would refuse now is not sent: a retried row whose problem is not fixed
	// fails again with the service's reason, and nothing of it reaches a rail.
	problems, err := h.bulkPreflight(ctx, job.FileHash, slices.Concat(transfers, payoutRows))
	if err != nil {
		return err
	}
	notSent := func(rows []dashstore.BulkRow) []dashstore.BulkRow {
		return slices.DeleteFunc(rows, func(r dashstore.BulkRow) bool {
			p, refused := problems[r.Row]
			if refused {
				r.Outcome, r.Error, r.TransferID, r.BatchID = dashstore.BulkFailed, bulkNotSent+p, "", ""
				skipped = append(skipped, r)
			}
			return refused
		})
	}
	transfers, payoutRows = notSent(transfers), notSent(payoutRows)
	if err := h.store.SetBulkOutcomes(ctx, job.ID, skipped); err != nil {
		return err
	}
	// Rows of a batch that had not finished are asked of that batch, not sent again.
	for batchID, rows := range unsettled {
		batch, err := h.awaitBatch(ctx, &payouts.TransferBatch{ID: batchID, Status: payouts.BatchPending})
		if err := h.store.SetBulkOutcomes(ctx, job.ID, batchOutcomes(job, rows, batch, err)); err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(transfers, payouts.MaxBatchItems) {
		if err := h.store.SetBulkOutcomes(ctx, job.ID, h.bulkTransfers(ctx, job, chunk)); err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(payoutRows, bulkPayoutChunk) {
		inParallel(bulkParallel, len(chunk), func(i int) { h.bulkPayout(ctx, job, &chunk[i]) })
		if err := h.store.SetBulkOutcomes(ctx, job.ID, chunk); err != nil {
			return err
		}
	}
	return h.auditBulkResult(ctx, job, by)
}

// bulkNotSent begins the reason of a row a run did not send because the preflight refused it.
const bulkNotSent = "Not sent: "

// refusalText is why the service refused a request: its message, or the failure to reach it.
func refusalText(err error) string {
	var e *payouts.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// bulkTransfers credits the rows' payees' wallets in one transfer batch, waits a while for the
// service to run it, and returns the rows with their outcomes.
func (h *Handlers) bulkTransfers(ctx context.Context, job dashstore.BulkJob, rows []dashstore.BulkRow) []dashstore.BulkRow {
	req := payouts.CreateTransferBatchRequest{Items: make([]payouts.TransferBatchItem, len(rows))}
	for i, r := range rows {
		tr := bulkTransferRequest(job.FileHash, r)
		req.Items[i] = payouts.TransferBatchItem{UserID: tr.UserID, Amount: tr.Amount,
			IdempotencyKey: tr.IdempotencyKey, Metadata: tr.Metadata}
	}
	batch, err := h.payouts.CreateTransferBatch(ctx, req)
	if err == nil {
		batch, err = h.awaitBatch(ctx, batch)
	}
	return batchOutcomes(job, rows, batch, err)
}

// awaitBatch asks the service about batch every bulkPoll until it completes, for at most
// bulkWait, and returns it as last seen; an error means it may not have completed.
func (h *Handlers) awaitBatch(ctx context.Context, batch *payouts.TransferBatch) (*payouts.TransferBatch, error) {
	ctx, cancel := context.WithTimeout(ctx, h.bulkWait)
	defer cancel()
	tick := time.NewTicker(h.bulkPoll)
	defer tick.Stop()
	for batch.Status != payouts.BatchCompleted {
		select {
		case <-ctx.Done():
			return batch, ctx.Err()
		case <-tick.C:
		}
		next, err := h.payouts.GetTransferBatch(ctx, batch.ID)
		if err != nil {
			return batch, err
		}
		batch = next
	}
	return batch, nil
}

// batchOutcomes notes on rows what their transfer batch made of them. A batch never sent (nil)
// failed them. One not seen complete may still pay them, so they are unsettled, never failed,
// and keep the batch's id for the job to ask again.
func batchOutcomes(job dashstore.BulkJob, rows []dashstore.BulkRow, batch *payouts.TransferBatch, err error) []dashstore.BulkRow {
	items := map[string]payouts.TransferBatchItem{}
	if batch != nil {
		for _, it := range batch.Items {
			items[it.IdempotencyKey] = it
		}
	}
	for i := range rows {
		r := &rows[i]
		item, ok := items[bulkRowKey(job.FileHash, r.Row)]
		switch {
		case batch == nil:
			r.Outcome, r.Error = dashstore.BulkFailed, err.Error()
		case err != nil || batch.Status != payouts.BatchCompleted:
			r.Outcome, r.BatchID = dashstore.BulkUnsettled, batch.ID
			r.Error = "Transfer batch " + batch.ID + " had not finished when the job stopped waiting; it may still pay this row. Check again later."
		case ok && item.TransferID != nil:
			r.Outcome, r.TransferID, r.Error, r.BatchID = dashstore.BulkPaid, *item.TransferID, "", ""
		case ok:
			r.Outcome, r.Error, r.BatchID = dashstore.BulkFailed, deref(item.Error), ""
		default:
			r.Outcome, r.Error, r.BatchID = dashstore.BulkFailed, "transfer batch "+batch.ID+" does not hold this row", ""
		}
	}
	return rows
}

// bulkTransferRequest is the transfer a wallet row makes, as its transfer batch's item holds it.
func bulkTransferRequest(fileHash string, r dashstore.BulkRow) payouts.CreateTransferRequest {
	return payouts.CreateTransferRequest{UserID: r.UserID, Amount: -r.Amount,
		IdempotencyKey: bulkRowKey(fileHash, r.Row), Metadata: bulkMetadata(fileHash, r)}
}

// bulkPayoutRequest is the payout a row makes to the payee's saved method, funded from the app's
// wallet.
func (h *Handlers) bulkPayoutRequest(ctx context.Context, fileHash string, r dashstore.BulkRow) (payouts.CreatePayoutRequest, error) {
	req := payouts.CreatePayoutRequest{UserID: r.UserID, Amount: r.Amount, Platform: payouts.Platform(r.Method),
		Fund: true, IdempotencyKey: bulkRowKey(fileHash, r.Row), Metadata: bulkMetadata(fileHash, r)}
	return req, h.bankAccountOf(ctx, &req)
}

// bulkPayout pays one row out and notes its outcome on the row.
func (h *Handlers) bulkPayout(ctx context.Context, job dashstore.BulkJob, r *dashstore.BulkRow) {
	var t *payouts.Transfer
	req, err := h.bulkPayoutRequest(ctx, job.FileHash, *r)
	if err == nil {
		t, err = h.payouts.CreatePayout(ctx, req)
	}
	if err != nil {
		r.Outcome, r.Error = dashstore.BulkFailed, refusalText(err)
		return
	}
	setBulkPayoutOutcome(r, t)
}

// setBulkPayoutOutcome notes on a row what its payout t is now: paid only once it completed.
func setBulkPayoutOutcome(r *dashstore.BulkRow, t *payouts.Transfer) {
	r.TransferID, r.Error = t.ID, ""
	switch t.Status {
	case payouts.TransferCompleted:
		r.Outcome = dashstore.BulkPaid
	case payouts.TransferFailed:
		r.Outcome, r.Error = dashstore.BulkFailed, pages.FailureReason(*t)
	case payouts.TransferFlagged:
		r.Outcome = dashstore.BulkHeld
	default:
		r.Outcome = dashstore.BulkSent
	}
}

// followBulkRows asks the service how the payouts of rows still sent or held stand now, notes
// it on rows, and records the rows that moved: every reader of a finished job (its page, its
// result CSV, a retry) sees the rows as the service's transfers are at that moment.
func (h *Handlers) followBulkRows(ctx context.Context, jobID string, rows []dashstore.BulkRow) error {
	var open []int
	for i, r := range rows {
		if (r.Outcome == dashstore.BulkSent || r.Outcome == dashstore.BulkHeld) && r.TransferID != "" {
			open = append(open, i)
		}
	}
	errs := make([]error, len(open))
	moved := make([]bool, len(open))
	inParallel(bulkParallel, len(open), func(i int) {
		r := &rows[open[i]]
		t, err := h.payouts.GetTransfer(ctx, r.TransferID)
		if err != nil {
			errs[i] = err
			return
		}
		was := r.Outcome
		setBulkPayoutOutcome(r, t)
		moved[i] = r.Outcome != was
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	var changed []dashstore.BulkRow
	for i, m := range moved {
		if m {
			changed = append(changed, rows[open[i]])
		}
	}
	if len(changed) == 0 {
		return nil
	}
	return h.store.SetBulkOutcomes(ctx, jobID, changed)
}

// bankAccountOf picks the payee's saved bank account for an ACH payout, which must name one. A
// payee without one gets none, and the service says what is missing.
func (h *Handlers) bankAccountOf(ctx context.Context, req *payouts.CreatePayoutRequest) error {
	if req.Platform != payouts.PlatformACH {
		return nil
	}
	methods, err := h.payouts.ListPayoutMethods(ctx, req.UserID)
	if err != nil {
		return err
	}
	for _, m := range methods {
		if m.Platform == payouts.PlatformACH {
			req.AccountID = m.ID
			break
		}
	}
	return nil
}

// auditBulkResult records in the audit log how a job ended, in the name of whoever confirmed it.
func (h *Handlers) auditBulkResult(ctx context.Context, job dashstore.BulkJob, by dashstore.Operator) error {
	rows, err := h.store.BulkRows(ctx, job.ID)
	if err != nil {
		return err
	}
	s := summarizeBulk(rows)
	return h.store.AddAudit(ctx, &dashstore.AuditEntry{Created: h.now(), OperatorID: by.ID, OperatorEmail: by.Email,
		Action: "bulk.result", ObjectType: "bulk", ObjectID: job.ID,
		Detail: fmt.Sprintf("%s: %d paid (%s), %d failed, %d skipped, %d unsettled", job.FileName, s.Paid,
			payouts.Money(s.PaidAmount), s.Failed, s.Skipped, s.Unsettled)})
}

// FollowBulkJobs follows the rows of the app's finished jobs still sent or held
// (followBulkRows), so that the result CSV and the Overview agree with the service's transfers
// without anyone opening a job's page.
func (h *Handlers) FollowBulkJobs(ctx context.Context) error {
	if h.appID == "" {
		return nil
	}
	ids, err := h.store.FollowedBulkJobs(ctx, h.appID)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		rows, err := h.store.BulkRows(ctx, id)
		if err == nil {
			err = h.followBulkRows(ctx, id, rows)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("job %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// KeepFollowingBulkJobs runs FollowBulkJobs every interval until ctx ends.
func (h *Handlers) KeepFollowingBulkJobs(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := h.FollowBulkJobs(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("following bulk payout rows", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
