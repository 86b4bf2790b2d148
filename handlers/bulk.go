package handlers

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/disburse/disburse/internal/dashstore"
	"github.com/disburse/disburse/payouts"
	"github.com/disburse/disburse/views/pages"
	"github.com/disburse/disburse/views/paths"
	"github.com/disburse/disburse/web"
)

// bulkStore is what bulk payouts need of the dashboard's database (dashstore.Store).
type bulkStore interface {
	CreateBulkJob(ctx context.Context, job *dashstore.BulkJob, rows []dashstore.BulkRow) (bool, error)
	BulkJob(ctx context.Context, appID, id string) (dashstore.BulkJob, error)
	BulkJobByHash(ctx context.Context, appID, hash string) (dashstore.BulkJob, error)
	BulkRows(ctx context.Context, jobID string) ([]dashstore.BulkRow, error)
	CountFailedBulkRows(ctx context.Context, appID string, since time.Time) (int, error)
	ClaimBulkJob(ctx context.Context, appID, id, owner string, by dashstore.Operator, now, until time.Time) (bool, error)
	RenewBulkLease(ctx context.Context, id, owner string, until time.Time) (bool, error)
	ReleaseBulkJob(ctx context.Context, id, owner string, status dashstore.BulkStatus, now time.Time) (bool, error)
	BulkJobLease(ctx context.Context, appID, id string) (dashstore.BulkLease, error)
	UnheldBulkJobs(ctx context.Context, appID string, now time.Time) ([]dashstore.BulkLease, error)
	SetBulkOutcomes(ctx context.Context, jobID string, rows []dashstore.BulkRow) error
	DeleteBulkJob(ctx context.Context, appID, id string) error
	BulkJobs(ctx context.Context, appID string, limit int) ([]dashstore.BulkJob, error)
	FollowedBulkJobs(ctx context.Context, appID string) ([]string, error)
	BulkRepeats(ctx context.Context, job dashstore.BulkJob, window time.Duration) ([]dashstore.BulkRepeat, error)
	ConfirmBulkRepeats(ctx context.Context, appID, id string, by dashstore.Operator, now time.Time) (bool, error)
}

// bulkUploadLimit is the request body the upload route reads: twice the file limit, so that a
// file a little too large gets a page saying so rather than a bare 413.
const bulkUploadLimit = 2 * bulkMaxBytes

// bulkPage is the form to upload a CSV of payouts.
func (h *Handlers) bulkPage(c *fiber.Ctx) error {
	return h.renderBulkUpload(c, fiber.StatusOK, "")
}

func (h *Handlers) renderBulkUpload(c *fiber.Ctx, status int, problem string) error {
	jobs, err := h.store.BulkJobs(c.UserContext(), h.appID, 20)
	if err != nil {
		return err
	}
	p := pages.BulkUploadProps{Problem: problem, MaxRows: bulkMaxRows, MaxMB: bulkMaxBytes >> 20}
	for _, j := range jobs {
		p.Jobs = append(p.Jobs, bulkJobItem(j))
	}
	return h.web.Render(c, status, web.Page{Title: "Bulk payouts", Content: pages.BulkUpload(h.web.View(c), p)})
}

