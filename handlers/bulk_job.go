package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
)

// bulkPayoutChunk is how many payout rows a job sends before it records their outcomes.
const bulkPayoutChunk = 100

// startBulkJob runs a confirmed job in the background and returns at once. It needs nothing of
// the request that confirmed it, so the job outlives the request; approvals call it too, once a
// second operator has approved a job. A job this dashboard is already running is left to run;
// one a restart interrupted runs again, and the rows' idempotency keys keep it from paying twice.
func (h *Handlers) startBulkJob(ctx context.Context, jobID string, by dashstore.Operator) error {
	job, err := h.store.BulkJob(ctx, h.appID, jobID)
	if err != nil {
		return err
	}
	started, err := h.bulkRuns.start(jobID, func() error {
		return h.store.SetBulkStatus(ctx, jobID, dashstore.BulkRunning, h.now())
	})
	if err != nil || !started {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	go func() {
		// A panic here would end the whole dashboard, which no request's recover covers.
		defer func() {
			if p := recover(); p != nil {
				h.bulkRuns.finish(jobID, func() error { return nil })
				h.log.Error("bulk payout job panicked", "job", jobID, "panic", p)
			}
		}()
		err := h.runBulkJob(ctx, job, by)
		if err == nil {
			err = h.bulkRuns.finish(jobID, func() error {
				return h.store.SetBulkStatus(ctx, jobID, dashstore.BulkDone, h.now())
			})
		} else {
			h.bulkRuns.finish(jobID, func() error { return nil })
		}
		if err != nil {
			h.log.Error("bulk payout job stopped", "job", jobID, "err", err)
		}
	}()
	return nil
}

// bulkRuns are the jobs this process is running. A job's status changes under its lock, so a
// confirm that comes as a run ends either finds it running or starts it again once done.
type bulkRuns struct {
	mu      sync.Mutex
	running map[string]bool
}

// start marks a job running and calls mark, unless it is running already.
func (r *bulkRuns) start(id string, mark func() error) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[id] {
		return false, nil
	}
	if err := mark(); err != nil {
		return false, err
	}
	if r.running == nil {
		r.running = map[string]bool{}
	}
	r.running[id] = true
	return true, nil
}

// isRunning reports whether this process is running the job.
func (r *bulkRuns) isRunning(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.running[id]
}

// finish calls mark, which records how the job ended, and then forgets the job, both under the
// lock: no one hears that the job is not running here before its status says how it ended.
func (r *bulkRuns) finish(id string, mark func() error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := mark()
	delete(r.running, id)
	return err
}

// runBulkJob pays every good row not yet paid: wallet rows as transfer batches of up to 1,000,
// payout rows one call each, bulkParallel at a time. Rows with a problem are recorded as skipped.
// Outcomes are recorded chunk by chunk, so the progress bar moves and a crash loses little; the
// caller marks the job done.
func (h *Handlers) runBulkJob(ctx context.Context, job dashstore.BulkJob, by dashstore.Operator) error {
	rows, err := h.store.BulkRows(ctx, job.ID)
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
		case r.Outcome == dashstore.BulkPaid:
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
	switch {
	case err != nil:
		r.Outcome, r.Error = dashstore.BulkFailed, refusalText(err)
	case t.Status == payouts.TransferFailed:
		r.Outcome, r.TransferID, r.Error = dashstore.BulkFailed, t.ID, t.FailureReason
	default:
		r.Outcome, r.TransferID, r.Error = dashstore.BulkPaid, t.ID, ""
	}
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