// uploadBulk reads an uploaded file, validates every row against the service and keeps the job
// for the operator to confirm. Nothing moves yet. A file uploaded before opens its job again.
func (h *Handlers) uploadBulk(c *fiber.Ctx) error {
	if h.appID == "" {
		return fiber.NewError(fiber.StatusNotFound, "The dashboard does not know which app it serves; set --app-id.")
	}
	data, name, status, problem := uploadedFile(c, "file")
	if problem != "" {
		return h.renderBulkUpload(c, status, problem)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	ctx := c.UserContext()
	switch job, err := h.store.BulkJobByHash(ctx, h.appID, hash); {
	case err == nil:
		web.Flash(c, web.FlashInfo, "This file was uploaded before ("+job.FileName+"); here is its bulk payout. Nothing is paid twice.")
		return web.Redirect(c, paths.Bulk(job.ID))
	case payouts.ErrorCode(err) != payouts.ENotFound:
		return err // the database failed: not a reason to parse and store the file again
	}
	rows, err := parseBulkCSV(data)
	if err != nil {
		return h.renderBulkUpload(c, fiber.StatusUnprocessableEntity, err.Error())
	}
	if err := h.resolveBulkRows(ctx, hash, rows); err != nil {
		return err
	}
	op := h.operatorOf(c)
	job := dashstore.BulkJob{AppID: h.appID, FileHash: hash, FileName: name, OperatorID: op.ID,
		Status: dashstore.BulkPreviewed, Created: h.now()}
	if _, err := h.store.CreateBulkJob(ctx, &job, rows); err != nil {
		return err
	}
	s := summarizeBulk(rows)
	h.audit(c, "bulk.upload", "bulk", job.ID, fmt.Sprintf("%s: %d rows, %d with problems, %s to pay", name, s.Rows, s.Bad, payouts.Money(s.Total)))
	return web.Redirect(c, paths.Bulk(job.ID))
}

// uploadedFile returns the bytes and name of the form's file, or the status and words of what is
// wrong with it.
func uploadedFile(c *fiber.Ctx, field string) (data []byte, name string, status int, problem string) {
	const unreadable = "The file could not be read. Upload it again."
	fh, err := c.FormFile(field)
	if err != nil {
		return nil, "", fiber.StatusUnprocessableEntity, "Choose a CSV file to upload."
	}
	if fh.Size > bulkMaxBytes {
		return nil, "", fiber.StatusRequestEntityTooLarge, fmt.Sprintf("The file is %.1f MB; this page takes files up to %d MB (%d rows). Split it and upload the parts.",
			float64(fh.Size)/(1<<20), bulkMaxBytes>>20, bulkMaxRows)
	}
	f, err := fh.Open()
	if err != nil {
		return nil, "", fiber.StatusUnprocessableEntity, unreadable
	}
	defer f.Close()
	if data, err = io.ReadAll(f); err != nil {
		return nil, "", fiber.StatusUnprocessableEntity, unreadable
	}
	return data, fh.Filename, 0, ""
}

// bulkJob shows a job: the preview with every row's problem before it is confirmed, then its
// progress and, once done, its results.
func (h *Handlers) bulkJob(c *fiber.Ctx) error {
	return h.renderBulkJob(c, fiber.StatusOK, "")
}

func (h *Handlers) renderBulkJob(c *fiber.Ctx, status int, problem string) error {
	p, job, rows, err := h.bulkProps(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	p.Problem = problem
	p.Uploader = job.OperatorID == h.operatorOf(c).ID
	if p.Review, err = h.bulkReview(c.UserContext(), rows, c.QueryInt("rows", 1)); err != nil {
		return err
	}
	if err := h.bulkRetryPlan(c.UserContext(), &p, job, rows); err != nil {
		return err
	}
	if err := h.nameBulkRefs(c.UserContext(), &p, rows); err != nil {
		return err
	}
	if job.Status == dashstore.BulkPreviewed {
		// Without the service's preflight only the file's own checks and the payees' look-up
		// were made: the rows to pay are named as unchecked, not counted as payable silently.
		checked, err := h.offers(c.UserContext(), payouts.ExtPreflight)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if !checked && r.Problem == "" {
				p.Unchecked = append(p.Unchecked, r.Row)
			}
		}
		app, err := h.payouts.GetApp(c.UserContext(), h.appID)
		if err != nil {
			return err
		}
		wallet, whole, err := h.appWallet(c.UserContext(), app)
		if err != nil {
			return err
		}
		p.Balance, p.BalanceWhole = wallet.WithdrawableAmount, whole
		if !whole {
			p.Balance = wallet.Amount
		}
	}
	view := h.web.View(c)
	progress := pages.BulkProgress(view, p)
	return h.web.Render(c, status, web.Page{Title: "Bulk payout", Content: pages.BulkJob(view, p), Fragment: progress})
}

// bulkProgress is a running job's progress alone, which its page polls until the job is done.
func (h *Handlers) bulkProgress(c *fiber.Ctx) error {
	p, _, _, err := h.bulkProps(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	progress := pages.BulkProgress(h.web.View(c), p)
	return h.web.Render(c, fiber.StatusOK, web.Page{Title: "Bulk payout progress", Content: progress, Fragment: progress})
}

func (h *Handlers) bulkProps(ctx context.Context, id string) (pages.BulkJobProps, dashstore.BulkJob, []dashstore.BulkRow, error) {
	// The lease is read before the job: a run marks its job done as it lets go of the lease, in
	// one statement (ReleaseBulkJob), so a job read after its lease is gone is read as it ended.
	// Read the other way round, a job read just before its run ended looked cut off.
	lease, err := h.store.BulkJobLease(ctx, h.appID, id)
	if err != nil {
		return pages.BulkJobProps{}, dashstore.BulkJob{}, nil, err
	}
	job, rows, repeats, err := h.bulkRowsOf(ctx, id)
	if err != nil {
		return pages.BulkJobProps{}, dashstore.BulkJob{}, nil, err
	}
	// A job the database says is running that no dashboard process holds was cut off (its
	// process died or stopped on an error): the page offers to resume it instead of waiting for
	// another process to take it over.
	p := pages.BulkJobProps{Job: bulkJobItem(job), Summary: summarizeBulk(rows),
		Stalled:            job.Status == dashstore.BulkRunning && !lease.Held(h.now()),
		RepeatWindow:       windowText(h.bulkRepeatWindow),
		RepeatsConfirmedBy: job.RepeatsConfirmedEmail, RepeatsConfirmed: job.RepeatsConfirmed}
	for _, rep := range repeats {
		r := rows[slices.IndexFunc(rows, func(r dashstore.BulkRow) bool { return r.Row == rep.Row })]
		p.Repeats = append(p.Repeats, pages.BulkRepeatRow{Row: rep.Row, UserRef: r.UserRef, Amount: payouts.Money(r.Amount),
			EarlierJobID: rep.EarlierJobID, EarlierFile: rep.EarlierFile, EarlierRow: rep.EarlierRow, Earlier: rep.Earlier})
	}
	for _, r := range rows {
		if r.Problem != "" || (r.Outcome != "" && r.Outcome != dashstore.BulkPaid) {
			p.NotPaid = append(p.NotPaid, pages.BulkRowNotPaid{Row: r.Row, UserRef: r.UserRef,
				Outcome: bulkOutcomeLabel(r), Reason: bulkReason(r)})
		}
	}
	return p, job, rows, nil
}

// bulkRowsOf reads the app's job id and its rows, and the rows that repeat an earlier job's
// (dashstore.BulkRepeats, within the repeat window). Until a second operator confirms paying
// them again, each repeated row not yet sent carries the repeat as its problem here (the store
// keeps the row as it was), so it is counted, listed, left out of the approval totals and
// skipped by a run like any row with a problem.
func (h *Handlers) bulkRowsOf(ctx context.Context, id string) (dashstore.BulkJob, []dashstore.BulkRow, []dashstore.BulkRepeat, error) {
	job, err := h.store.BulkJob(ctx, h.appID, id)
	if err != nil {
		return dashstore.BulkJob{}, nil, nil, err
	}
	rows, err := h.store.BulkRows(ctx, job.ID)
	if err != nil {
		return dashstore.BulkJob{}, nil, nil, err
	}
	// While a job runs its rows are its run's to record; once done, they are followed.
	if job.Status == dashstore.BulkDone {
		if err := h.followBulkRows(ctx, job.ID, rows); err != nil {
			return dashstore.BulkJob{}, nil, nil, err
		}
	}
	repeats, err := h.store.BulkRepeats(ctx, job, h.bulkRepeatWindow)
	if err != nil || job.RepeatsConfirmedBy != "" {
		return job, rows, repeats, err
	}
	byRow := make(map[int]dashstore.BulkRepeat, len(repeats))
	for _, rep := range repeats {
		byRow[rep.Row] = rep
	}
	for i := range rows {
		r := &rows[i]
		rep, repeated := byRow[r.Row]
		if repeated && r.Problem == "" && (r.Outcome == "" || r.Outcome == dashstore.BulkSkipped) {
			r.Problem = fmt.Sprintf("Repeats row %d of %s, uploaded %s: not paid unless another operator confirms paying it again.",
				rep.EarlierRow, rep.EarlierFile, rep.Earlier.UTC().Format("2 Jan 2006 15:04 UTC"))
		}
	}
	return job, rows, repeats, nil
}

// confirmBulkRepeats records that a second operator confirmed paying a job's repeated rows again,
// before the job runs. Its uploader never can, from this session or any other: the check is on
// who they are (in the store's update too), not on the page they came from.
func (h *Handlers) confirmBulkRepeats(c *fiber.Ctx) error {
	ctx := c.UserContext()
	job, _, repeats, err := h.bulkRowsOf(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	op := h.operatorOf(c)
	switch {
	case op.ID == job.OperatorID:
		return fiber.NewError(fiber.StatusForbidden, "You uploaded this file: another operator who may move money must confirm paying its repeated rows again.")
	case len(repeats) == 0:
		return h.renderBulkJob(c, fiber.StatusUnprocessableEntity, "No row of this file repeats an earlier file's: there is nothing to confirm.")
	}
	confirmed, err := h.store.ConfirmBulkRepeats(ctx, h.appID, job.ID, op, h.now())
	if err != nil {
		return err
	}
	if !confirmed {
		// The job page shows a problem only before the job runs: this one ran, or is running.
		return fiber.NewError(fiber.StatusUnprocessableEntity, "This bulk payout was confirmed already: its repeated rows are not paid. Upload them again in a file of their own to pay them.")
	}
	h.audit(c, "bulk.confirm_repeats", "bulk", job.ID, fmt.Sprintf("%s: %d rows repeating earlier files confirmed to be paid again", job.FileName, len(repeats)))
	web.Flash(c, web.FlashSuccess, fmt.Sprintf("Confirmed: the %d repeated rows are paid with the others when the file is confirmed.", len(repeats)))
	return web.Redirect(c, paths.Bulk(job.ID))
}

// bulkReviewRows is how many rows to pay, and payees, a job's page lists at once.
const bulkReviewRows = 50

// bulkReview is page (from 1) of a job's rows to pay with their payees named, and its totals
// per payee, the largest first: the service is asked once per payee shown, at most twice
// bulkReviewRows, whatever the file's size.
func (h *Handlers) bulkReview(ctx context.Context, rows []dashstore.BulkRow, page int) (pages.BulkReview, error) {
	var good []dashstore.BulkRow
	totals := map[string]*pages.BulkPayeeTotal{}
	var order []string
	for _, r := range rows {
		if r.Problem != "" {
			continue
		}
		good = append(good, r)
		t := totals[r.UserID]
		if t == nil {
			t = &pages.BulkPayeeTotal{}
			totals[r.UserID] = t
			order = append(order, r.UserID)
		}
		t.Rows++
		t.Amount += payouts.Money(r.Amount)
	}
	if len(good) == 0 {
		return pages.BulkReview{}, nil
	}
	r := pages.BulkReview{Pages: (len(good) + bulkReviewRows - 1) / bulkReviewRows}
	r.Page = min(max(page, 1), r.Pages)
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(totals[b].Amount, totals[a].Amount) })
	if len(order) > bulkReviewRows {
		r.PayeesNotShown, order = len(order)-bulkReviewRows, order[:bulkReviewRows]
	}
	book := newPayeeBook(h.payouts.GetUser)
	for _, id := range order {
		p, err := book.lookup(ctx, &id)
		if err != nil {
			return r, err
		}
		t := totals[id]
		t.Payee, t.Email = p.name, p.email
		r.PerPayee = append(r.PerPayee, *t)
	}
	for _, row := range good[(r.Page-1)*bulkReviewRows : min(r.Page*bulkReviewRows, len(good))] {
		p, err := book.lookup(ctx, &row.UserID)
		if err != nil {
			return r, err
		}
		if p.name == "" && p.email == "" {
			p.email = row.UserRef
		}
		r.Rows = append(r.Rows, pages.BulkReviewRow{Row: row.Row, Payee: p.name, Email: p.email,
			Amount: payouts.Money(row.Amount), Method: row.Method})
	}
	return r, nil
}

// nameBulkRefs shows the rows not paid, and those a retry would take, given by user id by their
// payee's name and email instead: an id says nothing to whoever reviews them.
func (h *Handlers) nameBulkRefs(ctx context.Context, p *pages.BulkJobProps, rows []dashstore.BulkRow) error {
	userOf := map[int]string{}
	for _, r := range rows {
		if r.UserID != "" && r.UserRef == r.UserID {
			userOf[r.Row] = r.UserID
		}
	}
	book := newPayeeBook(h.payouts.GetUser)
	name := func(row int, ref *string) error {
		id, ok := userOf[row]
		if !ok {
			return nil
		}
		who, err := book.lookup(ctx, &id)
		if err == nil && who.name+who.email != "" {
			*ref = pages.BulkPayeeName(who.name, who.email)
		}
		return err
	}
	for i := range p.NotPaid {
		if err := name(p.NotPaid[i].Row, &p.NotPaid[i].UserRef); err != nil {
			return err
		}
	}
	for i := range p.Retry {
		if err := name(p.Retry[i].Row, &p.Retry[i].UserRef); err != nil {
			return err
		}
	}
	return nil
}

// bulkJobItem is a job as its pages name it.
func bulkJobItem(j dashstore.BulkJob) pages.BulkJobItem {
	return pages.BulkJobItem{ID: j.ID, FileName: j.FileName, Status: pages.BulkStatus(j.Status), Created: j.Created}
}

// bulkOutcomeLabel names how a row that was not paid ended, or will.
func bulkOutcomeLabel(r dashstore.BulkRow) string {
	switch r.Outcome {
	case dashstore.BulkFailed:
		return "Failed"
	case dashstore.BulkUnsettled:
		return "Still running"
	case dashstore.BulkSent:
		return "Sent, not yet paid"
	case dashstore.BulkHeld:
		return "Held for review"
	}
	return "Skipped"
}

// bulkReason is why a row was not paid: its problem before the run, the failure, or where its
// payout stands.
func bulkReason(r dashstore.BulkRow) string {
	switch {
	case r.Problem != "":
		return r.Problem
	case r.Outcome == dashstore.BulkSent:
		return "Payout " + r.TransferID + " is on its rail; the row is paid when it completes."
	case r.Outcome == dashstore.BulkHeld:
		return "Payout " + r.TransferID + " is held for review; it is sent once released, and never if rejected."
	}
	return r.Error
}

// bulkFailedOnRail begins what a retry does with a row whose payout was made and failed.
const bulkFailedOnRail = "It failed on the rail after it was sent"

// bulkRetryPlan says, for each failed row of a finished job, whether the service's preflight
// still refuses it (and why) or it would now be sent: what "Retry the failed rows" will do.
func (h *Handlers) bulkRetryPlan(ctx context.Context, p *pages.BulkJobProps, job dashstore.BulkJob, rows []dashstore.BulkRow) error {
	if job.Status != dashstore.BulkDone || p.Summary.Failed == 0 {
		return nil
	}
	var failed, resend []dashstore.BulkRow
	for _, r := range rows {
		if r.Problem == "" && r.Outcome == dashstore.BulkFailed {
			failed = append(failed, r)
			if r.TransferID == "" {
				resend = append(resend, r)
			}
		}
	}
	problems, err := h.bulkPreflight(ctx, job.FileHash, resend)
	if err != nil {
		return err
	}
	for _, r := range failed {
		still := problems[r.Row]
		if r.TransferID != "" {
			// Its key was spent on a payout that failed: sent again, it gives that payout back.
			still = bulkFailedOnRail + " (payout " + r.TransferID + "), and a retry would get that same failed payout back: pay it in a new file once the payee's method is fixed."
		}
		p.Retry = append(p.Retry, pages.BulkRetryRow{Row: r.Row, UserRef: r.UserRef, Failed: r.Error, Still: still})
	}
	return nil
}

// confirmBulk pays the good rows of a job in the background, when the app's wallet holds what
// they need. Confirming a job again (after a restart, or to retry failed rows) is safe: every
// row's idempotency key is the same each time.
func (h *Handlers) confirmBulk(c *fiber.Ctx) error {
	ctx := c.UserContext()
	p, job, jobRows, err := h.bulkProps(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	// Whether the wallet covers each row is the service's to say: the preview showed its
	// preflight, and the run asks it again before sending anything.
	if p.Summary.Good == 0 {
		if len(p.Repeats) > 0 && p.RepeatsConfirmedBy == "" {
			return h.renderBulkJob(c, fiber.StatusUnprocessableEntity, "Every row that could be paid repeats an earlier file's: another operator must confirm paying them again first.")
		}
		return h.renderBulkJob(c, fiber.StatusUnprocessableEntity, "No row can be paid: fix the file and upload it again.")
	}
	// A job confirmed before (resumed, or its failed rows retried) was approved or below the
	// threshold then; a new one above it waits for a second operator.
	op := h.operatorOf(c)
	if job.Status == dashstore.BulkPreviewed {
		key := p.Job.ID
		// The rows count from now as sent: the job pays them, and does not tell which transfer paid
		// which row.
		_, held, err := h.holdByPolicy(c, heldRequest{kind: kindBulk, amount: payouts.Money(p.Summary.Total - p.Summary.PaidAmount),
			key: &key, payees: fmt.Sprintf("%d rows of %s", p.Summary.Good, p.Job.FileName),
			method: "as each row of the file says", request: bulkApproval{JobID: p.Job.ID},
			flows: bulkOutflows(p.Job.ID, jobRows, op.ID)})
		if held || err != nil {
			return err
		}
	}
	if err := h.bulkRetryPlan(ctx, &p, job, jobRows); err != nil {
		return err
	}
	if err := h.startBulkJob(ctx, p.Job.ID, op); err != nil {
		return err
	}
	if len(p.Retry) > 0 {
		still := p.RetryStill()
		web.Flash(c, web.FlashInfo, fmt.Sprintf("Retrying %d failed rows: %d pass the checks now and are sent again; %d still fail and are not sent.",
			len(p.Retry), len(p.Retry)-still, still))
		return web.Redirect(c, paths.Bulk(p.Job.ID))
	}
	h.audit(c, "bulk.confirm", "bulk", p.Job.ID, fmt.Sprintf("%s: paying %d rows, %s; skipping %d", p.Job.FileName,
		p.Summary.Good, payouts.Money(p.Summary.Total), p.Summary.Bad))
	web.Flash(c, web.FlashSuccess, "Paying "+strconv.Itoa(p.Summary.Good)+" rows. This page shows the progress.")
	return web.Redirect(c, paths.Bulk(p.Job.ID))
}

// bulkApproval is what an approval of a bulk payout holds: the checked job, run once approved.
type bulkApproval struct {
	JobID string `json:"job_id"`
}

func (r bulkApproval) Validate() error {
	if r.JobID == "" {
		return errors.New("bulk approval: no job")
	}
	return nil
}

// runApprovedBulk runs the job an approval held, as approved by by.
func (h *Handlers) runApprovedBulk(ctx context.Context, request []byte, by dashstore.Operator) (string, error) {
	var r bulkApproval
	if err := json.Unmarshal(request, &r); err != nil {
		return "", err
	}
	return r.JobID, h.startBulkJob(ctx, r.JobID, by)
}

// approvedBulkOutflows is what approving a bulk payout sends, row by row, as the policy counts it.
func (h *Handlers) approvedBulkOutflows(ctx context.Context, a dashstore.Approval) ([]dashstore.Outflow, error) {
	var r bulkApproval
	if err := json.Unmarshal([]byte(a.Request), &r); err != nil {
		return nil, err
	}
	_, rows, _, err := h.bulkRowsOf(ctx, r.JobID)
	if err != nil {
		return nil, err
	}
	return bulkOutflows(r.JobID, rows, a.MakerID), nil
}

// bulkOutflows is what a job's good rows not yet paid send, one flow a row, as the approval
// policy counts them: each to its user, all by operatorID.
func bulkOutflows(jobID string, rows []dashstore.BulkRow, operatorID string) []dashstore.Outflow {
	flows := []dashstore.Outflow{}
	for _, r := range rows {
		if r.Problem == "" && !r.Sent() {
			flows = append(flows, dashstore.Outflow{Key: dashstore.BulkOutflowKey(jobID, r.Row), Kind: kindBulk,
				Payee: r.UserID, OperatorID: operatorID, Amount: payouts.Money(r.Amount)})
		}
	}
	return flows
}

// cancelBulk drops a job that was not confirmed.
func (h *Handlers) cancelBulk(c *fiber.Ctx) error {
	id := c.Params("id")
	if err := h.store.DeleteBulkJob(c.UserContext(), h.appID, id); err != nil {
		return err
	}
	h.audit(c, "bulk.cancel", "bulk", id, "canceled before paying")
	web.Flash(c, web.FlashInfo, "Canceled the bulk payout; nothing was paid.")
	return web.Redirect(c, paths.BulkNew())
}

// bulkResult is a job's rows with their outcomes, as CSV.
func (h *Handlers) bulkResult(c *fiber.Ctx) error {
	job, rows, _, err := h.bulkRowsOf(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	return exportCSV(c, h.web, "bulk-payout-"+job.ID[:8]+"-result.csv", h.exportZone(c),
		[]string{"row", "user", "amount", "outcome", "transfer_id", "error"},
		func(context.Context) iter.Seq2[dashstore.BulkRow, error] {
			return func(yield func(dashstore.BulkRow, error) bool) {
				for _, r := range rows {
					if !yield(r, nil) {
						return
					}
				}
			}
		},
		func(_ context.Context, r dashstore.BulkRow) ([]string, error) {
			outcome := r.Outcome
			if outcome == "" {
				outcome = "pending"
			}
			return []string{strconv.Itoa(r.Row), csvText(r.UserRef), payouts.Money(r.Amount).Decimal(), outcome,
				r.TransferID, csvText(r.Error)}, nil
		})
}

// summarizeBulk counts a job's rows and adds up their amounts.
func summarizeBulk(rows []dashstore.BulkRow) pages.BulkSummary {
	var s pages.BulkSummary
	for _, r := range rows {
		s.Rows++
		if r.Problem != "" {
			s.Bad++
		} else {
			s.Good++
			s.Total += r.Amount
			if r.Method != bulkWallet {
				s.Payouts++
			}
		}
		switch r.Outcome {
		case dashstore.BulkPaid:
			s.Paid++
			s.PaidAmount += r.Amount
		case dashstore.BulkSent:
			s.Sent++
		case dashstore.BulkHeld:
			s.Held++
		case dashstore.BulkFailed:
			s.Failed++
		case dashstore.BulkSkipped:
			s.Skipped++
		case dashstore.BulkUnsettled:
			s.Unsettled++
			s.UnsettledAmount += r.Amount
		}
	}
	return s
}
